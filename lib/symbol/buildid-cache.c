// SPDX-License-Identifier: MIT
/* perf's build-id cache, written (see buildid-cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/buildid.h"
#include "symbol/buildid-cache.h"
#include "util/error.h"
#include "util/input.h"

char *buildid_cache_dir(void)
{
	const char *home = getenv("HOME");
	char *p;

	if (!home || !*home)
		return NULL;	/* no home: no cache, as perf has none */
	if (asprintf(&p, "%s/.debug", home) < 0)
		return NULL;
	return p;
}

/*
 * A path the cache can hold: absolute, every component a plain name (no
 * "", ".", ".."), shorter than a path may be.
 */
static bool cacheable(const char *path)
{
	const char *p = path;

	if (path[0] != '/' || strlen(path) >= 2048)
		return false;
	while (*p == '/') {
		const char *e = strchr(p + 1, '/');
		size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);

		if (!n || (n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.') ||
		    n > 255)
			return false;
		if (!e)
			return true;
		p = e;
	}
	return false;
}

/* Enter (making it when missing) the folder name under dirfd, never through a link. */
static int enter(int dirfd, const char *name)
{
	int fd;

	if (mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Enter each folder of rel ("a/b/c"), from dirfd; the descriptor of the last one. */
static int enter_path(int dirfd, const char *rel)
{
	char name[256];
	int fd = dup(dirfd);

	if (fd < 0)
		return -errno;
	while (*rel) {
		const char *e = strchr(rel, '/');
		size_t n = e ? (size_t)(e - rel) : strlen(rel);
		int next;

		if (n >= sizeof(name)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(name, rel, n);
		name[n] = 0;
		next = enter(fd, name);
		close(fd);
		if (next < 0)
			return next;
		fd = next;
		rel += n + (e ? 1 : 0);
	}
	return fd;
}

/* Write all of buf at off. */
static int pwrite_all(int fd, const char *buf, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, buf, n, off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* Copy the whole of in (size bytes) to out, both from their start. */
static int copy_all(int in, int out, off_t size)
{
	char buf[1 << 14];
	off_t done = 0;
	bool by_hand = false;	/* copy_file_range(2) cannot between these two */

	while (done < size) {
		ssize_t n;

		if (!by_hand) {
			loff_t a = done, b = done;

			n = copy_file_range(in, &a, out, &b, (size_t)(size - done), 0);
			if (n > 0) {
				done += n;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			/* not between these files, not here (a seccomp filter), or nothing done */
			if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
			    errno != EOPNOTSUPP && errno != EPERM)
				return -errno;
			if (n == 0 && done)
				return -EIO;	/* the file shrank under us */
			by_hand = true;
		}
		n = pread(in, buf, sizeof(buf), done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		if (pwrite_all(out, buf, (size_t)n, done))
			return -EIO;
		done += n;
	}
	return 0;
}

/*
 * Open path for reading without following a link at any component
 * (openat2 RESOLVE_NO_SYMLINKS; where the kernel has no openat2, at its last
 * component only), only a regular file, of at most max bytes: checked on the
 * file opened. The descriptor, or a negative errno with a message.
 */
static int open_source(const char *path, uint64_t max, struct stat *st)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	char proc[64];
	int pfd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how)), fd;

	if (pfd < 0 && (errno == ENOSYS || errno == EPERM))
		return input_open(path, INPUT_NOFOLLOW, max, st);
	if (pfd < 0)
		return errno == ELOOP ? sbx_error(-ELOOP, "%s: reached through a symbolic link, "
						  "not followed", path)
				      : sbx_error_errno(-errno, "%s", path);
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(pfd);
		return sbx_error(-EINVAL, "%s: not a regular file", path);
	}
	/* opened through the descriptor looked at: a FIFO was never opened */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	close(pfd);
	if (fd < 0)
		return sbx_error_errno(-errno, "%s", path);
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return sbx_error(-EINVAL, "%s: not a regular file", path);
	}
	if ((uint64_t)st->st_size > max) {
		close(fd);
		return sbx_error(-EFBIG, "%s: %lld bytes, more than the %llu the build-id cache "
				 "takes", path, (long long)st->st_size, (unsigned long long)max);
	}
	return fd;
}

/*
 * A new file for the copy in d: unnamed (O_TMPFILE) where the file system
 * has them, so that nothing half-written can ever be seen or left; else a
 * random name of ours. *tmp gets the name ("" when unnamed).
 */
