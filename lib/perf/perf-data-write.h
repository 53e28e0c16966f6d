/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_DATA_WRITE_H
#define SBX_PERF_DATA_WRITE_H

/*
 * The perf.data writer: file mode, laid down as perf does (header, attr
 * ids, attrs, data, feature table, features), or pipe mode (a 16-byte
 * header, then HEADER_ATTR / HEADER_FEATURE records, then the records).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "perf/perf-data.h"

struct perf_data_writer;

/*
 * Start writing a perf.data through util/output.h: a file gets file mode,
 * complete at perf_data_writer_close() or not there at all; "-" (stdout),
 * a FIFO or a character device get pipe mode, which needs no seeking.
 * Returns 0 with *out set, or a negative errno with a message.
 */
int perf_data_writer_open(const char *path, struct perf_data_writer **out);

/* File mode: keep the file replaced as PATH.old (output_keep_old()); a stream: nothing. */
void perf_data_writer_keep_old(struct perf_data_writer *w, char **kept);

/* True when w writes pipe mode (its output is a stream). */
bool perf_data_writer_is_pipe(const struct perf_data_writer *w);

/*
 * Add an event. Every attr must be added before the first record. attr is
 * copied (its size field is set to this build's sizeof); name (may be
 * NULL) goes into EVENT_DESC (file mode) or an EVENT_UPDATE record (pipe
 * mode). ids (may be NULL when there is a single event) are the ids the
 * kernel gave this event's instances (PERF_EVENT_IOC_ID); with more than
 * one attr every attr needs PERF_SAMPLE_IDENTIFIER and its ids.
 */
int perf_data_writer_add_attr(struct perf_data_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids);

/*
 * Append one record: rec starts with struct perf_event_header, and
 * header.size bytes (a multiple of 8) are copied. Records are buffered.
 */
int perf_data_writer_write(struct perf_data_writer *w, const void *rec);

/*
 * Add a feature section (raw payload in the encoding of perf's header.c)
 * for feat (HEADER_HOSTNAME, …). Each feature once. In file mode they are
 * written at close, after the data; EVENT_DESC is made from the attrs
 * unless given here. In pipe mode the payload is written at once as a
 * HEADER_FEATURE record, except HEADER_TRACING_DATA (a HEADER_TRACING_DATA
 * record) and HEADER_BUILD_ID (one HEADER_BUILD_ID record per entry).
 */
int perf_data_writer_add_feature(struct perf_data_writer *w, int feat, const void *buf,
				 size_t len);

/* Add a feature that is one perf string (u32 len; chars padded with NULs to 64). */
int perf_data_writer_add_feature_string(struct perf_data_writer *w, int feat, const char *s);

/* Add a feature that is a list of perf strings (u32 nr, then each string): CMDLINE. */
int perf_data_writer_add_feature_strings(struct perf_data_writer *w, int feat, size_t nr,
					 char *const *strings);

/* The bytes of s as a perf string: u32 length, then s NUL-padded to a multiple of 64. */
size_t perf_string_size(const char *s);

/* Encode s as a perf string at p (perf_string_size(s) bytes); returns that size. */
size_t perf_string_put(void *p, const char *s);

/* Bytes of records written so far (for the closing summary line). */
uint64_t perf_data_writer_data_size(const struct perf_data_writer *w);

/*
 * perf record -z: from now on the records are compressed with zstd at
 * level (1 to 22), into COMPRESSED records (one zstd stream through the
 * data, flushed every 32 KiB of the records staged, never ended, as perf's),
 * and the file
 * gets HEADER_COMPRESSED (version 1, zstd, the level, the ratio, mmap_len
 * 512 KiB); a stream gets it at once, as a HEADER_FEATURE record, ratio 0.
 * After the attrs, before the first record. 0, or -EINVAL / -ENOMEM.
 */
int perf_data_writer_set_compression(struct perf_data_writer *w, int level);

/* Bytes of COMPRESSED records written so far (0 without compression). */
uint64_t perf_data_writer_compressed_size(const struct perf_data_writer *w);

/*
 * Finish: write what is buffered, the attrs, features and header, and
 * commit the output (file mode: synced and put in place). Frees w in
 * every case. Returns 0 or a negative errno (then no file is left behind,
 * and an older file of that name is as it was).
 */
int perf_data_writer_close(struct perf_data_writer *w);

/* Give up: no file is left behind (a stream keeps what it got). Frees w; NULL is allowed. */
void perf_data_writer_abort(struct perf_data_writer *w);

#endif
