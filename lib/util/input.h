/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_INPUT_H
#define SBX_UTIL_INPUT_H

/*
 * Opening files that sbx reads but others made, which may sit in folders
 * others can write (/tmp/perf-PID.map, a JIT's jitdump, a DSO a recording
 * names): a FIFO or a device is never opened (the name is looked at with
 * O_PATH first, and only a regular file is then opened, through that
 * descriptor), files are bounded in size, and, with INPUT_NOFOLLOW, never
 * read through a symbolic link (systemd's and git's habit for files in
 * shared folders).
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum {
	INPUT_NOFOLLOW = 1,	/* the last component may not be a symbolic link */
};

/*
 * Open path for reading with flags (INPUT_*): a regular file of at most
 * max_size bytes (0: no bound). Returns the descriptor (blocking,
 * close-on-exec) and, when st is not NULL, its stat; or a negative errno
 * with a message: ELOOP "PATH: a symbolic link, not followed", EINVAL
 * "PATH: not a regular file (a FIFO)", EFBIG "PATH: N bytes, more than
 * the M that sbx reads", or open(2)'s own errno.
 */
int input_open(const char *path, unsigned flags, uint64_t max_size, struct stat *st);

/*
 * The whole of such a file in *buf (malloc'd, freed by the caller), its
 * size in *len. 0, or a negative errno with a message (input_open()'s, or
 * a read error).
 */
int input_read(const char *path, unsigned flags, uint64_t max_size, uint8_t **buf, size_t *len);

#endif
