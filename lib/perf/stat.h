/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_STAT_H
#define SBX_PERF_STAT_H

/*
 * The counts of a perf stat record file, as perf script shows them (perf
 * 6.1's builtin-script.c and util/stat.c): the thread and CPU maps
 * (THREAD_MAP, CPU_MAP records), the configuration (STAT_CONFIG: the
 * aggregation mode, scaling), each event's counts per CPU and thread
 * (STAT), and at each STAT_ROUND one row per event, thread and CPU:
 *
 *	CPU   THREAD             VAL             ENA             RUN            TIME EVENT
 *
 * Under a per-CPU, per-thread or per-core mode (-A, --per-thread, …) a
 * row's values are what changed since the round before, and with scaling
 * on, a value counted part of the time is scaled up to the whole, as perf
 * does; under the global mode (perf stat's default) they are the counts as
 * recorded. The modes are numbered as perf 6.1 numbers them (6.5 and later
 * insert modes before the per-core one); records are read in the host's
 * byte order (a byte-swapped file's are not swapped).
 */

#include <stdio.h>

#include "perf/perf-data.h"

struct perf_stat_table;

/* An empty table (NULL when out of memory), and its end. */
struct perf_stat_table *perf_stat_table_new(void);
void perf_stat_table_free(struct perf_stat_table *t);

/*
 * Take one of perf stat's records: THREAD_MAP and CPU_MAP (the first of
 * each counts, as in perf), STAT_CONFIG, STAT; and at a STAT_ROUND print
 * the round's rows to out. Other records are not looked at. Returns 0, or a
 * negative errno with a message: -EINVAL for a record cut short, a count
 * of an unknown event, CPU or thread, more than 4 Mi counts (events × CPUs
 * × threads); -ENOMEM; -EIO when out fails.
 */
int perf_stat_table_record(struct perf_stat_table *t, const struct perf_data *d,
			   const struct perf_event_header *rec, FILE *out);

#endif
