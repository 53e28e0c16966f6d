/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYNTHESIZE_H
#define SBX_SYNTHESIZE_H

/*
 * What `sbx record` writes besides the kernel's records: records for what
 * existed before the counters were opened (the kernel's text map, processes
 * and their executable maps from /proc, for -p and -a), the header features
 * (hostname, osrelease, arch, nrcpus, cpudesc, cpuid, total memory, cmdline,
 * clockid, clock data, sample time). The build-ids of the DSOs that got
 * samples are dso-hits.h's; the tracing data, tracing-data.h's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "measure/record.h"

struct perf_data_writer;

/*
 * Emit a PERF_RECORD_MMAP for the kernel text ("[kernel.kallsyms]_text",
 * pid -1, from _text in /proc/kallsyms), with r's sample_id trailer. Does
 * nothing (returns 0) when the addresses are hidden (kptr_restrict).
 * Returns 0 or the sink's negative errno.
 */
int synthesize_kernel_mmap(const struct record *r, record_sink_fn sink, void *ctx);

/*
 * Emit the records of an existing process from /proc/PID: a COMM per thread,
 * a FORK for every thread but the leader, and a MMAP2 per executable
 * mapping (anonymous ones as "//anon"). A process that ended meanwhile is
 * skipped (returns 0). Returns 0 or the sink's negative errno.
 */
int synthesize_process(const struct record *r, pid_t pid, record_sink_fn sink, void *ctx);

/* synthesize_process() for every process in /proc. */
int synthesize_all_processes(const struct record *r, record_sink_fn sink, void *ctx);

/*
 * Add the header features that describe this machine and this recording
 * to w: HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, CPUID,
 * TOTAL_MEM, CMDLINE (argv, argc entries), and CLOCKID + CLOCK_DATA when
 * clockid >= 0. (EVENT_DESC is made by the writer from the attrs.)
 * Returns 0 or a negative errno.
 */
int synthesize_features(struct perf_data_writer *w, int argc, char *const *argv, int clockid);

/* Add SAMPLE_TIME (first and last sample time). */
int synthesize_sample_time(struct perf_data_writer *w, uint64_t first, uint64_t last);

#endif
