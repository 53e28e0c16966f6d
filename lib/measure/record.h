/* SPDX-License-Identifier: MIT */
#ifndef SBX_RECORD_H
#define SBX_RECORD_H

/*
 * The sampling engine of `sbx record`: counters opened with perf_event_open
 * on a task (following its threads and children) or on every CPU, one
 * mmap ring buffer per CPU, and the draining of those buffers into a sink.
 *
 *	struct record *r = record_new(&cfg);
 *	record_add_event(r, &attr, "cpu-clock");	// once per event
 *	record_open(r, &target);			// counters + ring buffers
 *	... write attrs (record_event_ids), synthesized records ...
 *	record_enable(r);				// or the workload's exec
 *	while (running) { record_poll(r, 100); record_drain(r, sink, ctx); }
 *	record_disable(r); record_drain(r, sink, ctx);
 *	record_free(r);
 *
 * The sink sees every record exactly as the kernel wrote it (a record that
 * wrapped around the end of a ring buffer is handed over as one contiguous
 * copy). Nothing here writes files: the caller chooses what the records
 * become (a perf.data file, a pipe).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "perf/sample.h"

/* The user registers --call-graph dwarf samples: perf's x86-64 PERF_REGS_MASK. */
#define RECORD_USER_REGS 0xff0fffULL

/* How every event is sampled. */
struct record_config {
	uint64_t freq;		/* samples per second per thread; used when period is 0 */
	uint64_t period;	/* sample every PERIOD events; 0: use freq */
	bool callchain;		/* -g: PERF_SAMPLE_CALLCHAIN */
	uint32_t stack_user;	/* --call-graph dwarf: bytes of user stack copied per
				   sample, with the user registers (0: none) */
	bool branch_stack;	/* -b: PERF_SAMPLE_BRANCH_STACK (any branch, hw_idx) */
	int clockid;		/* use_clockid with this clock; -1: the perf clock */
	unsigned mmap_pages;	/* data pages per CPU ring buffer, a power of 2; 0: 128 */
	bool inherit_stat;	/* -s: a READ record of each counter of each thread that ends
				   (perf record -s: inherit_stat, times and id in read_format) */
};

/* Whom the counters follow. */
struct record_target {
	pid_t pid;		/* > 0: this process (and, with inherit, its children) */
	const pid_t *pids;	/* -p with several: these processes (pid is the first) */
	size_t nr_pids;
	bool workload;		/* pid is a corked workload: count from its exec on */
	bool system_wide;	/* every CPU, every process (pid ignored) */
	bool no_inherit;	/* not the children the process starts (perf's --no-inherit) */
	/* -C: system-wide on these CPUs only, a bit each (cpu_bits[cpu / 64]); NULL: all */
	const uint64_t *cpu_bits;
	size_t cpu_bits_words;
};

/* Counts gathered while draining, for the closing summary. */
struct record_stats {
	uint64_t samples;	/* PERF_RECORD_SAMPLE records */
	uint64_t lost;		/* samples the kernel dropped (LOST and LOST_SAMPLES records) */
	uint64_t lost_records;	/* PERF_RECORD_LOST records */
	uint64_t bytes;		/* bytes handed to the sink */
	uint64_t first_time;	/* first and last sample time (0 when none) */
	uint64_t last_time;
};

struct record;

/*
 * Called with each record drained; returns 0 or a negative errno, which
 * stops the drain and is returned by record_drain(). The record is only
 * valid during the call.
 */
typedef int (*record_sink_fn)(void *ctx, const struct perf_event_header *ev);

/* A new, empty recording with cfg copied; NULL with errno on failure. */
struct record *record_new(const struct record_config *cfg);

/* Close every counter, unmap the buffers and free r (NULL is fine). */
void record_free(struct record *r);

/*
 * Add an event. attr gives what to count (type, config, config1/2, and for
 * a tracepoint type PERF_TYPE_TRACEPOINT); record_add_event() fills in the
 * sampling (period or frequency, sample_type, clock, and the tracking bits
 * mmap/comm/task on the first event). name is copied. Must be called
 * before record_open(). Returns 0 or a negative errno.
 */
int record_add_event(struct record *r, const struct perf_event_attr *attr, const char *name);

