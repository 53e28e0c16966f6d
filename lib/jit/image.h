/* SPDX-License-Identifier: MIT */
#ifndef SBX_JIT_IMAGE_H
#define SBX_JIT_IMAGE_H

/*
 * ELF images of jitted code: one file for many functions (perf inject writes
 * one .so per function; node makes thousands of them).
 *
 * The layout, shared with inject.h: an ET_DYN ELF for this machine whose
 * .text starts at file offset and address 0x80 (perf's GEN_ELF_TEXT_OFFSET)
 * and holds each function's bytes at its own 16-aligned place, in the order
 * given, never two at one place: a function's address in the image equals
 * its file offset. One PT_LOAD covers .text; .symtab has one STT_FUNC per
 * function; a GNU build-id note (SHA-1 of the code, the names and a salt
 * naming the dump, so two runs' images never share a build-id); and, when
 * any function has lines, DWARF 3 .debug_line, .debug_info (a unit with
 * its range and one subprogram per function: GNU and LLVM tools both find
 * them) and .debug_abbrev.
 *
 * A mapping [start, start + size) of a process's code at file offset
 * `offset` of the image then resolves to exactly that function, so moved
 * code and an address range reused by another function later are each
 * their own MMAP2 of the one file.
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "jit/jitdump.h"

#define JIT_IMAGE_TEXT_OFFSET	0x80
#define JIT_IMAGE_BUILD_ID_SIZE	20

struct jit_image_func {
	const char *name;
	const uint8_t *bytes;
	uint64_t size;
	uint64_t code_addr;	/* the runtime address its lines are given at */
	const struct jitdump_line *lines;	/* sorted by addr; may be NULL */
	size_t nr_lines;
	uint64_t offset;	/* out: its file offset and address in the image */
};

/*
 * Symbols only (from a perf map: no code bytes): each funcs[i].offset is
 * given (≥ JIT_IMAGE_TEXT_OFFSET), bytes are NULL, functions may overlap,
 * and .text is zeros up to the end of the last one.
 */
#define JIT_IMAGE_SYMBOLS_ONLY	1u

/*
 * Write the image of nr functions to path, which it replaces as a name
 * (util/output's output_open_name(): complete or not there, and never
 * through a link or a FIFO that holds the name). Sets each funcs[i].offset
 * (unless JIT_IMAGE_SYMBOLS_ONLY) and build_id, and *st (may be NULL) to
 * the new file's stat. salt (salt_len bytes) goes into the build-id.
 * Returns 0 or a negative errno with a message: -EISDIR when a folder
 * holds the name (pick another).
 */
int jit_image_write(const char *path, struct jit_image_func *funcs, size_t nr, unsigned flags,
		    const void *salt, size_t salt_len, uint8_t build_id[JIT_IMAGE_BUILD_ID_SIZE],
		    struct stat *st);

#endif
