// SPDX-License-Identifier: MIT
/* LLVM 19's host CPU names, from constructed CPUID words (llvm-19's llc as the judge of the host). */
#include <string.h>

#include "harness.h"
#include "measure/cpu-name.h"

/* Leaf 1 EAX of a family and model, split into base and extended fields as CPUID gives them */
static unsigned signature(unsigned family, unsigned model)
{
	unsigned base_family = family > 0xf ? 0xf : family;
	unsigned ext_family = family > 0xf ? family - 0xf : 0;

	return ext_family << 20 | (model >> 4) << 16 | base_family << 8 | (model & 0xf) << 4;
}

static struct cpuid_words words(const char *vendor, unsigned family, unsigned model)
{
	struct cpuid_words w;

	memset(&w, 0, sizeof(w));
	strcpy(w.vendor, vendor);
	w.max_leaf = 0x20;
	w.max_ext_leaf = 0x80000008u;
	w.l1_eax = signature(family, model);
	/* SSE..SSE4.2, MOVBE, OSXSAVE, AVX; MMX, SSE, SSE2; long mode */
	w.l1_ecx = 1u << 0 | 1u << 9 | 1u << 19 | 1u << 20 | 1u << 22 | 1u << 27 | 1u << 28;
	w.l1_edx = 1u << 23 | 1u << 25 | 1u << 26;
	w.e1_edx = 1u << 29;
	w.l7_ebx = 1u << 5;	/* AVX2 */
	w.xcr0 = 0x7;
	return w;
}

static void test_amd(void)
{
	struct cpuid_words w;

	w = words("AuthenticAMD", 0x19, 0x01);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "znver3");
	w = words("AuthenticAMD", 0x19, 0x11);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "znver4");
	w = words("AuthenticAMD", 0x1a, 0x02);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "znver5");
	w = words("AuthenticAMD", 0x17, 0x31);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "znver2");
}

static void test_intel(void)
{
	struct cpuid_words w;

	/* LLVM 19 has no emeraldrapids: model 0xcf is sapphirerapids */
	w = words("GenuineIntel", 6, 0xcf);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "sapphirerapids");
	w = words("GenuineIntel", 6, 0x8f);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "sapphirerapids");
	w = words("GenuineIntel", 6, 0xad);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "graniterapids");
	w = words("GenuineIntel", 6, 0x3c);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "haswell");
	w = words("GenuineIntel", 6, 0x9e);
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "skylake");
	/* model 0x55: cascadelake with AVX512VNNI enabled by the kernel, else skylake-avx512 */
	w = words("GenuineIntel", 6, 0x55);
	w.l7_ecx = 1u << 11;
	w.xcr0 = 0xe7;
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "cascadelake");
	w.xcr0 = 0x7;
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "skylake-avx512");
	w.l7_ecx = 0;
	w.xcr0 = 0xe7;
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "skylake-avx512");
}

static void test_unknown(void)
{
	struct cpuid_words w = words("CentaurHauls", 6, 0x0f);

	CHECK_EQ_STR(cpu_llvm_name_of(&w), "generic");
	w = words("GenuineIntel", 6, 0x3c);
	w.max_leaf = 0;
	CHECK_EQ_STR(cpu_llvm_name_of(&w), "generic");
}

static const struct unit_test tests[] = {
	TEST(test_amd),
	TEST(test_intel),
	TEST(test_unknown),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
