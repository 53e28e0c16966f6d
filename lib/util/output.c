// SPDX-License-Identifier: MIT
/* Output files that are complete or not there (see output.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/output.h"

#define TMP_TAG		".sbx-tmp-"

struct output {
	char *path;		/* as given, for messages */
	char *target;		/* the file to replace (a link resolved) */
	char *dir;		/* its folder */
	const char *base;	/* its name in the folder (in target) */
	char *tmp;		/* named temporary file, NULL when unnamed or direct */
	int fd;
	bool direct;		/* a stream: written in place */
	bool is_stdout;
	mode_t mode;
	FILE *stream;
	int write_errno;	/* the stream's first failed write(2), for the message */
	char **keep_old;	/* output_keep_old(): where to say the .old file is */
	char *old_link;		/* at commit: the file replaced, linked under a temporary name */
};

static void output_free(struct output *o)
{
	free(o->path);
	free(o->target);
	free(o->dir);
	free(o->tmp);
	free(o);
}

/* The folder of path ("." for a bare name) and its last component. */
static int split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
	return *dir ? 0 : -ENOMEM;
}

/*
 * Remove the named temporary files of earlier runs for this target whose
 * process is gone (killed before it could clean up).
 */
static void clean_stale(const char *dir, const char *base)
{
	char prefix[NAME_MAX + 32];
	size_t plen;
	DIR *d;
	struct dirent *de;

	plen = (size_t)snprintf(prefix, sizeof(prefix), ".%s" TMP_TAG, base);
	if (plen >= sizeof(prefix))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, prefix, plen))
			continue;
		pid = strtol(de->d_name + plen, &end, 10);
		if (pid <= 0 || *end != '-')
			continue;
		if (kill((pid_t)pid, 0) && errno == ESRCH)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

static int open_temporary(struct output *o, const char *base)
{
	int err;

	clean_stale(o->dir, base);
	/* unnamed: nothing to leave behind (SBX_OUTPUT_NAMED=1: the fallback, for tests) */
	if (!getenv("SBX_OUTPUT_NAMED")) {
		o->fd = open(o->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, o->mode);
		if (o->fd >= 0)
			return 0;
		/* the file system (or the kernel) has no O_TMPFILE: a named one */
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return sbx_error_errno(-errno, "cannot create a file beside '%s'",
					       o->path);
	}
	if (asprintf(&o->tmp, "%s/.%s" TMP_TAG "%d-XXXXXX", o->dir, base, (int)getpid()) < 0) {
		o->tmp = NULL;
		return sbx_error(-ENOMEM, "out of memory");
	}
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		err = sbx_error_errno(-errno, "cannot create a file beside '%s'", o->path);
		free(o->tmp);
		o->tmp = NULL;
		return err;
	}
	return 0;
}

int output_open(const char *path, mode_t mode, struct output **out)
{
	struct output *o;
	struct stat st;
	int err;

	*out = NULL;
	if (!path || !*path)
		return sbx_error(-EINVAL, "an empty file name");
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return sbx_error(-ENOMEM, "out of memory");
	}
	o->fd = -1;
	o->mode = mode;
	if (!strcmp(path, "-")) {
		o->direct = o->is_stdout = true;
		o->fd = STDOUT_FILENO;
		*out = o;
		return 0;
	}
	if (stat(path, &st) == 0) {
		struct stat so;

		/* our stdout by another name (/dev/stdout, /proc/self/fd/1): as "-" */
		if (!fstat(STDOUT_FILENO, &so) && st.st_dev == so.st_dev && st.st_ino == so.st_ino) {
			o->direct = o->is_stdout = true;
			o->fd = STDOUT_FILENO;
			*out = o;
			return 0;
		}
		if (S_ISDIR(st.st_mode)) {
			output_free(o);
			return sbx_error(-EISDIR, "'%s' is a folder", path);
		}
		if (!S_ISREG(st.st_mode)) {
			/* FIFO, device, socket (also through /dev/stdout): write it in place */
			o->direct = true;
			o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
			if (o->fd < 0) {
				err = sbx_error_errno(-errno, "cannot open '%s'", path);
				output_free(o);
				return err;
			}
			*out = o;
			return 0;
		}
		/* a link to a regular file: replace the file, keep the link */
		o->target = realpath(path, NULL);
	}
	if (!o->target)
		o->target = strdup(path);
	if (!o->target || split_path(o->target, &o->dir, &o->base)) {
		output_free(o);
		return sbx_error(-ENOMEM, "out of memory");
	}
	if (!*o->base) {
		err = sbx_error(-EISDIR, "'%s' names a folder", path);
		output_free(o);
		return err;
	}
	err = open_temporary(o, o->base);
	if (err) {
		output_free(o);
		return err;
	}
	/* exactly mode, whatever the umask: perf refuses files others may write */
	fchmod(o->fd, mode);
	*out = o;
	return 0;
}

