/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_DUMP_H
#define SBX_PERF_DUMP_H

/*
 * perf's raw trace dump (perf report -D, perf script -D) as perf 6.1
 * prints it: per record, a line with its offset, the bytes in hex, the
 * timestamp prefix, PERF_RECORD_<NAME> and what perf prints for the type
 * (a SAMPLE's fields in detail); for report, the closing "Aggregated
 * stats". The format is written down in
 * Documentation/formats/perf-dump-raw-trace.md. What is printed for a
 * record, and when, is the caller's (the session's delivery order); this
 * module only formats.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf/perf-data.h"
#include "perf/sample.h"

struct perf_dump {
	FILE *out;
	const struct perf_data *data;
	const char *label;	/* after the offset: the path as given, or "pipe" */
	bool script;		/* script's texts where they differ from report's */
	bool unordered;		/* the records are not ordered (no sample_id_all) */
	uint64_t sample_type;	/* perf's combined sample type: set once non-zero */
	int regs_arch;		/* register names: 0 unknown, 1 x86 */
};

/*
 * Start a dump of data to out. label: the input path as given (perf's
 * file_path), "pipe" for pipe-mode input. script: perf script's texts.
 */
void perf_dump_init(struct perf_dump *pd, FILE *out, const struct perf_data *data,
		    const char *label, bool script);

/*
 * The block of one record: "\n0xOFF@LABEL [0xSIZE]: event: TYPE", its
 * bytes, the timestamp prefix, "0xOFF [0xSIZE]: PERF_RECORD_NAME" and the
 * type's text. off is perf's offset of the record (perf_data_last_offset()
 * when it was read); attr and s are what the session delivered (attr NULL
 * for a SAMPLE of an id no event has: nothing follows its name). A
 * FINISHED_ROUND's text is its end of line (": unhandled!" unordered).
 */
void perf_dump_record(struct perf_dump *pd, int64_t off, const struct perf_event_header *rec,
		      const struct perf_data_attr *attr, const struct perf_sample *s);

/*
 * A SAMPLE with PERF_SAMPLE_READ is handed to the tool once per value
 * (each member of a group) whose count grew since the previous sample of
 * its id, with that growth as its period and the event of that id: up to
 * max of them into attrs[] and periods[] (every value is remembered). A
 * value without an id, or of an id no event has, is not handed on. Returns how many (1 with s's own
 * attr and period for a SAMPLE without READ; 0 when none grew). The values
 * seen are remembered in values (a table the caller keeps per input,
 * perf_dump_values_free() at the end).
 */
struct perf_dump_values;
int perf_dump_sample_values(struct perf_dump_values **values, const struct perf_data *data,
			    const struct perf_data_attr *attr, const struct perf_sample *s,
			    const struct perf_data_attr **attrs, uint64_t *periods, int max);
void perf_dump_values_free(struct perf_dump_values *values);

/* perf's name of a record type in the dump and its stats ("SAMPLE", "ATTR", "UNKNOWN"). */
const char *perf_dump_type_name(uint32_t type);

/*
 * report's closing "Aggregated stats": by_type[t] the records of type t
 * read (t < nr_types; COMPRESSED ones included), aux: the file has the
 * AUXTRACE feature. Then per event (nr_attrs, in file order) its samples
 * and lost samples, skipped when both are 0.
 */
void perf_dump_stats(FILE *out, const uint64_t *by_type, size_t nr_types, bool aux,
		     const struct perf_data *data, const uint64_t *samples,
		     const uint64_t *lost_samples, size_t nr_attrs);

#endif
