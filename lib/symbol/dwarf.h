/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_DWARF_H
#define SBX_SYMBOL_DWARF_H

/*
 * DWARF of one binary through libdw: the functions with code (their
 * address ranges, linkage names and declaration lines) and, for any
 * address, its inline frame stack with the line and discriminator of each
 * frame, as llvm-symbolizer --inlines gives it. What a sample profile is
 * keyed by: (line - the function's DW_AT_decl_line, discriminator), in the
 * function of each frame.
 *
 * Addresses are the binary's own virtual addresses (ELF vaddr), not those
 * of a process. Strings are owned by the dwarf_info and live until
 * dwarf_info_free().
 */

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One frame of an inline stack. */
struct dwarf_frame {
	const char *func;	/* linkage (mangled) name, else DW_AT_name; never NULL */
	uint32_t func_line;	/* DW_AT_decl_line of the function; 0 when unknown */
	uint32_t line;		/* the innermost frame: the address's line (0: none);
				   outer frames: the line of the call that was inlined */
	uint32_t discriminator;	/* raw DWARF discriminator of that line or call */
};

/* A function with code: a concrete (out-of-line) instance. */
struct dwarf_func {
	uint64_t start, end;	/* [start, end): one range of the function */
	const char *name;	/* linkage name, else DW_AT_name */
	uint32_t decl_line;
	uint64_t entry;		/* the function's entry (low_pc, or the first range's start) */
	uint64_t die;		/* offset of its DIE in .debug_info */
};

struct dwarf_info;

/*
 * Open the DWARF of the ELF file at path; debug_path (may be NULL) is a
 * separate file with the debug sections (--debug-binary, a .debug file
 * found by build-id). Returns NULL with errno and a message: ENOENT when
 * neither file has DWARF (.debug_info), another errno when a file cannot be
 * read.
 */
struct dwarf_info *dwarf_info_open(const char *path, const char *debug_path);
void dwarf_info_free(struct dwarf_info *d);

/*
 * Read ahead what lookups will need: every CU's line table, then every
 * function's inline tree, until *stop is set (checked between two of them).
 * For a thread of its own while the caller does other work (reading the
 * samples): d is not to be used by another thread until this returns.
 */
void dwarf_info_preload(struct dwarf_info *d, const atomic_bool *stop);

/* The file the DWARF was read from. */
const char *dwarf_info_file(const struct dwarf_info *d);

/*
 * The functions with code, sorted by start (a function with several ranges
 * appears once per range). Valid until dwarf_info_free().
 */
size_t dwarf_info_functions(struct dwarf_info *d, const struct dwarf_func **funcs);

/* The function range that holds addr, or NULL. */
const struct dwarf_func *dwarf_info_function_at(struct dwarf_info *d, uint64_t addr);

/*
 * The source line of addr, as addr2line gives it (the innermost, inlined
 * code's own): *file the path of its file (owned by d), *line its number
 * (0 when the row has none). 1 when a unit covers addr but no row of its
 * line table holds it (*file "", *line 0: what addr2line says then);
 * -ENOENT when no unit covers addr.
 */
int dwarf_info_line(struct dwarf_info *d, uint64_t addr, const char **file, int *line);

/*
 * The inline stack at addr, outermost frame first (the function that was
 * compiled out of line), innermost last, into frames (room for max);
 * returns the number of frames (at most max: a deeper stack loses its
 * innermost frames), 0 when no function holds addr. An address without a
 * line (or at line 0, code the compiler made) has line 0 in its innermost
 * frame, as llvm-symbolizer says it.
 */
size_t dwarf_info_frames(struct dwarf_info *d, uint64_t addr, struct dwarf_frame *frames,
			 size_t max);

/*
 * dwarf_info_frames(), and in span[0], span[1] the addresses [lo, hi)
 * around addr where the frames are the same: one line-table row, one set
 * of inlined subroutines, one function. For a reader of sorted addresses:
 * the next ones below span[1] need no lookup. When 0 is returned the span
 * is [addr, addr + 1).
 */
size_t dwarf_info_frames_span(struct dwarf_info *d, uint64_t addr, struct dwarf_frame *frames,
			      size_t max, uint64_t span[2]);

#endif
