// SPDX-License-Identifier: MIT
/* CPU features from CPUID and XGETBV (see cpu.h). */
#include <cpuid.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/cpu.h"

bool cpu_has(unsigned leaf, int reg, unsigned bit)
{
	unsigned r[4];

	if (leaf > __get_cpuid_max(leaf & 0x80000000u, NULL))
		return false;
	__cpuid_count(leaf, 0, r[0], r[1], r[2], r[3]);
	return r[reg] >> bit & 1;
}

/* XCR0: the register state the kernel saves and lets user code use */
static uint64_t xcr0(void)
{
	uint32_t lo, hi;

	if (!cpu_has(1, 2, 27))	/* OSXSAVE: XGETBV is there */
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

const struct cpu_features *cpu_features(void)
{
	static struct cpu_features f;
	static bool done;

	if (!done) {
		uint64_t x = xcr0();

		f.tsc = cpu_has(1, 3, 4);
		f.rdtscp = cpu_has(0x80000001, 3, 27);
		/* SSE and AVX state (XCR0 bits 1, 2) */
		f.avx = cpu_has(1, 2, 28) && (x & 0x6) == 0x6;
		/* and the opmask, ZMM0-15 upper halves and ZMM16-31 (bits 5, 6, 7) */
		f.avx512f = f.avx && cpu_has(7, 1, 16) && (x & 0xe0) == 0xe0;
		done = true;
	}
	return &f;
}
