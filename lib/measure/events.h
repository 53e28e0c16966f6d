/* SPDX-License-Identifier: MIT */
#ifndef SBX_EVENTS_H
#define SBX_EVENTS_H

/*
 * Event names to struct perf_event_attr, through libpfm4 for hardware and
 * PMU-specific names, and tables of our own for software events, raw
 * encodings and tracepoints.
 */

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

/*
 * Fill *attr (zeroed first; attr->size set) for the event called name:
 *  - software events: cpu-clock, task-clock, page-faults (faults),
 *    minor-faults, major-faults, context-switches (cs), cpu-migrations
 *    (migrations), alignment-faults, emulation-faults, dummy;
 *  - generic hardware events: cycles (cpu-cycles), instructions, branches,
 *    branch-misses, cache-references, cache-misses, ref-cycles, ...;
 *  - raw PMU encodings rNNNN (hex);
 *  - tracepoints "sys:name" (config = the id read from tracefs);
 *  - anything libpfm4 knows, PMU-specific names included
 *    (INST_RETIRED.ANY, uops_issued:any, amd64_fam19h::RETIRED_OPS).
 * User and kernel are both counted (exclude_* bits 0); the caller sets
 * exclude_kernel, sample_period, read_format and the rest as it needs.
 * Returns 0, -ENOENT with an sbx_error message naming close candidates for
 * an unknown name, or another negative errno (e.g. tracefs not mounted).
 */
int events_parse(const char *name, struct perf_event_attr *attr);

/*
 * Every event name events_parse() takes that can be listed, one per line,
 * to f (what the shell completions offer): the named software and hardware
 * events, the tracepoints of tracefs (sys:name, when it is mounted) and
 * the libpfm4 events of the PMUs this machine has. Sorted within each kind.
 */
void events_list(FILE *f);

/*
 * Can this machine count hardware cycles for us (a user-mode
 * PERF_COUNT_HW_CPU_CYCLES counter on this process opens)? The answer is
 * computed once and cached.
 */
bool events_have_hw_cycles(void);

/*
 * Write the folder where tracefs is mounted (/sys/kernel/tracing, or
 * /sys/kernel/debug/tracing, or what /proc/mounts says) into buf.
 * Returns 0, or -ENOENT (with a message) when none is mounted.
 */
int events_tracefs_dir(char *buf, size_t len);

/*
 * perf_event_open(2), which glibc does not wrap. Returns the fd or -1 with
 * errno set.
 */
int events_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
		unsigned long flags);

#endif
