/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_STACKS_H
#define SBX_PROFILE_STACKS_H

/*
 * Stacks of samples, counted per unique stack, for flame graphs: written
 * in the folded format that flamegraph.pl, inferno and speedscope read
 * ("comm;outer;…;leaf COUNT", one line per stack, sorted), or as a
 * self-contained SVG flame graph.
 *
 * Frames are named as the folded format's producer names them from perf
 * script's output (stackcollapse-perf): the symbol, C++ argument lists cut
 * off, ';' made ':', quotes dropped; an address without a symbol is "[DSO]"
 * (the file's base name: "[[kernel.kallsyms]]" for the kernel), or
 * "[unknown]" outside every map; the comm's spaces are '_'.
 * A sample's frames are its call chain (leaf first, perf's context markers
 * skipped), or its IP alone without one.
 *
 *	struct stacks *st = stacks_new();
 *	for each sample: stacks_add_sample(st, machine, sample, frames, nr, demangle);
 *	stacks_write_folded(st, stdout) or stacks_write_svg(st, f, title);
 *	stacks_free(st);
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf/sample.h"
#include "symbol/addrspace.h"
#include "symbol/chain.h"

struct stacks;

struct stacks *stacks_new(void);
void stacks_free(struct stacks *st);

/*
 * Count one sample (weight 1) through m: its call chain frames[0..nr)
 * (chain_resolve()'s, leaf first; inlined functions by their names), or
 * its IP alone when it has no chain. 0 or -ENOMEM (with a message).
 */
int stacks_add_sample(struct stacks *st, struct machine *m, const struct perf_sample *s,
		      const struct chain_frame *frames, size_t nr, bool demangle);

/* Samples counted, and distinct stacks. */
uint64_t stacks_samples(const struct stacks *st);
size_t stacks_nr(const struct stacks *st);

/* The folded lines, sorted by stack. 0, or -EIO/-ENOMEM (with a message). */
int stacks_write_folded(struct stacks *st, FILE *f);

/*
 * An SVG flame graph: the root ("all") at the bottom, each frame as wide
 * as its samples, callees above their callers in name order (so the
 * output depends on the stacks alone); a title per frame (name, DSO,
 * samples, share); click a frame to zoom to it, and a search box, by a
 * small embedded script. 0, or -EIO/-ENOMEM (with a message).
 */
int stacks_write_svg(struct stacks *st, FILE *f, const char *title);

#endif
