// SPDX-License-Identifier: MIT
/* Files others made, opened with care (see input.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
		  (flags & INPUT_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0 && errno == ELOOP && (flags & INPUT_NOFOLLOW))
		return sbx_error(-ELOOP, "%s: a symbolic link, not followed", path);
	if (fd < 0)
		return sbx_error_errno(-errno, "%s", path);
	if (fstat(fd, &s) < 0) {
		err = sbx_error_errno(-errno, "%s", path);
		goto fail;
	}
	if (!S_ISREG(s.st_mode)) {
		err = sbx_error(-EINVAL, "%s: not a regular file (%s)", path, file_kind(s.st_mode));
		goto fail;
	}
	if (max_size && (uint64_t)s.st_size > max_size) {
		err = sbx_error(-EFBIG, "%s: %" PRIu64 " bytes, more than the %" PRIu64 " that sbx "
				"reads", path, (uint64_t)s.st_size, max_size);
		goto fail;
	}
	/* a regular file: reads block as they should */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		err = sbx_error_errno(-errno, "%s", path);
		goto fail;
	}
	if (st)
		*st = s;
	return fd;
fail:
	close(fd);
	return err;
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
