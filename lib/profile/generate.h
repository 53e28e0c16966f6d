/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_GENERATE_H
#define SBX_PROFILE_GENERATE_H

/*
 * From counts (collect.h) to a sample profile (sampleprof.h), for one
 * binary, through its DWARF (inline stacks, lines, discriminators) or, when
 * it has none, its symbols.
 *
 * IP-only counts (AutoFDO's --use_lbr=false): each sampled address adds its
 * count to the total of every function on its inline stack; the body sample
 * of its line (offset from the function's declaration line, base
 * discriminator) is the maximum over the line's addresses, times the
 * discriminator's duplication factor. Counts are proportional to time spent,
 * not to executions; no head samples.
 *
 * Call chains add call targets: at the call instruction before each return
 * address, the function called, counted once per sample whose stack went
 * through that call (time spent below the call, not calls).
 *
 * LBR counts (llvm-profgen's semantics): the fall-through ranges between
 * consecutive branches give every instruction in them its count; totals add
 * count × instruction size per byte; body samples are the per-line maximum
 * times the duplication factor; the lines of functions that ranges touch
 * get explicit zeros; branches to a function's entry give its head samples
 * and, from a call site in the binary, call targets; a line's body count is
 * at least the sum of the calls made there.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/collect.h"
#include "profile/sampleprof.h"
#include "symbol/binary.h"

struct pg_generate_stats {
	uint64_t samples;		/* samples whose counts went into the profile */
	uint64_t no_function;		/* samples outside every function */
	uint64_t no_line;		/* samples at an address without a line */
	uint64_t ranges, bad_ranges;	/* LBR ranges used, and those refused */
	uint64_t branches;		/* LBR branches into the binary */
	/* call-chain returns counted, and those not after a call instruction (left out) */
	uint64_t returns, bad_returns;
	/*
	 * IP samples (not from branch stacks) in the profile at a function of
	 * no DW_AT_decl_line (clang -gline-tables-only without
	 * -fdebug-info-for-profiling: its line offsets are not the compiler's),
	 * and those whose line has a discriminator (none at all: a build without
	 * -fdebug-info-for-profiling, as a rule)
	 */
	uint64_t no_decl_line, with_discriminator;
	/* IP samples in basic blocks of no line (line 0 only): in totals, in no line's count */
	uint64_t lineless_blocks;
	bool lbr;			/* the profile came from branch stacks */
	bool symbols_only;		/* no DWARF: functions from the symbol table */
};

/*
 * Add the profile of binary b made from the counts of the DSOs in d (nr of
 * them, one per input: the same binary in several recordings) to p. Their
 * IP counts are used up (pg_dso_take_ips(): no copy of the biggest array);
 * their branch stacks and calls stay. Returns 0 or a negative errno with a
 * message: -ENOMEM, or -EINVAL for a binary whose branch stacks cannot be
 * followed (its code spans more than 1 GiB: a damaged file; capstone
 * missing x86-64).
 */
int pg_generate(struct sample_profile *p, struct pg_dso *const *d, size_t nr,
		const struct binary *b, struct pg_generate_stats *st);

/*
 * Write llvm-profgen's "unsymbolized profile" (--skip-symbolization) of the
 * branch stacks in d: the range and branch counts before any symbol is
 * looked at, as offsets from the binary's first executable segment; with
 * no branch stacks, each sampled instruction a range of its own, and in
 * *outside the IP samples at offsets in no segment of b (not written). 0
 * or a negative errno with a message (as pg_generate()).
 */
int pg_write_unsymbolized(FILE *out, struct pg_dso *const *d, size_t nr, const struct binary *b,
			  uint64_t *outside);

/*
 * Read an unsymbolized profile (llvm-profgen's --unsymbolized-profile
 * input, what --skip-symbolization writes) of binary b from f and add its
 * profile to p. 0, or a negative errno with a message naming the line.
 */
int pg_generate_unsymbolized(struct sample_profile *p, FILE *f, const char *name,
			     const struct binary *b, struct pg_generate_stats *st);

/*
 * The most threads generation runs at once (default 2: branch stacks'
 * code is disassembled in two halves); 1 keeps it all in the calling
 * thread. Set before generating, not during.
 */
void pg_set_threads(unsigned n);

/* The base discriminator and the duplication factor of a DWARF discriminator (LLVM's encoding). */
uint32_t pg_base_discriminator(uint32_t d);
uint32_t pg_duplication_factor(uint32_t d);

#endif
