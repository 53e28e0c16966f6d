/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_OUTPUT_H
#define SBX_UTIL_OUTPUT_H

/*
 * Output files that are complete or not there at all: the one way sbx
 * writes a file (perf.data, benchmark results, object dumps, profiles,
 * JIT images), as git's lock files are git's.
 *
 *	struct output *o;
 *	if (output_open(path, 0644, &o)) …the message is in sbx_error_msg()…
 *	…write(output_fd(o), …) or fprintf(output_stream(o), …)…
 *	err = output_commit(o);		// or output_abort(o) on any failure
 *
 * A regular file (or a name that does not exist yet) is written to a
 * temporary file in the target's folder: an unnamed one (O_TMPFILE) where
 * the file system allows, so that nothing is left behind whatever ends
 * the process, even SIGKILL; else a named one, ".NAME.sbx-tmp-PID-XXXXXX",
 * which the next output_open() of that target removes once process PID is
 * gone (SBX_OUTPUT_NAMED=1 in the environment takes this way everywhere,
 * for the tests of it). output_commit() flushes, syncs and puts the file
 * in place in one rename; until then an existing file of that name is
 * untouched, and on any failure it stays untouched. A symbolic link to a
 * regular file stays a link: the file it names is replaced.
 *
 * "-" is standard output, and so is any name of the file that standard
 * output is (/dev/stdout, /proc/self/fd/1); a FIFO, a character device
 * (/dev/null) or a socket is written directly too, never renamed over:
 * output_is_stream() is true, and the caller must not seek (a perf.data
 * then goes out in pipe mode).
 *
 * An output is used by one thread.
 */

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct output;

/*
 * Start writing path with the given permissions (a new file gets exactly
 * mode, whatever the umask, as perf's files do). Returns 0 with *out set, or
 * a negative errno with a message: an empty name, a folder, a folder that
 * does not exist or may not be written, a stream that cannot be opened.
 */
int output_open(const char *path, mode_t mode, struct output **out);

/*
 * Like output_open(), for a file in a folder others may write (a JIT's
 * folder): whatever holds the name, a symbolic link, a FIFO or a file, is
 * never followed or opened; at output_commit() the new file takes the name
 * (rename(2) replaces the entry, so a link there is replaced, not the file
 * it names). -EISDIR when a folder holds the name. Never a stream.
 */
int output_open_name(const char *path, mode_t mode, struct output **out);

/* The descriptor to write to (1 for "-"). */
int output_fd(const struct output *o);

/*
 * A stdio stream over output_fd(), made on first use and flushed by
 * output_commit(); NULL with errno when it cannot be made. Do not mix it
 * with write(2) on the descriptor without fflush().
 */
FILE *output_stream(struct output *o);

/*
 * At output_commit(), keep the file being replaced (a regular file that is
 * not empty) as TARGET.old (beside the file a link points to), as perf
 * record keeps perf.data.old; an older TARGET.old goes only then. *kept
 * gets that path (free it) when it was kept, else stays NULL: on a failed
 * commit, or where the file system takes no hard link. Not for streams.
 */
void output_keep_old(struct output *o, char **kept);

/* True when the output is written directly (stdout, FIFO, device, socket): no seeking. */
bool output_is_stream(const struct output *o);

/* The name given to output_open() ("-" for stdout), for messages. */
const char *output_path(const struct output *o);

/*
 * Finish: flush the stream, sync, and put the file in place. Frees o in
 * every case. Returns 0, or a negative errno with a message (a full disk,
 * a write error seen now); then the temporary file is gone and an older
 * file of that name is as it was.
 */
int output_commit(struct output *o);

/* Give up: the temporary file is removed, a stream is closed. Frees o; NULL is fine. */
void output_abort(struct output *o);

#endif
