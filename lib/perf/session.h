/* SPDX-License-Identifier: MIT */
#ifndef SBX_SESSION_H
#define SBX_SESSION_H

/*
 * Ordered delivery of the records of a perf.data: records are queued by
 * timestamp and released in rounds (PERF_RECORD_FINISHED_ROUND: what was
 * queued before the previous round's end cannot be overtaken any more), so
 * that an MMAP is always seen before the samples that depend on it, even
 * when another CPU's buffer was written first. Records without a timestamp
 * (time 0 or absent: synthesized records, in-band header records) are
 * delivered at once, in file order, like perf does.
 */

#include <stdint.h>

#include "perf/perf-data.h"

struct session;

/*
 * Called once per record, in time order (in file order when the session is
 * not ordered: see session_ordered()). attr is the record's event (for a
 * non-sample record: the first attr, or the one its trailer names); sample
 * is the parsed SAMPLE, or the sample_id_all trailer of another record.
 * Return 0 to go on, or a negative errno to stop session_run() with it.
 */
typedef int (*session_fn)(void *ctx, const struct perf_event_header *rec,
			  const struct perf_data_attr *attr, const struct perf_sample *sample);

/* The record types session_stats counts: the kernel's, then perf's own from 64 */
#define SESSION_STATS_TYPES	96

struct session_stats {
	uint64_t records;	/* delivered */
	uint64_t by_type[SESSION_STATS_TYPES];	/* every record read, FINISHED_ROUND too */
	uint64_t samples;	/* SAMPLE records delivered */
	uint64_t unordered;	/* records older than what was already delivered */
	uint64_t bad_samples;	/* SAMPLEs that did not parse or name an unknown id */
	int64_t first_bad_offset;	/* the first of them: its offset in the file (-1: not
					   known, a record decompressed or read from a pipe) */
	char first_bad_why[160];	/* and why */
	uint64_t lost;		/* sum of LOST records' counts */
	uint64_t lost_samples;	/* sum of LOST_SAMPLES records' counts */
};

/* A session over d (which the caller keeps open and frees after the session). */
struct session *session_new(struct perf_data *d);

/*
 * Read every record of the data and deliver it to fn in time order.
 * Returns 0, the first negative value fn returned, or the reader's error
 * (with a message) after delivering what came before it.
 */
int session_run(struct session *s, session_fn fn, void *ctx);

/*
 * Whether records are delivered in time order: not for a file whose first
 * event has no sample_id_all (perf's rule: its other records have no time),
 * where every record is delivered as it is read.
 */
bool session_ordered(const struct session *s);

/* Deliver every record as it is read, in file order (perf script --dump-unsorted-raw-trace). */
void session_set_unordered(struct session *s);

/*
 * For a dump of every record (perf report -D): fn is also called for each
 * FINISHED_ROUND as it is read (before the records it releases; attr and
 * sample NULL), and for a SAMPLE of an id no event has (attr NULL, the
 * sample zeroed). Off by default.
 */
void session_set_dump(struct session *s, bool on);

/* perf's offset of the record fn was called with (perf_data_last_offset() when it was read). */
uint64_t session_offset(const struct session *s);

/* Counters of the run so far. */
const struct session_stats *session_stats(const struct session *s);

void session_free(struct session *s);

#endif
