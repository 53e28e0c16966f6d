// SPDX-License-Identifier: MIT
/*
 * lib/symbol/dwarf on a real binary with inlining: this test's own
 * executable (built -O2 -g). The spans that dwarf_info_frames_span() gives
 * must be honest: every address inside one has the frames of the address
 * the span was asked for, and the spans tile each function.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
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

static const struct unit_test tests[] = {
	TEST(test_spans_are_honest),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