int output_open_name(const char *path, mode_t mode, struct output **out)
{
	struct output *o;
	struct stat st;
	int err;

	*out = NULL;
	if (!path || !*path)
		return sbx_error(-EINVAL, "an empty file name");
	/* a folder cannot be renamed over; anything else there is only a name to replace */
	if (!lstat(path, &st) && S_ISDIR(st.st_mode))
		return sbx_error(-EISDIR, "'%s' is a folder", path);
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path)) || !(o->target = strdup(path)) ||
	    split_path(o->target, &o->dir, &o->base)) {
		if (o)
			output_free(o);
		return sbx_error(-ENOMEM, "out of memory");
	}
	o->fd = -1;
	o->mode = mode;
	if (!*o->base) {
		output_free(o);
		return sbx_error(-EISDIR, "'%s' names a folder", path);
	}
	err = open_temporary(o, o->base);
	if (err) {
		output_free(o);
		return err;
	}
	fchmod(o->fd, mode);
	*out = o;
	return 0;
}

int output_fd(const struct output *o)
{
	return o->fd;
}

/*
 * The stream of a file writes through these, so that the errno of a write
 * that failed while the stream flushed its buffer (ENOSPC, EDQUOT, EIO) is
 * kept for the message: stdio keeps only an error flag.
 */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	struct output *o = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(o->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!o->write_errno)
				o->write_errno = n < 0 ? errno : ENOSPC;
			/* fopencookie: 0 is the error (glibc takes -1 as SIZE_MAX bytes) */
			return (ssize_t)done;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int cookie_seek(void *cookie, off64_t *pos, int whence)
{
	struct output *o = cookie;
	off_t r = lseek(o->fd, (off_t)*pos, whence);

	if (r < 0)
		return -1;
	*pos = r;
	return 0;
}

static int cookie_close(void *cookie)
{
	struct output *o = cookie;

	return close(o->fd);
}

FILE *output_stream(struct output *o)
{
	static const cookie_io_functions_t io = {
		.write = cookie_write, .seek = cookie_seek, .close = cookie_close,
	};

	if (!o->stream)
		o->stream = o->is_stdout ? stdout : fopencookie(o, "w", io);
	return o->stream;
}

bool output_is_stream(const struct output *o)
{
	return o->direct;
}

const char *output_path(const struct output *o)
{
	return o->path;
}

/* Flush the stream and, for a file, sync it to the disk. */
static int flush_sync(struct output *o)
{
	if (o->stream && (fflush(o->stream) || ferror(o->stream)))
		return sbx_error_errno(o->write_errno ? -o->write_errno : errno ? -errno : -EIO,
				       "cannot write '%s'", o->path);
	if (!o->direct && fsync(o->fd))
		return sbx_error_errno(-errno, "cannot write '%s'", o->path);
	return 0;
}

