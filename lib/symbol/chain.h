/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_CHAIN_H
#define SBX_SYMBOL_CHAIN_H

/*
 * The frames of a sample's call chain, resolved, as perf's
 * thread__resolve_callchain() makes its cursor: the PERF_SAMPLE_CALLCHAIN
 * entries (context markers set the mode of the next ones), then, for a
 * --call-graph dwarf sample, its user stack unwound (unwind.h); and, when
 * asked, perf's inline frames (its report --inline, on by default): a
 * frame in a function with DWARF becomes the functions inlined at its
 * address, innermost first, then the function. perf 6.1 does that for the
 * frames it unwinds only (CHAIN_INLINES_UNWOUND); later perfs for the
 * frame-pointer chain's frames too (CHAIN_INLINES_ALL).
 *
 *	struct chain_resolver *c = chain_resolver_new(machine);
 *	chain_resolver_set_inlines(c, CHAIN_INLINES_UNWOUND, demangle);
 *	n = chain_resolve(c, sample, attr->sample_regs_user, &frames);
 *	chain_resolver_free(c);
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/sample.h"
#include "symbol/addrspace.h"

struct chain_frame {
	uint64_t ip;			/* as sampled: a return address (frame pointers),
					   the call (unwound callers: return address - 1) */
	struct addr_location al;
	/*
	 * al.sym is a function inlined at ip: a symbol made here, named
	 * "NAME (inlined)" (NAME from DWARF, demangled as asked), with the
	 * start and size of the function it was inlined into. Also set for
	 * the out-of-line function when DWARF names it otherwise than the
	 * symbol table (__libc_start_main_impl in __libc_start_main), as perf.
	 */
	bool inlined;
};

struct chain_resolver;

/*
 * perf report's srcline of a sample's location al: "FILE:LINE" (the file's
 * base name) from the DWARF of its DSO (or its debug file), else "SYM+OFF"
 * (the offset in decimal), else "DSO[ADDR]" (hex), "[unknown]" outside
 * every map. Interned: one pointer per string, owned by c. NULL when out of
 * memory.
 */
const char *chain_srcline(struct chain_resolver *c, const struct addr_location *al);

/*
 * perf's srcline of a call-graph frame (its callchain_srcline(), for -g
 * address and -g srcline): "FILE:LINE" from DWARF as chain_srcline() has
 * it; else, for the address key (addr), "+OFF" (decimal, from the symbol's
 * start); else NULL, as for a frame without a symbol. Interned, owned by c.
 * *oom is set when NULL means out of memory.
 */
const char *chain_callchain_srcline(struct chain_resolver *c, const struct addr_location *al,
				    bool addr, bool *oom);

/*
 * The name of f's function as shown: demangled as asked, and for an
 * inlined function its NAME alone, without " (inlined)". Owned by the
 * DSO or the resolver; NULL when f has no symbol.
 */
const char *chain_frame_function(const struct chain_frame *f, bool demangle);

/* A resolver over the processes of m; NULL with errno on failure. */
struct chain_resolver *chain_resolver_new(struct machine *m);
void chain_resolver_free(struct chain_resolver *c);

enum chain_inlines { CHAIN_INLINES_NONE, CHAIN_INLINES_UNWOUND, CHAIN_INLINES_ALL };

/* Which frames become their inline stacks (none by default); demangle the names. */
void chain_resolver_set_inlines(struct chain_resolver *c, enum chain_inlines which,
				bool demangle);

/*
 * The frames of sample s, leaf first, of an event sampling the user
 * registers regs_mask (attr.sample_regs_user: for unwinding). *frames is
 * owned by c and valid until the next call. Returns their number (0: no
 * chain), or -ENOMEM with a message.
 */
long chain_resolve(struct chain_resolver *c, const struct perf_sample *s, uint64_t regs_mask,
		   const struct chain_frame **frames);

#endif