/* Number of events added. */
size_t record_nr_events(const struct record *r);

/*
 * The attr of event idx as it was (or will be) given to perf_event_open,
 * and its name. Valid until record_free().
 */
const struct perf_event_attr *record_event_attr(const struct record *r, size_t idx);
const char *record_event_name(const struct record *r, size_t idx);

/*
 * The kernel ids of event idx (one per counter opened for it), for the
 * perf.data attr table; *nr receives their number. Valid after
 * record_open() until record_free().
 */
const uint64_t *record_event_ids(const struct record *r, size_t idx, size_t *nr);

/*
 * Open every event on the target: per CPU with inherit for a process and
 * its threads (a workload's counters start disabled and are enabled by its
 * exec), per CPU without a task for system_wide. Maps one ring buffer per
 * CPU. Where the kernel may not be sampled by this user, a task target falls
 * back to user space (record_kernel_excluded()). Errors name the knob to
 * turn (perf_event_paranoid, perf_event_max_sample_rate) or the event.
 * Returns 0 or a negative errno.
 */
int record_open(struct record *r, const struct record_target *t);

/*
 * True when record_open() could not count the kernel (perf_event_paranoid
 * forbids it for this user) and fell back to user space only, as perf does:
 * the events then have exclude_kernel and exclude_hv set.
 */
bool record_kernel_excluded(const struct record *r);

/* Enable (or disable) every counter. Returns 0 or a negative errno. */
int record_enable(struct record *r);
int record_disable(struct record *r);

/*
 * Wait up to timeout_ms for a ring buffer to fill past its watermark (or
 * for a counter's task to end). Returns 0 (also when interrupted by a
 * signal) or a negative errno.
 */
int record_poll(struct record *r, int timeout_ms);

/*
 * Hand every record now in the ring buffers to sink, CPU by CPU, and
 * count samples and lost records into the stats. Returns the number of
 * records drained, or a negative errno (from the sink, or a corrupt
 * record size in a buffer).
 */
long record_drain(struct record *r, record_sink_fn sink, void *ctx);

/*
 * After the last drain (counters disabled): the kernel reports samples it
 * dropped as LOST records, but those dropped just before the end have no
 * record yet. Read each counter's lost count (PERF_FORMAT_LOST, Linux 6.0+),
 * and when it exceeds what the LOST records said, hand the difference to
 * sink as one PERF_RECORD_LOST_SAMPLES record (counted in the stats).
 * Returns 1 when a record was made, 0 when nothing was missing (or the
 * kernel cannot tell), or the sink's negative errno.
 */
int record_flush_lost(struct record *r, record_sink_fn sink, void *ctx);

/* The counts so far. */
const struct record_stats *record_stats(const struct record *r);

/*
 * The sample_type bits every event of r has (IP, TID, TIME, CPU, PERIOD,
 * and IDENTIFIER when there is more than one event): the layout of the
 * start of every SAMPLE and of every sample_id trailer.
 */
uint64_t record_sample_type(const struct record *r);

/*
 * The layout that every event of r shares (record_sample_type() and
 * sample_id_all): how to read the start of any of its SAMPLE records, and
 * the trailer that synthesized records must carry.
 */
void record_sample_layout(const struct record *r, struct perf_sample_layout *l);

/*
 * The trailer values of a record synthesized for (pid, tid): time 0, cpu 0,
 * the first event's first id (valid after record_open()).
 */
void record_id_sample(const struct record *r, uint32_t pid, uint32_t tid, struct perf_sample *s);

/*
 * Whether the kernel accepts a branch-stack sampling counter for attr on
 * this machine: 0 when it does, -EOPNOTSUPP (with a message) when the PMU
 * has no branch stack, another negative errno otherwise.
 */
int record_probe_branch_stack(const struct perf_event_attr *attr);

/*
 * Parse a clock name for -k: "mono"/"monotonic"/"CLOCK_MONOTONIC",
 * "realtime", "boottime", "tai", "monotonic_raw", or a number. Returns the
 * clockid, or a negative errno with a message.
 */
int record_parse_clockid(const char *name);

/* The text of /proc/sys/kernel/perf_event_paranoid, or -99 when unreadable. */
int record_perf_event_paranoid(void);

#endif
