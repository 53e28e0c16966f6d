/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_CPU_H
#define SBX_MEASURE_CPU_H

/*
 * What this CPU and its kernel let a snippet use, from the CPUID and XCR0
 * words cpu-name.h reads: for the measuring child's start state and its
 * timing code.
 */

#include <stdbool.h>

struct cpu_features {
	bool tsc, rdtscp;
	bool avx;		/* AVX with the YMM state enabled by the kernel */
	bool avx512f;		/* AVX-512F with the opmask and ZMM state enabled */
};

/* This CPU's features, read once. */
const struct cpu_features *cpu_features(void);

#endif
