/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_COLLECT_H
#define SBX_PROFILE_COLLECT_H

/*
 * The counts a sample profile is made from, collected per DSO: every
 * sample (its IP, its branch stack, its call chain) is resolved through its
 * own process's address space (symbol/addrspace: no global base address),
 * and counted at file offsets of the DSO that holds it:
 *
 *  - ips: samples per instruction address (IP-only mode, what VMs give);
 *  - stacks: with a branch stack (LBR), the whole stack (newest first) as
 *    seen from each DSO it touches: every end in that DSO as its file
 *    offset, every other end as PG_EXTERNAL; identical stacks are counted
 *    together (ranges and branches are made from them, as llvm-profgen
 *    does, once the binary's instructions are known);
 *  - calls: with call chains (-g), at each return address in the DSO, the
 *    function the call went to (by its symbol name, in whatever DSO).
 *
 * Samples that cannot be counted are counted by reason instead.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/sample.h"
#include "symbol/addrspace.h"
#include "util/hashmap.h"

/* The source of a branch that came from outside the DSO. */
#define PG_EXTERNAL	UINT64_MAX

enum pg_reason {
	PG_KERNEL,		/* the sample is in the kernel */
	PG_NO_MAP,		/* no map of its process holds the address */
	PG_NOT_BINARY,		/* in a DSO that is not a chosen binary */
	PG_BUILD_ID,		/* in a file whose build-id differs from the binary's */
	PG_NO_FUNCTION,		/* in the binary, outside every function */
	PG_NO_LINE,		/* in a function, at an address without a line (line 0) */
	PG_FILTERED,		/* a process not asked for (--pid) */
	PG_NR_REASONS
};

/* "kernel", "no mmap", … as the summary line says them. */
const char *pg_reason_name(enum pg_reason r);

/* A count at one address (16 bytes: a profile of SQLite has some 300,000). */
struct pg_count {
	uint64_t a;
	uint64_t n;
};

/* A branch stack seen from one DSO: nr (from, to) pairs of offsets or PG_EXTERNAL. */
struct pg_stack {
	uint64_t n;		/* samples with this stack */
	uint32_t nr;
	uint64_t ends[];	/* from0, to0, from1, to1, … */
};

/* A call counted at a return address: the callee by name. */
struct pg_call {
	uint64_t ret;		/* file offset of the return address */
	const char *callee;	/* interned by the collector */
	uint64_t n;
};

/* Everything counted in one DSO. */
struct pg_dso {
	struct dso *dso;
	uint64_t samples;		/* user samples whose IP is in it */
	uint64_t lbr_samples;		/* of those, with a branch stack */
	/* the IP of every sample, as it came (counted by pg_dso_ips()) */
	uint64_t *ip_log;
	size_t nr_log, cap_log;
	/* IPs with a repeat count, as they came (a = offset, n = samples) */
	struct pg_count *wlog;
	size_t nr_wlog, cap_wlog;
	struct pg_count *ips;		/* a = offset, n = samples; sorted by offset */
	size_t nr_ips;
	bool ips_taken;			/* handed over by pg_dso_take_ips() */
	struct hashmap stacks;		/* struct pg_stack */
	struct hashmap calls;		/* struct pg_call */
};

struct pg_options {
	bool use_stack;			/* count call chains (not --ignore-stack-samples) */
	const uint32_t *pids;		/* only these processes (NULL: all) */
	size_t nr_pids;
};

struct pg_collector;

/*
 * A collector resolving through m, which the caller feeds with the
 * non-sample records through pg_collector_record(), and ends with
 * pg_collector_flush() before it reads the counts.
 */
struct pg_collector *pg_collector_new(struct machine *m, const struct pg_options *opt);
void pg_collector_free(struct pg_collector *c);

/*
 * A non-sample record, given to the machine; the branch stacks held back
 * (identical ones are counted once, weighted) are counted first when the
 * record can change a process's maps. Returns machine_process_record()'s
 * result, or -ENOMEM.
 */
int pg_collector_record(struct pg_collector *c, const struct perf_event_header *rec);

/* Count the branch stacks held back. Returns 0 or -ENOMEM (with a message). */
int pg_collector_flush(struct pg_collector *c);

/* Count one SAMPLE. Returns 0 or -ENOMEM. */
int pg_collect(struct pg_collector *c, const struct perf_sample *s);

/*
 * pg_collect() of a sample that stands for weight samples (a count line of
 * perf script text): everything it counts counts weight times, at the cost
 * of one sample.
 */
int pg_collect_weighted(struct pg_collector *c, const struct perf_sample *s, uint64_t weight);

/*
 * Count one sample given by its parts, for inputs that are not perf.data
 * (perf script text): ip (0: none), and the branch stack newest first.
 */
int pg_collect_parts(struct pg_collector *c, uint32_t pid, uint8_t cpumode, uint64_t ip,
		     const struct perf_branch_entry_raw *branches, size_t nr_branches);

/*
 * The IP counts of d: distinct offsets, ascending, with their samples
 * (counted once, the first time: a sort, not a hash lookup per sample).
 * Returns their number (0 also when memory ran out: then *out is NULL).
 */
size_t pg_dso_ips(struct pg_dso *d, const struct pg_count **out);

/*
 * Whether branch stacks touched d: those of its own samples, and those of
 * samples taken elsewhere (the kernel, a library, no map) whose branches
 * are in it. Then they are the evidence of its profile, as in llvm-profgen.
 */
bool pg_dso_has_branch_stacks(const struct pg_dso *d);

/*
 * The IP counts of d handed over (the caller frees them; d has none after,
 * and a second take gives none), so that they can be turned into addresses
 * in place: n is their number. NULL with n 0 when d has none, NULL with n 1
 * when memory ran out.
 */
struct pg_count *pg_dso_take_ips(struct pg_dso *d, size_t *n);

/* The DSOs with counts, in the order they were first hit. */
size_t pg_collector_dsos(const struct pg_collector *c, struct pg_dso *const **dsos);

/* The collected data of one DSO, or NULL when it has none. */
struct pg_dso *pg_collector_find(const struct pg_collector *c, const struct dso *dso);

/* Samples counted by reason so far, and samples seen. */
uint64_t pg_collector_dropped(const struct pg_collector *c, enum pg_reason r);
uint64_t pg_collector_samples(const struct pg_collector *c);

/* Move n samples of the counts to reason r (decided later: not the binary, no file, …). */
void pg_collector_drop(struct pg_collector *c, enum pg_reason r, uint64_t n);

#endif
