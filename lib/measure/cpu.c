// SPDX-License-Identifier: MIT
/* CPU features from CPUID and XGETBV (see cpu.h). */
#include "measure/cpu-name.h"
#include "measure/cpu.h"

static bool bit(unsigned word, unsigned n)
{
	return word >> n & 1;
}

const struct cpu_features *cpu_features(void)
{
	static struct cpu_features f;
	static bool done;

	if (!done) {
		struct cpuid_words w;

		cpu_read_words(&w);
		f.tsc = bit(w.l1_edx, 4);
		f.rdtscp = w.max_ext_leaf >= 0x80000001u && bit(w.e1_edx, 27);
		/* OSXSAVE, AVX, and the SSE and AVX state in XCR0 (bits 1, 2) */
		f.avx = bit(w.l1_ecx, 27) && bit(w.l1_ecx, 28) && (w.xcr0 & 0x6) == 0x6;
		/* and AVX-512F with the opmask, ZMM0-15 upper halves and ZMM16-31 (bits 5, 6, 7) */
		f.avx512f = f.avx && w.max_leaf >= 7 && bit(w.l7_ebx, 16) &&
			    (w.xcr0 & 0xe0) == 0xe0;
		done = true;
	}
	return &f;
}
