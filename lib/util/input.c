// SPDX-License-Identifier: MIT
/* Files others made, opened with care (see input.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/error.h"
#include "util/input.h"

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a folder" : "not a file";
}

int input_open(const char *path, unsigned flags, uint64_t max_size, struct stat *st)
{
	struct stat s;
	char proc[64];
	int pfd, fd, err;

	/*
	 * Looked at first without being opened (O_PATH): opening a device can
	 * do something (a tape rewinds, a watchdog arms) and a FIFO blocks;
	 * only a regular file is then opened, through the descriptor, so the
	 * file read is the one looked at
	 */
	pfd = open(path, O_PATH | O_CLOEXEC | (flags & INPUT_NOFOLLOW ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return sbx_error_errno(-errno, "%s", path);
	if (fstat(pfd, &s) < 0) {
		err = sbx_error_errno(-errno, "%s", path);
		close(pfd);
		return err;
	}
	if (S_ISLNK(s.st_mode)) {
		close(pfd);
		return sbx_error(-ELOOP, "%s: a symbolic link, not followed", path);
	}
	if (!S_ISREG(s.st_mode)) {
		close(pfd);
		return sbx_error(-EINVAL, "%s: not a regular file (%s)", path, file_kind(s.st_mode));
	}
	if (max_size && (uint64_t)s.st_size > max_size) {
		close(pfd);
		return sbx_error(-EFBIG, "%s: %" PRIu64 " bytes, more than the %" PRIu64 " that sbx "
				 "reads", path, (uint64_t)s.st_size, max_size);
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)	/* no /proc: by name, not blocking, checked again */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
			  (flags & INPUT_NOFOLLOW ? O_NOFOLLOW : 0));
	err = fd < 0 ? -errno : 0;
	close(pfd);
	if (err)
		return sbx_error_errno(err, "%s", path);
	if (fstat(fd, &s) < 0 || !S_ISREG(s.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		close(fd);
		return sbx_error(-EINVAL, "%s: not a regular file", path);
	}
	if (st)
		*st = s;
	return fd;
}

int input_read(const char *path, unsigned flags, uint64_t max_size, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *b = NULL;
	size_t n = 0, cap;
	int fd = input_open(path, flags, max_size, &st), err = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	/* the size at open, plus what a writer may still append, within the bound */
	cap = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t r;

		if (n == cap || !b) {
			size_t ncap = b ? cap * 2 : cap;
			uint8_t *nb;

			if (max_size && ncap > max_size + 1)
				ncap = (size_t)max_size + 1;
			if (b && ncap <= cap) {
				err = sbx_error(-EFBIG, "%s: grew past the %" PRIu64 " bytes that sbx "
						"reads", path, max_size);
				break;
			}
			nb = realloc(b, ncap);
			if (!nb) {
				err = sbx_error(-ENOMEM, "out of memory");
				break;
			}
			b = nb;
			cap = ncap;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = sbx_error_errno(-errno, "%s", path);
			break;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	*len = n;
	return 0;
}
