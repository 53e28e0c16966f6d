/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_DWARF_LINES_H
#define SBX_SYMBOL_DWARF_LINES_H

/*
 * One CU's line-number program (.debug_line, DWARF 2 to 5, DWARF §6.2) run
 * into rows of what the profiles need: address, line, discriminator, end of
 * sequence. The rows come in libdw's order (dwarf_getsrclines()): by
 * address, an end of sequence before the other rows at its address, else
 * in program order, the last row marked an end. Discriminators are kept
 * whole (LLVM's encoding uses 32 bits; libdw before 0.190 refuses a CU with
 * one wider than 24, later ones cut it to 24).
 *
 * Why not libdw: for SQLite's 150,000 rows it kept 12 MB until dwarf_end(),
 * and 20 MB at the peak while reading (a list node a row); these are 16
 * bytes a row (and 16 more while an unsorted program is sorted).
 *
 * Some programs that libdw refuses are read: a column over 65535, an ISA
 * over 255, a file table that does not end where header_length says, a
 * DW_LNE_set_address of another size than the unit's addresses. Nothing of
 * what rows hold depends on those.
 */

#include <stddef.h>
#include <stdint.h>

struct dwarf_row {
	uint32_t line : 31;	/* 0: none (or negative) */
	uint32_t end : 1;	/* an end of sequence */
	uint32_t disc;		/* the discriminator */
};

/*
 * The rows of the program at offset off of the .debug_line section
 * sec[0..size): *addr and *rows (malloc'ed, nr of each; NULL with nr 0 when
 * the program has no row). Returns 0, -ENOMEM, or -EINVAL for a program
 * that is malformed or that these rows cannot hold (a VLIW program of
 * several operations per instruction): the caller may then ask libdw.
 */
int dwarf_lines_read(const uint8_t *sec, size_t size, uint64_t off, uint64_t **addr,
		     struct dwarf_row **rows, size_t *nr);

#endif
