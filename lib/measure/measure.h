/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_H
#define SBX_MEASURE_H

/*
 * Measuring an assembled snippet (sbx/snippet.h) in a forked child under
 * ptrace and seccomp (sbx/workload.h), the way `sbx run` does.
 *
 * The child lays out memory (a 1 MiB zeroed scratch buffer in RDI, the
 * MEM-MAP blocks, the code at SNIPPET-ADDRESS), builds the repeated code
 * (prologue, register set-up, 2K copies or a loop, epilogue), opens its
 * counters, locks itself with seccomp and then runs the code at K and 2K
 * repetitions, --benchmark-repeat-count times, timing each run with the
 * counter chosen. The cycle counter is, in order of preference: hardware
 * cycles; core cycles estimated from the TSC, calibrated in the same child
 * on a chain of dependent one-cycle adds run alongside each repeat; or
 * task-clock nanoseconds.
 */

#include <stdbool.h>

#include "measure/snippet.h"
#include "measure/workload.h"

/* uops: the PMU's retired micro-ops (RETIRED_OPS, UOPS_RETIRED) as the first value */
enum measure_mode { MEASURE_LATENCY, MEASURE_INVERSE_THROUGHPUT, MEASURE_UOPS };
enum measure_repetition { MEASURE_DUPLICATE, MEASURE_LOOP, MEASURE_MIN };
enum measure_aggregate { MEASURE_AGG_MIN, MEASURE_AGG_MEDIAN, MEASURE_AGG_MEAN,
			 MEASURE_AGG_MIN_VARIANCE };
enum measure_counter { MEASURE_COUNTER_AUTO, MEASURE_COUNTER_HW, MEASURE_COUNTER_TSC,
		       MEASURE_COUNTER_TASK_CLOCK };

#define MEASURE_MAX_EVENTS 8

struct measure_opts {
	enum measure_mode mode;
	enum measure_repetition repetition;
	enum measure_aggregate aggregate;
	enum measure_counter counter;	/* AUTO: hw, else tsc, else task-clock */
	unsigned long min_instructions;	/* > 0 */
	unsigned repeat_count;		/* > 0 */
	bool no_diff;			/* report raw(K) instead of raw(2K) - raw(K) */
	bool allow_syscalls;		/* no seccomp filter */
	int cpu;			/* -1 none */
	double timeout_s;		/* per child; 0 none */
	const volatile sig_atomic_t *stop;	/* set: end the child now (workload_opts.stop) */
	const char *events[MEASURE_MAX_EVENTS];	/* --counters, names for events_parse() */
	int n_events;
	/*
	 * In/out, owned by the caller, shared by the snippets of one run: the
	 * lowest TSC ticks per cycle seen so far (start it at 0). A child whose
	 * ratio is more than 3% above it (its one-cycle chain ran slow: another
	 * thread on the core), whose ratio drifted by more than 2%, or whose
	 * figure is unsteady (figure.h: its own spreads, the two calibrations,
	 * the ratio against this one, the other attempts) is measured again,
	 * up to twice, keeping the steadiest attempt with the lowest ratio; the
	 * first snippet is measured twice to set it. NULL: no check against
	 * other children; an unsteady figure is still measured again.
	 */
	double *tsc_reference;
};

/* Set the defaults of llvm-exegesis: latency, duplicate, min, 10000, 30, diff on. */
void measure_opts_init(struct measure_opts *o);

/*
 * Parse option values; 0 or -EINVAL with a message listing what is valid.
 * llvm-exegesis's middle-half-duplicate and middle-half-loop are taken as
 * duplicate and loop: their 2N - N difference is what sbx does by default.
 */
int measure_parse_mode(const char *s, enum measure_mode *out);
int measure_parse_repetition(const char *s, enum measure_repetition *out);
int measure_parse_aggregate(const char *s, enum measure_aggregate *out);
int measure_parse_counter(const char *s, enum measure_counter *out);
const char *measure_mode_name(enum measure_mode m);
const char *measure_repetition_name(enum measure_repetition r);
const char *measure_aggregate_name(enum measure_aggregate a);

struct measure_value {
	char key[64];			/* "latency", "inverse_throughput", "NumMicroOps" or an
					   event name */
	double value;			/* per instruction */
	double per_snippet_value;	/* per copy of the snippet */
	double uncertainty;		/* relative half-width of the figure's interval (first
					   value only; INFINITY: no figure to trust) */
	const char *unit;		/* "cycles", "ns" (task-clock, cpu-clock) or "count" */
	bool unavailable;		/* an event this machine cannot count (no PMU): the
					   other values were measured; value is NaN */
};

/* Why a snippet was not measured, for a sweep's tally */
enum measure_failure {
	MEASURE_FAIL_NONE,
	MEASURE_FAIL_UNSUPPORTED,	/* SIGILL: this CPU lacks the instruction */
	MEASURE_FAIL_PRIVILEGED,	/* an instruction only the kernel may run */
	MEASURE_FAIL_CRASHED,		/* another signal, or an exit */
	MEASURE_FAIL_TIMEOUT,		/* --timeout ran out */
	MEASURE_FAIL_REFUSED,		/* not run: it could not end (it writes the loop counter) */
	MEASURE_FAIL_OTHER,		/* the harness, a bad report, a counter */
};

struct measure_result {
	/* "" on success, else why the snippet failed, e.g.
	   "SIGSEGV at address 0x10, snippet+0x3: movq (%rbx), %rax" */
	char error[512];
	enum measure_failure failure;	/* its class, when error is set */
	struct workload_status status;	/* how the (failed) child ended */
	char counter[32];		/* "cycles", "tsc-cycles" or "task-clock" */
	char unit[16];			/* "cycles" or "ns" */
	double tsc_per_cycle;		/* the calibration ratio (tsc-cycles only) */
	double drift;			/* relative change of the ratio, first half to second */
	double cross;			/* the multiply chain's calibration against the adds'
					   (relative, tsc-cycles only; NaN: not known) */
	unsigned long repetitions;	/* K: snippet copies (or loop trips × 1) of one run */
	unsigned long instructions;	/* K × the snippet's instruction count */
	int retries;			/* children measured again (tsc_reference) */
	bool exited;			/* the snippet ended its process with exit(0) before
					   it was measured, as llvm-exegesis's checking
					   snippets do: a success with no values */
	bool unsteady;			/* the uncertainty stayed above MEASURE_STEADY */
	struct measure_value values[1 + MEASURE_MAX_EVENTS];
	int n_values;
};

/* The relative uncertainty above which a figure is measured again, then flagged unsteady */
#define MEASURE_STEADY	0.01

/*
 * Whether this machine can measure in mode m: 0, or -EOPNOTSUPP with a
 * message (uops needs a PMU's retired micro-ops event).
 */
int measure_mode_check(enum measure_mode m);

/*
 * Measure the snippet s (assembled) with o, filling *r. A snippet that
 * crashes, exits, hangs or makes a forbidden system call is not a failure
 * of this function: it returns 0 with r->error set. Returns a negative
 * errno (with a message) only when sbx itself cannot measure (no fork, an
 * unknown event, ...).
 */
int measure_snippet(const struct snippet *s, const struct measure_opts *o,
		    struct measure_result *r);

#endif
