// SPDX-License-Identifier: MIT
/*
 * dwarf-rows FILE...: sbx's line-program reader (lib/symbol/dwarf-lines)
 * judged by libdw, CU by CU: every CU whose lines libdw reads must give the
 * same rows (address, line, discriminator, end of sequence) in the same
 * order from dwarf_lines_read(). Prints per file
 *
 *	FILE: CUS cus, ROWS rows, SEQS sequences, DISCS discriminators, same
 *
 * or the first difference, and exits 1 on any difference or when a file cannot be
 * read.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbol/dwarf-lines.h"

static const uint8_t *debug_line(Elf *elf, size_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(name, ".debug_line") && (data = elf_getdata(scn, NULL))) {
			*size = data->d_size;
			return data->d_buf;
		}
	}
	return NULL;
}

/* Does libdw give the rows that sbx's reader gives for cu? */
static bool same_rows(const char *file, Dwarf_Die *cu, const uint8_t *sec, size_t size,
		      size_t *rows, size_t *seqs, size_t *discs)
{
	Dwarf_Attribute attr;
	Dwarf_Word stmt;
	Dwarf_Lines *lines;
	size_t n, nr;
	uint64_t *addr;
	struct dwarf_row *row;
	bool same = true;
	int err;

	if (dwarf_getsrclines(cu, &lines, &n) || !dwarf_attr(cu, DW_AT_stmt_list, &attr) ||
	    dwarf_formudata(&attr, &stmt))
		return true;	/* libdw reads no lines: sbx asks libdw then */
	err = dwarf_lines_read(sec, size, stmt, &addr, &row, &nr);
	if (err) {
		printf("%s: CU at %#" PRIx64 ": sbx's reader refused the program at %#" PRIx64
		       " (%s); libdw read %zu rows\n", file, (uint64_t)dwarf_dieoffset(cu),
		       (uint64_t)stmt, strerror(-err), n);
		return false;
	}
	if (nr != n) {
		printf("%s: CU at %#" PRIx64 ": %zu rows, libdw %zu\n", file,
		       (uint64_t)dwarf_dieoffset(cu), nr, n);
		same = false;
	}
	for (size_t i = 0; same && i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a = 0;
		unsigned disc = 0;
		bool end = false;
		int line = 0;

		dwarf_lineaddr(l, &a);
		if (dwarf_lineno(l, &line) || line < 0)
			line = 0;
		dwarf_linediscriminator(l, &disc);
		dwarf_lineendsequence(l, &end);
		*seqs += end;
		*discs += disc != 0;
		if (a != addr[i] || (unsigned)line != row[i].line || disc != row[i].disc ||
		    end != row[i].end) {
			printf("%s: CU at %#" PRIx64 ", row %zu: sbx %#" PRIx64 " line %u disc %u%s, "
			       "libdw %#" PRIx64 " line %d disc %u%s\n", file,
			       (uint64_t)dwarf_dieoffset(cu), i, addr[i], (unsigned)row[i].line,
			       row[i].disc, row[i].end ? " end" : "", (uint64_t)a, line, disc,
			       end ? " end" : "");
			same = false;
		}
	}
	*rows += nr;
	free(addr);
	free(row);
	return same;
}

static int judge(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC), ret = 0;
	Elf *elf;
	Dwarf *dbg;
	Dwarf_Off off = 0, next;
	size_t hsize, cus = 0, rows = 0, seqs = 0, discs = 0, size = 0;
	const uint8_t *sec;

	if (fd < 0) {
		printf("%s: %s\n", file, strerror(errno));
		return 1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* after dwarf_begin_elf(), which decompresses the debug sections in place */
	dbg = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	sec = dbg ? debug_line(elf, &size) : NULL;
	if (!sec) {
		printf("%s: no DWARF line table\n", file);
		ret = 1;
	}
	while (sec && dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dbg, off + hsize, &cu)) {
			if (!same_rows(file, &cu, sec, size, &rows, &seqs, &discs))
				ret = 1;
			cus++;
		}
		off = next;
	}
	if (!ret)
		printf("%s: %zu cus, %zu rows, %zu sequences, %zu discriminators, same\n", file, cus,
		       rows, seqs, discs);
	if (dbg)
		dwarf_end(dbg);
	elf_end(elf);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: dwarf-rows FILE...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	for (int i = 1; i < argc; i++)
		ret |= judge(argv[i]);
	return ret;
}
