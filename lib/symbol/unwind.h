/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_UNWIND_H
#define SBX_SYMBOL_UNWIND_H

/*
 * User stacks unwound from a sample's registers and stack copy
 * (PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER, what `record
 * --call-graph dwarf` takes), with the DWARF call-frame information of the
 * mapped files through elfutils' libdwfl, as perf's unwind-libdw.c does:
 * the process's files are reported to libdwfl at their load addresses as
 * the unwinding reaches them, stack words come from the copy, other memory
 * from the mapped files. x86-64 only.
 *
 *	struct unwinder *u = unwinder_new(machine);
 *	n = unwind_user_stack(u, s, regs_mask, ips, max);	// per sample
 *	unwinder_free(u);
 */

#include <stddef.h>
#include <stdint.h>

#include "perf/sample.h"
#include "symbol/addrspace.h"

/* The most frames unwound: perf's default --max-stack. */
#define UNWIND_MAX_FRAMES 127

struct unwinder;

/* An unwinder over the processes of m; NULL with errno on failure. */
struct unwinder *unwinder_new(struct machine *m);
void unwinder_free(struct unwinder *u);

/*
 * The user stack of sample s, whose regs_user hold the registers of
 * regs_mask (its attr's sample_regs_user): ips[0..n) the frames from the
 * interrupted user IP outwards, callers' return addresses minus 1 (the
 * call, as perf gives them), at most max. Returns n: 0 when the sample has
 * no user registers or stack (or the kernel copied none of it: dyn_size
 * 0), the registers lack IP or SP, or no ELF file
 * is mapped at the IP (JIT code, a process between exec and its maps), as
 * perf; the frames found before an unwinding error are kept (perf's best
 * effort).
 */
size_t unwind_user_stack(struct unwinder *u, const struct perf_sample *s, uint64_t regs_mask,
			 uint64_t *ips, size_t max);

#endif