static int new_copy(int d, mode_t mode, char *tmp, size_t cap)
{
	int fd = openat(d, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);

	tmp[0] = 0;
	if (fd >= 0)
		return fd;
	for (int tries = 0; tries < 16; tries++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)getpid() << 20 ^ (uint64_t)tries;
		snprintf(tmp, cap, ".elf.%016llx.tmp", (unsigned long long)r);
		fd = openat(d, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		tmp[0] = 0;
	return fd < 0 ? -errno : fd;
}

/* The copy's build-id, read from our own descriptor: is it id? */
static bool copy_has_build_id(int fd, off_t size, const uint8_t *id, size_t idsize)
{
	uint8_t got[BUILDID_MAX];
	size_t n = 0;
	void *m;
	int err;

	if (size <= 0)
		return false;
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return false;
	err = buildid_read_mem(m, (size_t)size, got, sizeof(got), &n);
	munmap(m, (size_t)size);
	sbx_error_clear();
	return !err && n == idsize && !memcmp(got, id, n);
}

/* Give the copy (fd, or tmp in d) the name elf in d; 0, or 1 when one was there first. */
static int name_copy(int d, int fd, const char *tmp)
{
	char proc[64];

	if (tmp[0]) {
		/* another sbx may have named its copy first: both are whole and checked */
		if (renameat(d, tmp, d, "elf") < 0) {
			int e = -errno;

			unlinkat(d, tmp, 0);
			return e;
		}
		return 0;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, d, "elf", AT_SYMLINK_FOLLOW) < 0)
		return errno == EEXIST ? 1 : -errno;
	return 0;
}

/*
 * .build-id/HE/X… -> ../../PATH/HEX, as perf links it; a link there that
 * leads nowhere (its copy removed) is replaced.
 */
static int link_copy(int root, const char *path, const char *hex)
{
	char he[3] = { hex[0], hex[1], 0 }, target[2200], tmp[64];
	struct stat st;
	int l = enter(root, ".build-id"), link_dir = l >= 0 ? enter(l, he) : l, err = 0;

	if (l >= 0)
		close(l);
	if (link_dir < 0)
		return link_dir;
	snprintf(target, sizeof(target), "../..%s/%s", path, hex);
	if (symlinkat(target, link_dir, hex + 2) < 0) {
		char elf[64];

		snprintf(elf, sizeof(elf), "%s/elf", hex + 2);
		if (errno != EEXIST)
			err = -errno;
		else if (fstatat(link_dir, elf, &st, 0) < 0) {
			/* there, but leading to no copy: ours instead, replaced in one step */
			snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", hex + 2, (long)getpid());
			unlinkat(link_dir, tmp, 0);
			if (symlinkat(target, link_dir, tmp) < 0 ||
			    renameat(link_dir, tmp, link_dir, hex + 2) < 0) {
				err = -errno;
				unlinkat(link_dir, tmp, 0);
			}
		}
	}
	close(link_dir);
	return err;
}

int buildid_cache_add(const char *dir, const char *path, const uint8_t *id, size_t size)
{
	char hex[2 * BUILDID_MAX + 1], tmp[64] = "";
	struct stat st, had;
	int in = -1, root = -1, parent = -1, d = -1, out = -1, err;

	if (!size || size > BUILDID_MAX)
		return sbx_error(-EINVAL, "%s: no build-id to cache it by", path);
	if (!cacheable(path))
		return sbx_error(-EINVAL, "%s: not a path the build-id cache holds", path);
	buildid_hex(id, size, hex);

	/* the cache root may be a link of the user's (to a bigger disk); nothing below it */
	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) ||
	    (root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return sbx_error_errno(-errno, "the build-id cache %s", dir);
	parent = enter_path(root, path + 1);
	if (parent >= 0)
		d = enter(parent, hex);
	if (parent < 0 || d < 0) {
		err = sbx_error_errno(parent < 0 ? parent : d, "the build-id cache %s, for %s", dir,
				      path);
		goto out;
	}
	if (!fstatat(d, "elf", &had, AT_SYMLINK_NOFOLLOW)) {
		err = 0;	/* had it */
		goto link;
	}
	in = open_source(path, BUILDID_CACHE_MAX_FILE, &st);
	if (in < 0) {
		err = in;
		goto fail;
	}
	out = new_copy(d, st.st_mode & 0755, tmp, sizeof(tmp));
	if (out < 0) {
		err = sbx_error_errno(out, "the build-id cache %s, for %s", dir, path);
		goto fail;
	}
	err = copy_all(in, out, st.st_size);
	if (!err && fchmod(out, st.st_mode & 0755) < 0)
		err = -errno;
	if (err) {
		err = sbx_error_errno(err, "the build-id cache %s, for %s", dir, path);
		goto fail;
	}
	/* the copy, which no one else can change, is the build that was recorded */
	if (!copy_has_build_id(out, st.st_size, id, size)) {
		err = sbx_error(-ESTALE, "%s: its build-id is not %s now (rebuilt since?)", path,
				hex);
		goto fail;
	}
	err = name_copy(d, out, tmp);
	tmp[0] = 0;
	if (err < 0) {
		err = sbx_error_errno(err, "the build-id cache %s, for %s", dir, path);
		goto fail;
	}
	err = err ? 0 : 1;	/* another one's copy was named first: had it */
link:
	{
		int e = link_copy(root, path, hex);

		if (e < 0)
			err = sbx_error_errno(e, "the build-id cache %s, link of %s", dir, path);
	}
	goto out;
fail:
	if (tmp[0])
		unlinkat(d, tmp, 0);
	/* no empty folder of a build left for a file refused */
	if (d >= 0 && parent >= 0) {
		close(d);
		d = -1;
		unlinkat(parent, hex, AT_REMOVEDIR);
	}
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (d >= 0)
		close(d);
	if (parent >= 0)
		close(parent);
	if (root >= 0)
		close(root);
	return err;
}
