/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_HEADER_INFO_H
#define SBX_PERF_HEADER_INFO_H

/*
 * The header of a perf.data as perf report --header / --header-only and
 * perf script --header print it (perf 6.1's perf_session__fprintf_info()),
 * byte for byte: the block between two "# ========" lines, with the file's
 * modification time, the data section, a line or a few per feature in the
 * order of their bits, and the features the file lacks. Without full, the
 * topology features (CPU, NUMA, cache, memory, hybrid) are one line each
 * that says they are there, as in perf without -I.
 *
 * In pipe mode the features arrive as HEADER_FEATURE records: the block
 * has only the first lines, and each feature is printed as its record
 * passes, with perf_header_fprintf_feature().
 */

#include <stdbool.h>
#include <stdio.h>

#include "perf/perf-data.h"

/* The block, from "# ========" to "# ========\n#\n"; a write error as -EIO. */
int perf_header_fprintf(FILE *f, const struct perf_data *d, bool full);

/*
 * The lines of feature feat alone (pipe mode: after its HEADER_FEATURE
 * record has passed perf_data_next()); nothing when the file lacks it or it
 * cannot be decoded.
 */
void perf_header_fprintf_feature(FILE *f, const struct perf_data *d, unsigned feat, bool full);

/* perf_header_fprintf_feature() of a HEADER_FEATURE record's feature (pipe mode). */
void perf_header_fprintf_feature_record(FILE *f, const struct perf_data *d,
					const struct perf_event_header *rec, bool full);

/*
 * Pipe mode, before any record was read: read the HEADER_ATTR and
 * HEADER_FEATURE records at the start of the stream and print each
 * feature, up to perf's end-of-features record or the first record of
 * the data (perf report --header-only). Nothing in file mode. A write
 * error is -EIO; a read error ends it quietly (the header was printed).
 */
int perf_header_fprintf_pipe_features(FILE *f, struct perf_data *d, bool full);

#endif
