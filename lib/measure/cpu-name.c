// SPDX-License-Identifier: MIT
/*
 * LLVM 19's host CPU name on x86 (see cpu-name.h).
 *
 * The facts (which CPUID bits count, the family/model rules, every model
 * and the feature tests that pick a name) are those of LLVM 19's Host.cpp:
 * getX86CpuIDAndInfo, getAvailableFeatures, detectX86FamilyModel,
 * getIntelProcessorTypeAndSubtype, getAMDProcessorTypeAndSubtype and
 * sys::getHostCPUName.  Only the features those tests look at are derived.
 */
#include <stdbool.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "measure/cpu-name.h"

/* The features LLVM's name tests look at, as bits of a mask */
enum {
	F_MMX, F_SSE, F_SSE2, F_SSE3, F_SSSE3, F_SSE4_1, F_SSE4_2, F_MOVBE,
	F_AVX, F_AVX2, F_ADX, F_CLFLUSHOPT, F_SHA, F_AVX512VL, F_AVX512VBMI,
	F_AVX512VBMI2, F_AVX512VNNI, F_AVX512VP2INTERSECT, F_AVX512BF16,
	F_64BIT,
};

#define HAS(f)	((feat >> F_##f & 1) != 0)

static bool bit(unsigned word, unsigned n)
{
	return word >> n & 1;
}

/*
 * getAvailableFeatures: the features as LLVM sees them.  AVX needs XSAVE and
 * OSXSAVE with the SSE and YMM state enabled in XCR0 (bits 1, 2); AVX-512
 * needs that and the opmask and ZMM state (bits 5, 6, 7).  Leaf 7 counts
 * only when max_leaf reaches it, subleaf 1 only when leaf 7 EAX says it is
 * there, leaf 0x80000001 only when max_ext_leaf reaches it.
 */
static unsigned features_of(const struct cpuid_words *w)
{
	bool leaf7 = w->max_leaf >= 7;
	bool leaf7_1 = leaf7 && w->l7_eax >= 1;
	bool ext1 = w->max_ext_leaf >= 0x80000001u;
	bool avx, avx512;
	unsigned feat = 0;

	avx = bit(w->l1_ecx, 27) && bit(w->l1_ecx, 28) &&
	      (w->xcr0 & 0x6) == 0x6;
	avx512 = avx && (w->xcr0 & 0xe0) == 0xe0;

#define SET(f, cond)	do { if (cond) feat |= 1u << F_##f; } while (0)
	SET(MMX, bit(w->l1_edx, 23));
	SET(SSE, bit(w->l1_edx, 25));
	SET(SSE2, bit(w->l1_edx, 26));
	SET(SSE3, bit(w->l1_ecx, 0));
	SET(SSSE3, bit(w->l1_ecx, 9));
	SET(SSE4_1, bit(w->l1_ecx, 19));
	SET(SSE4_2, bit(w->l1_ecx, 20));
	SET(MOVBE, bit(w->l1_ecx, 22));
	SET(AVX, avx);

	SET(AVX2, leaf7 && bit(w->l7_ebx, 5) && avx);
	SET(ADX, leaf7 && bit(w->l7_ebx, 19));
	SET(CLFLUSHOPT, leaf7 && bit(w->l7_ebx, 23));
	SET(SHA, leaf7 && bit(w->l7_ebx, 29));
	SET(AVX512VL, leaf7 && bit(w->l7_ebx, 31) && avx512);
	SET(AVX512VBMI, leaf7 && bit(w->l7_ecx, 1) && avx512);
	SET(AVX512VBMI2, leaf7 && bit(w->l7_ecx, 6) && avx512);
	SET(AVX512VNNI, leaf7 && bit(w->l7_ecx, 11) && avx512);
	SET(AVX512VP2INTERSECT, leaf7 && bit(w->l7_edx, 8) && avx512);
	SET(AVX512BF16, leaf7_1 && bit(w->l7_1_eax, 5) && avx512);

	SET(64BIT, ext1 && bit(w->e1_edx, 29));	/* long mode */
#undef SET
	return feat;
}

/*
 * detectX86FamilyModel: the extended family is added only to family 0xf,
 * the extended model only to families 6 and 0xf (for both vendors).
 */
static void family_model(unsigned eax, unsigned *family, unsigned *model)
{
	*family = eax >> 8 & 0xf;
	*model = eax >> 4 & 0xf;
	if (*family == 6 || *family == 0xf) {
		if (*family == 0xf)
			*family += eax >> 20 & 0xff;
		*model += (eax >> 16 & 0xf) << 4;
	}
}

