/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_BINARY_H
#define SBX_SYMBOL_BINARY_H

/*
 * A binary opened for making a profile of it: its loadable segments (file
 * offset ↔ virtual address), its build-id, its symbols, its DWARF (from the
 * file itself or from a separate debug file) and its code bytes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbol/buildid.h"
#include "symbol/dso.h"
#include "symbol/dwarf.h"
#include "symbol/symtab.h"

struct binary_text {		/* an executable section */
	uint64_t vaddr, size;
	const uint8_t *data;	/* in the mapped file */
};

struct binary {
	char *path;
	bool executable;		/* ET_EXEC, or ET_DYN with PT_INTERP (a PIE) */
	uint8_t build_id[BUILDID_MAX];
	size_t build_id_size;		/* 0: none */
	uint64_t exec_base;		/* page-aligned vaddr of the first executable PT_LOAD */
	struct dso_load *loads;		/* PT_LOAD segments */
	size_t nr_loads;
	struct binary_text *texts;	/* sorted by vaddr */
	size_t nr_texts;
	/*
	 * Where code starts, as a disassembler walks it (llvm-profgen's
	 * way): every .symtab symbol of an executable section but .plt
	 * (functions, labels, section symbols), sorted, distinct; each runs
	 * to the next or to its section's end (code_ends[i]).
	 */
	uint64_t *code_starts, *code_ends;
	size_t nr_code_starts;
	struct symtab *symtab;		/* ELF symbols; NULL when none */
	struct dwarf_info *dwarf;	/* NULL when there is no DWARF with functions */
	bool lines_only;		/* DWARF of line tables and no function (dwarf
					   NULL): clang -gline-tables-only without
					   -fdebug-info-for-profiling, where nothing was inlined */
	char *debug_file;		/* where the DWARF came from, when not path */
	int fd;
	void *elf;			/* Elf * */
};

/*
 * Open the ELF file at path. debug_path (may be NULL) names a separate file
 * with its DWARF; without it, a debug file is looked for by build-id in
 * $HOME/.debug/.build-id/xx/yyyy.debug and /usr/lib/debug/.build-id/ (Debian's
 * -dbgsym packages) when path itself has no DWARF. Returns 0 with *out set
 * (free with binary_free()), or a negative errno with a message.
 */
int binary_open(const char *path, const char *debug_path, struct binary **out);
void binary_free(struct binary *b);

/* Read ahead b's DWARF until *stop is set (dwarf_info_preload); none: nothing. */
void binary_preload(struct binary *b, const atomic_bool *stop);

/* The vaddr of a file offset, through the PT_LOAD segments; UINT64_MAX when none holds it. */
uint64_t binary_offset_to_vaddr(const struct binary *b, uint64_t offset);

/*
 * The code at vaddr: a pointer into an executable section and the bytes left
 * in it (*avail), or NULL when vaddr is in none.
 */
const uint8_t *binary_code(const struct binary *b, uint64_t vaddr, size_t *avail);

#endif
