// SPDX-License-Identifier: MIT
/* perf's build-id cache, written (see buildid-cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

	if (asprintf(&p, "%s/.debug", home && *home ? home : "/") < 0)
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

/* Copy the whole of in (size bytes) to out, both from their start. */
static int copy_all(int in, int out, off_t size)
{
	char buf[1 << 14];
	off_t done = 0;
	bool by_hand = false;	/* copy_file_range(2) cannot between these two */

	while (done < size) {
		ssize_t n = -1;

		if (!by_hand) {
			loff_t a = done, b = done;

			n = copy_file_range(in, &a, out, &b, (size_t)(size - done), 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
				      errno == EOPNOTSUPP))
				by_hand = true;
		}
		if (by_hand) {
			n = pread(in, buf, sizeof(buf), done);
			if (n > 0 && pwrite(out, buf, (size_t)n, done) != n)
				return errno ? -errno : -EIO;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;	/* the file shrank under us */
		done += n;
	}
	return 0;
}

/* Whether the open file in has the build-id id. */
static bool has_build_id(int in, off_t size, const uint8_t *id, size_t idsize)
{
	uint8_t got[BUILDID_MAX];
	size_t n = 0;
	void *m;
	int err;

	if (size <= 0)
		return false;
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, in, 0);
	if (m == MAP_FAILED)
		return false;
	err = buildid_read_mem(m, (size_t)size, got, sizeof(got), &n);
	munmap(m, (size_t)size);
	sbx_error_clear();
	return !err && n == idsize && !memcmp(got, id, n);
}

int buildid_cache_add(const char *dir, const char *path, const uint8_t *id, size_t size)
{
	char hex[2 * BUILDID_MAX + 1], tmp[64], target[2200];
	struct stat st;
	int in = -1, root = -1, d = -1, link_dir = -1, out = -1, err;

	if (!size || size > BUILDID_MAX)
		return sbx_error(-EINVAL, "%s: no build-id to cache it by", path);
	if (!cacheable(path))
		return sbx_error(-EINVAL, "%s: not a path the build-id cache holds", path);
	buildid_hex(id, size, hex);

	if ((mkdir(dir, 0755) < 0 && errno != EEXIST) ||
	    (root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return sbx_error_errno(-errno, "the build-id cache %s", dir);
	d = enter_path(root, path + 1);
	if (d >= 0) {
		int h = enter(d, hex);

		close(d);
		d = h;
	}
	if (d < 0) {
		err = sbx_error_errno(d, "the build-id cache %s, for %s", dir, path);
		goto out;
	}
	if (!fstatat(d, "elf", &st, AT_SYMLINK_NOFOLLOW)) {
		err = 0;	/* had it */
		goto link;
	}

	in = input_open(path, INPUT_NOFOLLOW, BUILDID_CACHE_MAX_FILE, &st);
	if (in < 0) {
		err = in;
		goto out;
	}
	if (!has_build_id(in, st.st_size, id, size)) {
		err = sbx_error(-ESTALE, "%s: its build-id is not %s now (rebuilt since?)", path,
				hex);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), ".elf.%ld.tmp", (long)getpid());
	unlinkat(d, tmp, 0);
	out = openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     st.st_mode & 0755);
	if (out < 0) {
		err = sbx_error_errno(-errno, "the build-id cache %s, for %s", dir, path);
		goto out;
	}
	err = copy_all(in, out, st.st_size);
	if (!err && fchmod(out, st.st_mode & 0755) < 0)
		err = -errno;
	if (close(out) < 0 && !err)
		err = -errno;
	out = -1;
	if (!err && renameat(d, tmp, d, "elf") < 0)
		err = -errno;
	if (err) {
		unlinkat(d, tmp, 0);
		err = sbx_error_errno(err, "the build-id cache %s, for %s", dir, path);
		goto out;
	}
	err = 1;
link:
	/* .build-id/HE/X… -> ../../PATH/HEX, as perf links it */
	{
		char he[3] = { hex[0], hex[1], 0 };
		int l = enter(root, ".build-id");

		link_dir = l >= 0 ? enter(l, he) : l;
		if (l >= 0)
			close(l);
		snprintf(target, sizeof(target), "../..%s/%s", path, hex);
		if (link_dir < 0 ||
		    (symlinkat(target, link_dir, hex + 2) < 0 && errno != EEXIST)) {
			int e = link_dir < 0 ? link_dir : -errno;

			err = sbx_error_errno(e, "the build-id cache %s, link of %s", dir, path);
		}
	}
out:
	if (in >= 0)
		close(in);
	if (d >= 0)
		close(d);
	if (link_dir >= 0)
		close(link_dir);
	if (root >= 0)
		close(root);
	return err;
}
