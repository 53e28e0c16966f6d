// SPDX-License-Identifier: MIT
/*
 * lib/symbol/dwarf on a real binary with inlining: this test's own
 * executable (built -O2 -g). The spans that dwarf_info_frames_span() gives
 * must be honest: every address inside one has the frames of the address
 * the span was asked for, and the spans tile each function. And the
 * line-program reader on a program made by hand (tests/51-dwarf-lines.bats
 * judges it by libdw on what compilers write).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "symbol/dwarf-lines.h"
#include "symbol/dwarf.h"

#define MAX	64

static bool same_frames(const struct dwarf_frame *a, size_t na, const struct dwarf_frame *b,
			size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].func != b[i].func || a[i].func_line != b[i].func_line ||
		    a[i].line != b[i].line || a[i].discriminator != b[i].discriminator)
			return false;
	return true;
}

static void test_spans_are_honest(void)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct dwarf_info *d;
	const struct dwarf_func *funcs;
	struct dwarf_frame ref[MAX], got[MAX];
	uint64_t addrs = 0, lookups = 0, bad = 0, inlined = 0;
	size_t nf;

	CHECK(len > 0);
	if (len <= 0)
		return;
	self[len] = 0;
	d = dwarf_info_open(self, NULL);
	CHECK(d != NULL);
	if (!d)
		return;
	nf = dwarf_info_functions(d, &funcs);
	CHECK(nf > 20);	/* dwarf.o, hashmap.o, … and this file, linked in */
	for (size_t i = 0; i < nf; i++) {
		uint64_t span[2] = { 1, 0 };
		size_t nref = 0;

		for (uint64_t a = funcs[i].start; a < funcs[i].end; a++) {
			size_t n;

			addrs++;
			if (a < span[0] || a >= span[1]) {
				nref = dwarf_info_frames_span(d, a, ref, MAX, span);
				lookups++;
				/* the span holds the address asked for, inside its function */
				if (span[0] > a || span[1] <= a || span[1] > funcs[i].end) {
					bad++;
					span[0] = a;
					span[1] = a + 1;
				}
				inlined += nref > 1;
				continue;
			}
			n = dwarf_info_frames(d, a, got, MAX);
			bad += !same_frames(ref, nref, got, n);
		}
	}
	printf("# %llu addresses, %llu lookups, %llu spans inlined\n", (unsigned long long)addrs,
	       (unsigned long long)lookups, (unsigned long long)inlined);
	CHECK_EQ_U64(bad, 0);
	/* spans are worth having: several addresses each; and inlining was seen */
	CHECK(lookups * 2 < addrs);
	CHECK(inlined > 10);
	dwarf_info_free(d);
}

/*
 * A DWARF 4 line program of two sequences, the second below the first, with
 * every standard opcode that moves the address or the line, a special
 * opcode, a discriminator, a defined file and a vendor's extended opcode.
 */
static const uint8_t line_prog[] = {
	0x61, 0, 0, 0,			/* unit_length: 97 */
	4, 0,				/* version */
	0x1b, 0, 0, 0,			/* header_length: 27 */
	1, 1, 1, 0xfb, 14, 13,		/* min_inst_len, max_ops, is_stmt, line_base -5, range, base */
	0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1,	/* the standard opcodes' operands */
	0,				/* no include directory */
	'a', '.', 'c', 0, 0, 0, 0, 0,	/* one file, then the end of the list */
	/* the program: 0x1000 line 10 */
	0, 9, 2, 0x00, 0x10, 0, 0, 0, 0, 0, 0,
	3, 9, 1,
	0, 2, 4, 5,			/* discriminator 5 */
	61,				/* special: address +3, line +1 */
	8,				/* const_add_pc: +17 */
	9, 0x10, 0,			/* fixed_advance_pc: +16 */
	3, 0x7d,			/* line -3 */
	0, 6, 3, 'b', 0, 0, 0, 0,	/* define_file */
	0, 3, 0x99, 0xaa, 0xbb,		/* a vendor's extended opcode */
	5, 7,				/* column 7 */
	1,
	2, 4,
	0, 1, 1,			/* end of sequence at 0x1028 */
	/* a sequence below: 0x800 line 1, ends at 0x1000 */
	0, 9, 2, 0x00, 0x08, 0, 0, 0, 0, 0, 0,
	1,
	2, 0x80, 0x10,
	0, 1, 1,
};