/* An Intel family 6 model LLVM does not list: a guess from the features */
static const char *intel6_guess(unsigned feat)
{
	if (HAS(AVX512VP2INTERSECT))
		return "tigerlake";
	if (HAS(AVX512VBMI2))
		return "icelake-client";
	if (HAS(AVX512VBMI))
		return "cannonlake";
	if (HAS(AVX512BF16))
		return "cooperlake";
	if (HAS(AVX512VNNI))
		return "cascadelake";
	if (HAS(AVX512VL))
		return "skylake-avx512";
	if (HAS(CLFLUSHOPT))
		return HAS(SHA) ? "goldmont" : "skylake";
	if (HAS(ADX))
		return "broadwell";
	if (HAS(AVX2))
		return "haswell";
	if (HAS(AVX))
		return "sandybridge";
	if (HAS(SSE4_2))
		return HAS(MOVBE) ? "silvermont" : "nehalem";
	if (HAS(SSE4_1))
		return "penryn";
	if (HAS(SSSE3))
		return HAS(MOVBE) ? "bonnell" : "core2";
	if (HAS(64BIT))
		return "core2";
	if (HAS(SSE3))
		return "yonah";
	if (HAS(SSE2))
		return "pentium-m";
	if (HAS(SSE))
		return "pentium3";
	if (HAS(MMX))
		return "pentium2";
	return "pentiumpro";
}

static const char *intel6(unsigned model, unsigned feat)
{
	switch (model) {
	case 0x0f: case 0x16:
		return "core2";
	case 0x17: case 0x1d:
		return "penryn";
	case 0x1a: case 0x1e: case 0x1f: case 0x2e:
		return "nehalem";
	case 0x25: case 0x2c: case 0x2f:
		return "westmere";
	case 0x2a: case 0x2d:
		return "sandybridge";
	case 0x3a: case 0x3e:
		return "ivybridge";
	case 0x3c: case 0x3f: case 0x45: case 0x46:
		return "haswell";
	case 0x3d: case 0x47: case 0x4f: case 0x56:
		return "broadwell";
	case 0x4e: case 0x5e:			/* Skylake */
	case 0x8e: case 0x9e:			/* Kaby Lake */
	case 0xa5: case 0xa6:			/* Comet Lake */
		return "skylake";
	case 0xa7:
		return "rocketlake";
	case 0x55:	/* one model for three Xeons: told apart by features */
		if (HAS(AVX512BF16))
			return "cooperlake";
		if (HAS(AVX512VNNI))
			return "cascadelake";
		return "skylake-avx512";
	case 0x66:
		return "cannonlake";
	case 0x7d: case 0x7e:
		return "icelake-client";
	case 0x8c: case 0x8d:
		return "tigerlake";
	case 0x97: case 0x9a:			/* Alder Lake */
	case 0xbe:				/* Gracemont (Alder Lake-N) */
	case 0xb7: case 0xba: case 0xbf:	/* Raptor Lake */
	case 0xaa: case 0xac:			/* Meteor Lake */
		return "alderlake";
	case 0xc5:
		return "arrowlake";
	case 0xc6:				/* Arrow Lake S */
	case 0xbd:				/* Lunar Lake */
		return "arrowlake-s";
	case 0xcc:
		return "pantherlake";
	case 0xad:
		return "graniterapids";
	case 0xae:
		return "graniterapids-d";
	case 0x6a: case 0x6c:
		return "icelake-server";
	case 0x8f:				/* Sapphire Rapids */
	case 0xcf:				/* Emerald Rapids */
		return "sapphirerapids";
	case 0x1c: case 0x26: case 0x27: case 0x35: case 0x36:
		return "bonnell";
	case 0x37: case 0x4a: case 0x4d: case 0x5a: case 0x5d:
	case 0x4c:				/* Airmont */
		return "silvermont";
	case 0x5c: case 0x5f:
		return "goldmont";
	case 0x7a:
		return "goldmont-plus";
	case 0x86: case 0x8a: case 0x96: case 0x9c:
		return "tremont";
	case 0xaf:
		return "sierraforest";
	case 0xb6:
		return "grandridge";
	case 0xdd:
		return "clearwaterforest";
	case 0x57:
		return "knl";
	case 0x85:
		return "knm";
	default:
		return intel6_guess(feat);
	}
}

/* getIntelProcessorTypeAndSubtype; NULL where LLVM has no name */
static const char *intel(unsigned family, unsigned model, unsigned feat)
{
	switch (family) {
	case 3:
		return "i386";
	case 4:
		return "i486";
	case 5:
		return HAS(MMX) ? "pentium-mmx" : "pentium";
	case 6:
		return intel6(model, feat);
	case 15:	/* Pentium 4 era (an extended family is another case) */
		if (HAS(64BIT))
			return "nocona";
		if (HAS(SSE3))
			return "prescott";
		return "pentium4";
	default:
		return NULL;
	}
}

