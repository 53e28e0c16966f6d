/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_CPU_NAME_H
#define SBX_MEASURE_CPU_NAME_H

/*
 * The name LLVM 19 gives the host x86 CPU (sys::getHostCPUName(), what
 * -mcpu=native and llc's "Host CPU" mean), worked out the way LLVM 19's
 * Host.cpp does it, from the CPUID and XCR0 words below.
 */

/*
 * The raw CPUID words LLVM's host CPU detection looks at.  LLVM 19 reads no
 * other leaf for the name (not 0x14, 0x19 or 0x24).  Words of a leaf past
 * max_leaf / max_ext_leaf, or of leaf 7 subleaf 1 when l7_eax is 0, are
 * ignored, as LLVM never reads them; cpu_read_words() leaves them 0.
 */
struct cpuid_words {
	char vendor[13];	/* "GenuineIntel", "AuthenticAMD", from leaf 0 */
	unsigned max_leaf;	/* leaf 0 EAX */
	unsigned max_ext_leaf;	/* leaf 0x80000000 EAX */
	unsigned l1_eax, l1_ebx, l1_ecx, l1_edx;	/* leaf 1 */
	unsigned l7_eax;	/* leaf 7 subleaf 0 EAX: the highest subleaf */
	unsigned l7_ebx, l7_ecx, l7_edx;		/* leaf 7 subleaf 0 */
	unsigned l7_1_eax;	/* leaf 7 subleaf 1 (AVX512_BF16) */
	unsigned l7_1_edx;	/* leaf 7 subleaf 1; not used for the name */
	unsigned e1_ecx, e1_edx;			/* leaf 0x80000001 */
	unsigned long long xcr0;	/* XGETBV(0); 0 when OSXSAVE is clear */
};

/*
 * LLVM 19's name of that CPU ("znver3", "sapphirerapids", "generic" ...), a
 * static string; never NULL.  Like LLVM 19, it is "generic" for other vendors
 * and for families or models LLVM does not place (there is no "x86-64").
 */
const char *cpu_llvm_name_of(const struct cpuid_words *w);

/* This machine's words (CPUID, XGETBV); all 0 off x86. */
void cpu_read_words(struct cpuid_words *w);

/* cpu_llvm_name_of() this machine's words, worked out once. */
const char *cpu_llvm_name(void);

#endif
