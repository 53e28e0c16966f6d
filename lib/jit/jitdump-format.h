/* SPDX-License-Identifier: MIT */
#ifndef SBX_JIT_JITDUMP_FORMAT_H
#define SBX_JIT_JITDUMP_FORMAT_H

/*
 * The jitdump format, defined once: what libsbx-jit (libsbx-jit/jit.c) writes and
 * what lib/jit/jitdump.c reads (Linux tools/perf/Documentation/
 * jitdump-specification.txt, perf's util/jitdump.h). Header-only and
 * libc-only: libsbx-jit links nothing else.
 *
 * A dump is a header, then records, each a prefix (id, total size,
 * timestamp) and a body: CODE_LOAD (then the name, NUL-terminated, and the
 * code bytes), CODE_MOVE, DEBUG_INFO (then nr_entry entries, each followed
 * by its file name), UNWINDING_INFO (then .eh_frame, .eh_frame_hdr and
 * padding to 8), CLOSE. Fields are in the writer's byte order; a reader
 * tells the order by the magic.
 */

#include <stdint.h>

#define JITDUMP_MAGIC		0x4A695444u	/* "JiTD" read as a little-endian u32 */
#define JITDUMP_MAGIC_SWAPPED	0x4454694Au	/* the same, written in the other byte order */
#define JITDUMP_VERSION		1
#define JITDUMP_FLAGS_ARCH_TIMESTAMP	1ull	/* timestamps are the CPU's (TSC), not CLOCK_MONOTONIC */

enum jitdump_record_id {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
	JIT_CODE_UNWINDING_INFO = 4,
};

struct jitdump_header {
	uint32_t magic;
	uint32_t version;
	uint32_t total_size;	/* of the header; a reader skips what it does not know */
	uint32_t elf_mach;	/* EM_* of the code */
	uint32_t pad1;
	uint32_t pid;
	uint64_t timestamp;
	uint64_t flags;
};

struct jitdump_prefix {
	uint32_t id;		/* enum jitdump_record_id */
	uint32_t total_size;	/* of the record, this prefix included */
	uint64_t timestamp;
};

struct jitdump_code_load {
	struct jitdump_prefix p;
	uint32_t pid;
	uint32_t tid;
	uint64_t vma;
	uint64_t code_addr;
	uint64_t code_size;
	uint64_t code_index;
	/* then the name, NUL-terminated, and code_size bytes of code */
};

struct jitdump_code_move {
	struct jitdump_prefix p;
	uint32_t pid;
	uint32_t tid;
	uint64_t vma;
	uint64_t old_code_addr;
	uint64_t new_code_addr;
	uint64_t code_size;
	uint64_t code_index;
};

struct jitdump_debug_info {
	struct jitdump_prefix p;
	uint64_t code_addr;
	uint64_t nr_entry;
	/* then nr_entry entries */
};

struct jitdump_debug_entry {
	uint64_t addr;
	int32_t lineno;
	int32_t discrim;
	/* then the file name, NUL-terminated */
};

struct jitdump_unwinding_info {
	struct jitdump_prefix p;
	uint64_t unwinding_size;	/* .eh_frame and .eh_frame_hdr */
	uint64_t eh_frame_hdr_size;
	uint64_t mapped_size;
	/* then the unwind data, padded to 8 */
};

_Static_assert(sizeof(struct jitdump_header) == 40, "jitdump header layout");
_Static_assert(sizeof(struct jitdump_prefix) == 16, "jitdump prefix layout");
_Static_assert(sizeof(struct jitdump_code_load) == 56, "jitdump CODE_LOAD layout");
_Static_assert(sizeof(struct jitdump_code_move) == 64, "jitdump CODE_MOVE layout");
_Static_assert(sizeof(struct jitdump_debug_info) == 32, "jitdump DEBUG_INFO layout");
_Static_assert(sizeof(struct jitdump_debug_entry) == 16, "jitdump debug entry layout");
_Static_assert(sizeof(struct jitdump_unwinding_info) == 40, "jitdump UNWINDING_INFO layout");

#endif