static bool in(unsigned m, unsigned lo, unsigned hi)
{
	return m >= lo && m <= hi;
}

/*
 * getAMDProcessorTypeAndSubtype; NULL where LLVM has no name.  Within a Zen
 * family, a model outside the ranges LLVM lists keeps the family's first
 * name (znver1, znver3, znver5).
 */
static const char *amd(unsigned family, unsigned model, unsigned feat)
{
	switch (family) {
	case 4:
		return "i486";
	case 5:
		switch (model) {
		case 6: case 7:
			return "k6";
		case 8:
			return "k6-2";
		case 9: case 13:
			return "k6-3";
		case 10:
			return "geode";
		default:
			return "pentium";
		}
	case 6:
		return HAS(SSE) ? "athlon-xp" : "athlon";
	case 0x0f:
		return HAS(SSE3) ? "k8-sse3" : "k8";
	case 0x10:
		return "amdfam10";
	case 0x14:
		return "btver1";
	case 0x15:
		if (in(model, 0x60, 0x7f))		/* Excavator */
			return "bdver4";
		if (in(model, 0x30, 0x3f))		/* Steamroller */
			return "bdver3";
		if (in(model, 0x10, 0x1f) || model == 0x02)	/* Piledriver */
			return "bdver2";
		return "bdver1";
	case 0x16:
		return "btver2";
	case 0x17:
		/*
		 * Zen 2: Starship, Cardinal, Renoir, Lucienne, Matisse,
		 * ProjectX, VanGogh, Mero, Mendocino
		 */
		if (in(model, 0x30, 0x3f) || model == 0x47 ||
		    in(model, 0x60, 0x6f) || in(model, 0x70, 0x7f) ||
		    in(model, 0x84, 0x87) || in(model, 0x90, 0x9f) ||
		    in(model, 0xa0, 0xaf))
			return "znver2";
		return "znver1";
	case 0x19:
		/* Zen 3 is 00-0f and 20-5f; Zen 4 is these */
		if (in(model, 0x10, 0x1f) || in(model, 0x60, 0x7f) ||
		    in(model, 0xa0, 0xaf))
			return "znver4";
		return "znver3";
	case 0x1a:
		return "znver5";
	default:
		return NULL;
	}
}

const char *cpu_llvm_name_of(const struct cpuid_words *w)
{
	unsigned family, model, feat;
	const char *name = NULL;

	/* getVendorSignature: no leaf 1, no vendor LLVM knows */
	if (w->max_leaf < 1)
		return "generic";
	family_model(w->l1_eax, &family, &model);
	feat = features_of(w);
	if (!strcmp(w->vendor, "GenuineIntel"))
		name = intel(family, model, feat);
	else if (!strcmp(w->vendor, "AuthenticAMD"))
		name = amd(family, model, feat);
	return name ? name : "generic";
}

void cpu_read_words(struct cpuid_words *w)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
#endif

	memset(w, 0, sizeof(*w));
#if defined(__x86_64__) || defined(__i386__)
	/* 0 too when CPUID itself is missing (an old i386) */
	if (!__get_cpuid_max(0, NULL))
		return;
	__cpuid(0, a, b, c, d);
	w->max_leaf = a;
	memcpy(w->vendor, &b, 4);
	memcpy(w->vendor + 4, &d, 4);
	memcpy(w->vendor + 8, &c, 4);
	if (w->max_leaf >= 1)
		__cpuid(1, w->l1_eax, w->l1_ebx, w->l1_ecx, w->l1_edx);
	if (w->max_leaf >= 7) {
		__cpuid_count(7, 0, w->l7_eax, w->l7_ebx, w->l7_ecx, w->l7_edx);
		if (w->l7_eax >= 1)
			__cpuid_count(7, 1, w->l7_1_eax, b, c, w->l7_1_edx);
	}
	w->max_ext_leaf = __get_cpuid_max(0x80000000u, NULL);
	if (w->max_ext_leaf >= 0x80000001u)
		__cpuid(0x80000001u, a, b, w->e1_ecx, w->e1_edx);
	/* XGETBV faults unless the OS enabled it (OSXSAVE) */
	if (bit(w->l1_ecx, 27)) {
		unsigned lo, hi;

		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		w->xcr0 = (unsigned long long)hi << 32 | lo;
	}
#endif
}

const char *cpu_llvm_name(void)
{
	static const char *name;
	const char *n = __atomic_load_n(&name, __ATOMIC_ACQUIRE);

	if (!n) {
		struct cpuid_words w;

		cpu_read_words(&w);
		n = cpu_llvm_name_of(&w);
		__atomic_store_n(&name, n, __ATOMIC_RELEASE);
	}
	return n;
}
