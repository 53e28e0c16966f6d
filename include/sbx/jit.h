/* SPDX-License-Identifier: MIT */
#ifndef SBX_JIT_H
#define SBX_JIT_H

/*
 * libsbx-jit: lets a JIT runtime describe the code it generates, so that a
 * profiler can name (and line-map, and unwind) samples in that code.
 *
 * The library writes a jitdump, the format `perf inject --jit` reads:
 * jit-<pid>.dump in $SBX_JIT_DIR, else in $JITDUMPDIR, else in a new
 * directory $HOME/.debug/jit/<program>-<YYYYMMDD>-XXXXXX/. While the dump is
 * open, its first page stays mapped PROT_READ|PROT_EXEC in the process, so
 * that a recorder (sbx record, perf record -k mono) sees the mapping in its
 * MMAP records and knows where the dump is. All timestamps are
 * CLOCK_MONOTONIC, so record with a monotonic clock (perf record -k mono).
 *
 * Also, sbx_jit_perf_map() writes the simpler /tmp/perf-<pid>.map format
 * (names only, no code bytes, no history of reused addresses).
 *
 * Thread safety: every function may be called from any thread; calls on one
 * handle are serialized by a mutex in the handle, and the records of one
 * sbx_jit_load() are never interleaved with other records. A handle must not
 * be used during or after its sbx_jit_close().
 *
 * Async-signal safety: none of these functions is async-signal-safe (they
 * take mutexes and allocate); do not call them from a signal handler.
 *
 * fork(): the library registers a pthread_atfork() handler so that a child
 * never inherits a mutex held by another thread. A handle inherited by a
 * child is not shared with the parent: on the first sbx_jit_path(),
 * sbx_jit_load*() or sbx_jit_move() call in the child, the child closes its
 * copy of the parent's file and marker and starts its own dump,
 * jit-<childpid>.dump, in the directory of the parent's dump, with a new
 * header and marker. Code indexes start again at 0 there and the parent's
 * earlier loads are not written again (a child that runs inherited code
 * must load it again to have it named in its own dump). sbx_jit_close() in
 * a child that has not started its own dump only releases the inherited
 * resources: it creates no file and writes nothing to the parent's dump.
 * The inherited records are never written to from the child.
 *
 * Errors are returned (NULL with errno, or a negative errno); the library
 * never prints, exits or aborts.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBX_JIT_VERSION_MAJOR 1
#define SBX_JIT_VERSION_MINOR 0

/* An open jitdump of this process. */
struct sbx_jit;

/* One line-table entry: the instruction at addr comes from file:line:column. */
struct sbx_jit_line {
	uint64_t addr;			/* absolute runtime address of the instruction */
	const char *file;		/* source file name, NUL-terminated, not NULL */
	uint32_t line;
	uint32_t column;		/* 0 when unknown */
};

/* A piece of generated code, for sbx_jit_load(). */
struct sbx_jit_code {
	const char *name;		/* symbol name, NUL-terminated */
	const void *addr;		/* where the code runs */
	size_t size;			/* bytes */
	const void *bytes;		/* the code bytes to record; NULL: read them at addr */
	const struct sbx_jit_line *lines; /* optional, nr_lines entries, addresses absolute */
	size_t nr_lines;
	const void *eh_frame;		/* optional .eh_frame bytes laid out for the image */
	size_t eh_frame_size;
	const void *eh_frame_hdr;	/* optional */
	size_t eh_frame_hdr_size;
	size_t unwind_mapped_size;	/* 0 unless the unwind data is mapped after the code */
};

/*
 * Create this process's dump (see above for where) and map its marker.
 * Returns a new handle, which the caller owns and releases with
 * sbx_jit_close(), or NULL with errno set (for instance EPERM when the
 * directory is on a noexec file system, as the marker mapping then fails).
 * Several handles may be open, but they would all write jit-<pid>.dump in
 * the same directory: open one per process.
 */
struct sbx_jit *sbx_jit_open(void);

/*
 * The path of the dump of j. The string is owned by j and stays valid (at
 * the same address) until sbx_jit_close(j). In a child after fork() the
 * call first starts the child's dump, and the string then names that one;
 * it is empty if the child's dump could not be created. Returns NULL for a
 * NULL j.
 */
const char *sbx_jit_path(const struct sbx_jit *j);

/*
 * Record that the code c->addr .. c->addr + c->size now holds the function
 * c->name. Writes, in this order and without other records in between, a
 * DEBUG_INFO record (when c->nr_lines), an UNWINDING_INFO record (when
 * c->eh_frame_size: the .eh_frame bytes then the .eh_frame_hdr bytes) and
 * the CODE_LOAD record with a copy of the code bytes (from c->bytes, or read
 * at c->addr when c->bytes is NULL; the kernel reads that memory, so an
 * unreadable range fails with -EFAULT rather than a crash).
 * c and everything it points to are only read during the call; the caller
 * keeps ownership. A size of 0 is allowed and recorded as is.
 *
 * On success *code_index (if code_index is not NULL) gets the index of the
 * load, unique in this dump and counting from 0; pass it to sbx_jit_move().
 * Returns 0, or -EINVAL (NULL j, c or c->name; a NULL pointer with a
 * non-zero count or size; a line without a file; .eh_frame_hdr without
 * .eh_frame), -E2BIG (a record would be larger than 4 GiB), -ENOMEM, or the
 * negative errno of a failed write (the partial record is then cut off the
 * file, so that the dump stays valid).
 */
int sbx_jit_load(struct sbx_jit *j, const struct sbx_jit_code *c, uint64_t *code_index);

/* sbx_jit_load() of a function with neither line table nor unwind data. */
int sbx_jit_load_simple(struct sbx_jit *j, const char *name, const void *addr, size_t size,
			uint64_t *code_index);

/*
 * Record that the code of load code_index, size bytes, moved from old_addr
 * to new_addr (writes a CODE_MOVE record; the code is not copied by the
 * library). Returns 0, -EINVAL for a NULL j, -ENOENT for an index never
 * returned by sbx_jit_load() on this dump, or the negative errno of a
 * failed write.
 */
int sbx_jit_move(struct sbx_jit *j, uint64_t code_index, const void *old_addr,
		 const void *new_addr, size_t size);

/*
 * Write the CLOSE record, unmap the marker, close the dump and free j (which
 * must not be used again, whatever the result). NULL is fine (returns 0).
 * Returns 0 or the negative errno of the first failure (writing CLOSE or
 * closing the file); the handle is freed in all cases.
 */
int sbx_jit_close(struct sbx_jit *j);

/*
 * Append the line "<addr> <size> <name>\n" (addr and size in hexadecimal
 * without 0x) to /tmp/perf-<pid>.map, creating it (mode 0644) when needed.
 * Each line is one write(2) to a file opened with O_APPEND, so threads and
 * processes may append concurrently. Newlines in name become spaces.
 * Needs no handle. Returns 0, -EINVAL for a NULL name, -ENOMEM, or the
 * negative errno of the failed open or write.
 */
int sbx_jit_perf_map(const void *addr, size_t size, const char *name);

#ifdef __cplusplus
}
#endif

#endif