/* Close the stream and the descriptor (not stdout's). */
static int close_out(struct output *o)
{
	int err = 0;

	if (o->is_stdout)
		return 0;
	if (o->stream ? fclose(o->stream) : close(o->fd))
		err = sbx_error_errno(-errno, "cannot write '%s'", o->path);
	o->stream = NULL;
	o->fd = -1;
	return err;
}

/* Give an unnamed file a name in the target's folder: linkat through /proc. */
static int name_unnamed(struct output *o, char **name, bool *in_place)
{
	char proc[64];
	int fd = o->fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	/* straight to the target when there is none yet: no name in between */
	*name = NULL;
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, o->target, AT_SYMLINK_FOLLOW)) {
		*in_place = true;
		return 0;
	}
	if (errno != EEXIST)
		return sbx_error_errno(-errno, "cannot create '%s'", o->path);
	for (int tries = 0; tries < 100; tries++) {
		if (asprintf(name, "%s/.%s" TMP_TAG "%d-%d", o->dir, o->base, (int)getpid(),
			     tries) < 0)
			return sbx_error(-ENOMEM, "out of memory");
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, *name, AT_SYMLINK_FOLLOW))
			return 0;
		free(*name);
		*name = NULL;
		if (errno != EEXIST)
			break;
	}
	return sbx_error_errno(-errno, "cannot create a file beside '%s'", o->path);
}

/* Sync the folder, so the new name survives a crash too (best effort). */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

void output_keep_old(struct output *o, char **kept)
{
	o->keep_old = kept;
	*kept = NULL;
}

/*
 * Before the new file goes in: the one it replaces, hard-linked under a
 * temporary name beside it (the target stays in place, and an older .old
 * too, until the new file is in). No link, no .old: nothing is moved.
 */
static void link_old(struct output *o)
{
	struct stat st;

	if (stat(o->target, &st) || !S_ISREG(st.st_mode) || !st.st_size ||
	    asprintf(&o->old_link, "%s.old" TMP_TAG "%d", o->target, (int)getpid()) < 0) {
		o->old_link = NULL;
		return;
	}
	unlink(o->old_link);
	if (link(o->target, o->old_link)) {
		free(o->old_link);
		o->old_link = NULL;
	}
}

/* After it: the link becomes TARGET.old (committed), or goes (failed). */
static void finish_old(struct output *o, bool committed)
{
	char *old = NULL;

	if (!o->old_link)
		return;
	if (committed && asprintf(&old, "%s.old", o->target) >= 0 && !rename(o->old_link, old))
		*o->keep_old = old;
	else
		free(old);
	unlink(o->old_link);	/* still there only when it was not renamed */
	free(o->old_link);
	o->old_link = NULL;
}

int output_commit(struct output *o)
{
	char *name = NULL;
	bool in_place = false;
	int err, cerr;

	if (!o)
		return 0;
	err = flush_sync(o);
	if (!err && !o->direct && o->keep_old)
		link_old(o);
	/* an unnamed file is named while its descriptor is open */
	if (!err && !o->direct && !o->tmp)
		err = name_unnamed(o, &name, &in_place);
	cerr = close_out(o);
	err = err ? err : cerr;
	if (!o->direct) {
		const char *from = o->tmp ? o->tmp : name;

		if (!err && from && rename(from, o->target))
			err = sbx_error_errno(-errno, "cannot rename '%s' to '%s'", from, o->path);
		if (err && from)
			unlink(from);
		if (err && in_place)
			unlink(o->target);	/* ours, linked before a late error */
		if (!err)
			sync_dir(o->dir);
	}
	finish_old(o, !err);
	free(name);
	output_free(o);
	return err;
}

void output_abort(struct output *o)
{
	if (!o)
		return;
	if (o->stream && !o->is_stdout)
		fclose(o->stream);
	else if (o->stream)
		fflush(o->stream);
	else if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	/* an unnamed file goes with its descriptor */
	if (o->tmp)
		unlink(o->tmp);
	output_free(o);
}
