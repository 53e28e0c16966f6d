/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYNTHESIZE_H
#define SBX_SYNTHESIZE_H

/*
 * What `sbx record` writes besides the kernel's records: records for what
 * existed before the counters were opened (the kernel's text map, processes
 * and their executable maps from /proc, for -p and -a), the header features
 * (hostname, osrelease, arch, nrcpus, cpudesc, cpuid, total memory, cmdline,
 * clockid, clock data, sample time), the build-ids of the DSOs that got
 * samples, and the tracing data of tracepoint events.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sbx/record.h"

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

/*
 * The tracing data for the tracepoint events among r's events (perf's
 * layout, version 0.6: header_page, header_event, the format file of each
 * event grouped by system, printk formats), in a new buffer (*buf, caller
 * frees) of *len bytes. Returns 1 when made, 0 when r has no tracepoint
 * event, or a negative errno (tracefs not mounted, unreadable format).
 */
int synthesize_tracing_data(const struct record *r, void **buf, size_t *len);

/*
 * Which DSOs got samples: follows MMAP/MMAP2/FORK/COMM-exec/EXIT records
 * and resolves each sample's (pid, ip) to the map that holds it, per
 * process (processes of one binary at different addresses are told apart).
 */
struct dso_hits;

/* A new tracker for records of r (its sample_type); NULL with errno. */
struct dso_hits *dso_hits_new(const struct record *r);
void dso_hits_free(struct dso_hits *h);

/* Look at one record (anything the recording writes, synthesized too). */
void dso_hits_observe(struct dso_hits *h, const struct perf_event_header *ev);

/*
 * Resolve the samples that came before their maps in the order of the
 * buffers (a drain pass goes CPU by CPU); call after each pass.
 */
void dso_hits_flush(struct dso_hits *h);

/* Number of distinct DSOs (kernel included) that got at least one sample. */
size_t dso_hits_count(const struct dso_hits *h);

/*
 * Encode the HEADER_BUILD_ID feature: one entry per hit DSO that has a
 * build-id (ELF note; the kernel's from /sys/kernel/notes) into a new
 * buffer (*buf, caller frees). *nr gets the number of entries. Returns 0
 * (with *len 0 when there is none) or a negative errno.
 */
int dso_hits_build_id_feature(const struct dso_hits *h, void **buf, size_t *len, size_t *nr);

#endif
