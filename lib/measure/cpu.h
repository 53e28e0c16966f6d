/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_CPU_H
#define SBX_MEASURE_CPU_H

/*
 * What this CPU and its kernel let a snippet use (CPUID, and XGETBV for the
 * register state the kernel saves), for the measuring child's start state.
 */

#include <stdbool.h>

struct cpu_features {
	bool tsc, rdtscp;
	bool avx;		/* AVX with the YMM state enabled by the kernel */
	bool avx512f;		/* AVX-512F with the opmask and ZMM state enabled */
};

/* This CPU's features, read once. */
const struct cpu_features *cpu_features(void);

/* Bit `bit` of register reg (0 eax, 1 ebx, 2 ecx, 3 edx) of CPUID leaf, subleaf 0. */
bool cpu_has(unsigned leaf, int reg, unsigned bit);

#endif
