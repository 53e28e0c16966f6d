/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_INPUT_H
#define SBX_PERF_INPUT_H

/*
 * What every command that reads a perf.data needs: the reader, the DSO
 * cache, the machine (per-process address spaces) and the ordered session,
 * opened together and closed together, with the one set of warnings (lost
 * samples, unparsable samples, unknown records) printed the same way.
 */

#include "parse-options.h"
#include "jit/inject.h"
#include "symbol/addrspace.h"
#include "symbol/dso.h"
#include "perf/dump.h"
#include "perf/perf-data.h"
#include "perf/session.h"
#include "util/strlist.h"

struct perf_input {
	const char *path;
	struct perf_data *data;
	struct dso_cache *cache;
	struct machine *machine;
	struct session *session;
	session_fn fn;		/* the command's callback, while running */
	void *ctx;
	/* jitdumps the recorded processes mapped, read directly: their images
	   go into a temporary folder removed at close */
	struct jit_tracker *jit;
	/* the record being delivered, its attr and sample */
	const struct perf_event_header *rec;
	const struct perf_data_attr *attr;
	const struct perf_sample *sample;
	/* -D: every record printed as perf -D prints it */
	struct perf_dump *dump;
	struct perf_dump_values *dump_values;
	uint64_t *dump_samples, *dump_lost;	/* per event: samples handed on, lost */
	struct perf_input_slice *dump_slice;	/* -C, --time of the command, or NULL */
	bool dump_script;			/* perf script -D's ways, not report's */
	size_t dump_nr;
};

/*
 * Open path ("-": standard input) and set up the machine, with the build-ids
 * of the HEADER_BUILD_ID feature applied. Returns 0, or prints the error and
 * returns EXIT_FAILED (perf_input_close() is still to be called).
 */
int perf_input_open(struct perf_input *in, const char *path);

/* A warning naming the features whose sections run past the end of the file, if any. */
void perf_input_warn_broken(const struct perf_data *d, const char *path);

/*
 * Deliver every record in time order to fn(ctx, …); the HEADER_BUILD_ID
 * records of pipe mode are applied to the machine on the way. Afterwards
 * warns about lost and unparsable samples (and, with -v, unknown records).
 * Returns 0, or prints the error and returns EXIT_FAILED.
 */
int perf_input_run(struct perf_input *in, session_fn fn, void *ctx);

/*
 * -D (--dump-raw-trace): perf_input_run() prints every record as perf
 * report -D does (script: perf script -D), when perf prints it (a kernel
 * record when it is delivered in time order, perf's own records when they
 * are read), before the command's callback sees it; a SAMPLE is then
 * followed by its thread and DSO lines, once per value of a group read,
 * each handed to the callback with that value's event and period. The
 * JIT tracker is off: the records are shown as they are. Call after
 * perf_input_open(), before perf_input_run(). unordered: every record as
 * it is read (perf script --dump-unsorted-raw-trace). slice (or NULL):
 * the samples of -C and --time, as perf takes them (script: only theirs
 * get thread and DSO lines; report: their counts alone are in the closing
 * stats, and the time range alone decides the lines). 0 or -ENOMEM.
 */
int perf_input_dump(struct perf_input *in, bool script, bool unordered,
		    struct perf_input_slice *slice);

/* After perf_input_run() with -D: report's closing "Aggregated stats". */
void perf_input_dump_stats(struct perf_input *in);

/* SAMPLE records delivered by perf_input_run(). */
uint64_t perf_input_samples(const struct perf_input *in);

/* The session's counts (every record read, by type), after perf_input_run(); NULL before. */
const struct session_stats *perf_input_stats(const struct perf_input *in);

/* Free everything; a zeroed or half-opened input is fine. */
void perf_input_close(struct perf_input *in);

/*
 * What perf_input_close() undoes outside the process (the temporary images
 * of jitted code), for a command that ends without freeing (see
 * heap_free_at_end()).
 */
void perf_input_remove_temps(struct perf_input *in);

/*
 * --pid or --tid (opt, without the dashes): add the comma-separated ids of
 * p->arg (decimal, as the columns print them) to l. 0; -ENOMEM (nothing
 * said); or the usage error's exit code, said, for an item that is not one.
 */
int perf_input_id_option(struct sbx_opts *p, const char *opt, struct strlist *l);

/* -C/--cpu: the CPUs whose samples are read (perf's list: 0,2-3) */
#define PERF_INPUT_MAX_CPUS 4096
struct perf_input_cpus {
	bool set;			/* a list was given */
	bool seen;			/* a sample had a CPU to compare */
	uint64_t bits[PERF_INPUT_MAX_CPUS / 64];
};

/*
 * Add the CPUs of p->arg ("0,2-3") to c. 0, or the usage error's exit code,
 * said, for a list that is not one.
 */
int perf_input_cpu_option(struct sbx_opts *p, struct perf_input_cpus *c);

/* --time START,STOP: the samples taken in between, ends included (perf's) */
struct perf_input_time {
	bool set;
	uint64_t start, stop;	/* nanoseconds; 0 start / UINT64_MAX stop: open */
};

/*
 * Parse p->arg, "START,STOP" in seconds with up to nine decimals, either
 * left out for an open end, into t. 0, or the usage error's exit code, said.
 */
int perf_input_time_option(struct sbx_opts *p, struct perf_input_time *t);

/* The samples a command reads: -C and --time (the others are not read at all, as in perf) */
struct perf_input_slice {
	struct perf_input_cpus cpus;
	struct perf_input_time time;
};

/* Whether sample s is in the slice (every sample when neither option was given). */
bool perf_input_sample_wanted(struct perf_input_slice *sl, const struct perf_sample *s);

/*
 * After perf_input_run(): 0, or the error, said, of a -C that no sample
 * could answer (the samples carry no CPU).
 */
int perf_input_slice_check(const struct perf_input_slice *sl, const struct perf_input *in);

#endif
