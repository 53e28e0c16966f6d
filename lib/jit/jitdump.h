/* SPDX-License-Identifier: MIT */
#ifndef SBX_JIT_JITDUMP_H
#define SBX_JIT_JITDUMP_H

/*
 * The jitdump format (Linux tools/perf/Documentation/jitdump-specification.txt,
 * perf's util/jitdump.h) and a tolerant reader of it.
 *
 * A jitdump is what a JIT runtime writes about the code it emits: a 40-byte
 * header (magic "JiTD", version, pid, flags), then records, each a 16-byte
 * prefix (id, total size, timestamp) and a body: CODE_LOAD (name, address,
 * size, the code bytes), CODE_MOVE, DEBUG_INFO (address → file:line),
 * UNWINDING_INFO (.eh_frame and .eh_frame_hdr), CLOSE.
 *
 * Where perf's reader refuses, this one warns and goes on: a dump of the
 * other byte order is swapped; unknown or garbage header flags (LLVM 19
 * leaves them uninitialized) are reported and ignored but for the
 * ARCH_TIMESTAMP bit, which the injector checks against the recording's
 * clock; a longer header is skipped; unknown record ids are skipped; a
 * record that is truncated or corrupt ends the dump with a warning naming
 * its offset, and what came before it is kept. DEBUG_INFO is paired with
 * the CODE_LOAD at its code address (before or after it, as LLVM and V8
 * write them), UNWINDING_INFO with the next CODE_LOAD; line addresses
 * skewed by +0x40 (V8 and LLVM compensating an old perf bug) are detected
 * per dump and corrected.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/jitdump-format.h"

#define JITDUMP_HEADER_SIZE	((unsigned)sizeof(struct jitdump_header))
/* the largest dump read (a long V8 run with lines writes hundreds of MB) */
#define JITDUMP_MAX_SIZE	(2ull << 30)

/* One line-table entry: the instruction at addr (absolute) is file:line (column). */
struct jitdump_line {
	uint64_t addr;
	const char *file;	/* points into the dump */
	uint32_t line, column;
};

/* A CODE_LOAD or a CODE_MOVE, in the order of the file. */
struct jitdump_code {
	bool move;		/* a CODE_MOVE of load `load` */
	uint64_t time;		/* the record's timestamp, as written */
	uint32_t pid, tid;
	uint64_t addr, size;	/* where the code is from time on */
	uint64_t index;		/* code_index */
	size_t load;		/* a move: the index in codes[] of the load it moves */
	/* loads only: */
	const char *name;	/* NUL-terminated, in the dump */
	const uint8_t *bytes;	/* size bytes, in the dump */
	struct jitdump_line *lines;	/* owned; sorted by addr */
	size_t nr_lines;
	const uint8_t *eh_frame;	/* in the dump; NULL when none */
	size_t eh_frame_size;
	const uint8_t *eh_frame_hdr;
	size_t eh_frame_hdr_size;
};

struct jitdump {
	char *path;		/* as opened (owned) */
	bool swapped;		/* written on a machine of the other byte order */
	uint32_t version, elf_mach, pid;
	uint64_t timestamp;	/* the header's */
	uint64_t flags;
	uint64_t flags_unknown;	/* flag bits other than ARCH_TIMESTAMP */
	struct jitdump_code *codes;
	size_t nr_codes;
	size_t nr_loads, nr_moves, nr_debug, nr_unwind;
	size_t nr_unknown;	/* records of unknown ids skipped */
	bool closed;		/* a CLOSE record was seen */
	bool line_skew;		/* line addresses were +0x40 and were corrected */
	char **warnings;	/* owned, one line each, without "warning:" */
	size_t nr_warnings;
	uint8_t *buf;		/* the file's bytes (swapped to native), owned */
	size_t len;
};

/*
 * Read the jitdump at path. Returns 0 with *out set (free with
 * jitdump_free()), possibly with warnings in (*out)->warnings; or a
 * negative errno with a message: the file cannot be read, is a symbolic
 * link, is not a regular file (a FIFO), is larger than JITDUMP_MAX_SIZE,
 * is shorter than a header, or has the wrong magic.
 */
int jitdump_open(const char *path, struct jitdump **out);

/* The same on len bytes in memory (copied); name is for messages. */
int jitdump_parse(const void *buf, size_t len, const char *name, struct jitdump **out);

void jitdump_free(struct jitdump *d);

/*
 * The pid in a jitdump's file name ("…/jit-PID.dump", as perf's
 * jit_detect() requires): 1 with *pid set, or 0 when the name is not one.
 */
int jitdump_name_pid(const char *path, uint32_t *pid);

#endif