static void test_line_program_by_hand(void)
{
	static const struct {
		uint64_t addr;
		uint32_t line, disc, end;
	} want[] = {
		{ 0x800, 1, 0, 0 },
		{ 0x1000, 1, 0, 1 },	/* an end before the other rows at its address */
		{ 0x1000, 10, 0, 0 },
		{ 0x1003, 11, 5, 0 },
		{ 0x1024, 8, 0, 0 },
		{ 0x1028, 8, 0, 1 },
	};
	uint8_t buf[sizeof(line_prog) + 8];
	uint64_t *addr;
	struct dwarf_row *rows;
	size_t nr;

	CHECK_EQ_INT(dwarf_lines_read(line_prog, sizeof(line_prog), 0, &addr, &rows, &nr), 0);
	CHECK_EQ_INT(nr, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < nr && i < sizeof(want) / sizeof(*want); i++) {
		CHECK_EQ_U64(addr[i], want[i].addr);
		CHECK_EQ_INT(rows[i].line, want[i].line);
		CHECK_EQ_INT(rows[i].disc, want[i].disc);
		CHECK_EQ_INT(rows[i].end, want[i].end);
	}
	free(addr);
	free(rows);

	/* at an offset inside the section; past its end */
	memset(buf, 0xee, 8);
	memcpy(buf + 8, line_prog, sizeof(line_prog));
	CHECK_EQ_INT(dwarf_lines_read(buf, sizeof(buf), 8, &addr, &rows, &nr), 0);
	CHECK_EQ_INT(nr, 6);
	free(addr);
	free(rows);
	CHECK_EQ_INT(dwarf_lines_read(buf, sizeof(buf), sizeof(buf), &addr, &rows, &nr), -EINVAL);
	CHECK(addr == NULL && rows == NULL && nr == 0);

	/* refused: every cut, a line_range of 0, several operations per instruction, version 6 */
	for (size_t n = 0; n < sizeof(line_prog); n++)
		CHECK_EQ_INT(dwarf_lines_read(line_prog, n, 0, &addr, &rows, &nr), -EINVAL);
	memcpy(buf, line_prog, sizeof(line_prog));
	buf[14] = 0;
	CHECK_EQ_INT(dwarf_lines_read(buf, sizeof(line_prog), 0, &addr, &rows, &nr), -EINVAL);
	memcpy(buf, line_prog, sizeof(line_prog));
	buf[11] = 4;
	CHECK_EQ_INT(dwarf_lines_read(buf, sizeof(line_prog), 0, &addr, &rows, &nr), -EINVAL);
	memcpy(buf, line_prog, sizeof(line_prog));
	buf[4] = 6;
	CHECK_EQ_INT(dwarf_lines_read(buf, sizeof(line_prog), 0, &addr, &rows, &nr), -EINVAL);
	/* a unit that says it ends where it is cut: anywhere in the header or the program */
	for (size_t n = 6; n < sizeof(line_prog); n++) {
		uint32_t len = (uint32_t)n - 4;
		int err;

		memcpy(buf, line_prog, n);
		memcpy(buf, &len, 4);
		err = dwarf_lines_read(buf, n, 0, &addr, &rows, &nr);
		CHECK(err == 0 || err == -EINVAL);
		if (!err) {
			free(addr);
			free(rows);
		}
	}
	/* any byte changed: an answer, never a read past the end (the sanitizer build checks) */
	for (size_t i = 0; i < sizeof(line_prog); i++) {
		memcpy(buf, line_prog, sizeof(line_prog));
		buf[i] ^= 0x80;
		if (!dwarf_lines_read(buf, sizeof(line_prog), 0, &addr, &rows, &nr)) {
			free(addr);
			free(rows);
		}
	}
}

static const struct unit_test tests[] = {
	TEST(test_spans_are_honest),
	TEST(test_line_program_by_hand),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
