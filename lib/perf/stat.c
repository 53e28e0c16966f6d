// SPDX-License-Identifier: MIT
/* perf stat record's counts, as perf script prints them (see stat.h). */
#include "perf/stat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "perf/records.h"
#include "util/error.h"

/* perf's enum aggr_mode (util/stat.h, perf 6.1) */
enum { AGGR_NONE, AGGR_GLOBAL, AGGR_SOCKET, AGGR_DIE, AGGR_CORE, AGGR_THREAD, AGGR_UNSET,
       AGGR_NODE };

struct counts {
	uint64_t val, ena, run;
};

struct event_counts {
	struct counts *now, *prev;	/* [cpu index * threads + thread] */
};

struct perf_stat_table {
	int *cpus;
	size_t nr_cpus;
	int32_t *pids;
	size_t nr_threads;
	bool have_cpus, have_threads;
	uint64_t aggr_mode, scale;
	struct event_counts *events;	/* per attr of the file, made with the maps */
	size_t nr_events;
	bool header_printed;
};

/* What a file may make us keep and print: 4 Mi counts (two tables of 96 MB) */
#define MAX_COUNTS	((size_t)1 << 22)

static void drop_events(struct perf_stat_table *t)
{
	for (size_t i = 0; i < t->nr_events; i++) {
		free(t->events[i].now);
		free(t->events[i].prev);
	}
	free(t->events);
	t->events = NULL;
	t->nr_events = 0;
}

struct perf_stat_table *perf_stat_table_new(void)
{
	/* no STAT_CONFIG: perf script's zeroed config, AGGR_NONE without scaling */
	return calloc(1, sizeof(struct perf_stat_table));
}

void perf_stat_table_free(struct perf_stat_table *t)
{
	if (!t)
		return;
	drop_events(t);
	free(t->cpus);
	free(t->pids);
	free(t);
}

static int thread_map(struct perf_stat_table *t, const struct perf_event_header *rec)
{
	struct perf_rec_thread_map m;

	if (t->have_threads)
		return 0;	/* perf: "thread map already set, ignoring" */
	if (perf_rec_parse_thread_map(rec, &m))
		return -EINVAL;
	t->pids = malloc((m.nr ? m.nr : 1) * sizeof(*t->pids));
	if (!t->pids)
		return sbx_error(-ENOMEM, "out of memory");
	for (uint64_t i = 0; i < m.nr; i++)
		t->pids[i] = perf_rec_thread_map_pid(&m, i);
	t->nr_threads = m.nr;
	t->have_threads = true;
	return 0;
}

static int cpu_map(struct perf_stat_table *t, const struct perf_event_header *rec)
{
	int err;

	if (t->have_cpus)
		return 0;	/* perf: "cpu map already set, ignoring" */
	if (rec->size < sizeof(*rec))
		return sbx_error(-EINVAL, "a CPU_MAP record is damaged");
	err = perf_cpu_map_decode(rec + 1, rec->size - sizeof(*rec), &t->cpus, &t->nr_cpus);
	if (err == -ENOMEM)
		return sbx_error(err, "out of memory");
	if (err)
		return sbx_error(err, "a CPU_MAP record is damaged");
	t->have_cpus = true;
	return 0;
}

static int stat_config(struct perf_stat_table *t, const struct perf_event_header *rec)
{
	struct perf_rec_stat_config cfg;

	if (perf_rec_parse_stat_config(rec, &cfg))
		return -EINVAL;
	t->aggr_mode = cfg.aggr_mode;
	t->scale = cfg.scale;
	return 0;
}

/* The counts of every event, once both maps are known. */
static int make_events(struct perf_stat_table *t, const struct perf_data *d)
{
	size_t n = perf_data_nr_attrs(d), cells = t->nr_cpus * t->nr_threads;

	if (t->events)
		return 0;
	if (!t->have_cpus || !t->have_threads)
		return sbx_error(-EINVAL, "a STAT record comes before the thread and CPU maps");
	/* more than any machine's CPUs times a stat's threads and events */
	if ((t->nr_threads && t->nr_cpus > MAX_COUNTS / t->nr_threads) ||
	    (cells && n > MAX_COUNTS / cells))
		return sbx_error(-EINVAL, "%zu events on a map of %zu CPUs and %zu threads is too "
				 "many counts", n, t->nr_cpus, t->nr_threads);
	t->events = calloc(n ? n : 1, sizeof(*t->events));
	if (!t->events)
		return sbx_error(-ENOMEM, "out of memory");
	t->nr_events = n;
	for (size_t i = 0; i < n; i++) {
		t->events[i].now = calloc(cells ? cells : 1, sizeof(struct counts));
		t->events[i].prev = calloc(cells ? cells : 1, sizeof(struct counts));
		if (!t->events[i].now || !t->events[i].prev) {
			drop_events(t);
			return sbx_error(-ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int stat_counts(struct perf_stat_table *t, const struct perf_data *d,
		       const struct perf_event_header *rec)
{
	const struct perf_data_attr *a;
	struct perf_rec_stat st;
	size_t e, c;
	int err;

	if (perf_rec_parse_stat(rec, &st))
		return -EINVAL;
	if ((err = make_events(t, d)))
		return err;
	a = perf_data_attr_by_id(d, st.id);
	if (!a || (e = perf_data_attr_index(d, a)) >= t->nr_events)
		return sbx_error(-EINVAL, "a STAT record of event id %" PRIu64 ", which the file "
				 "does not have", st.id);
	for (c = 0; c < t->nr_cpus && t->cpus[c] != st.cpu; c++)
		;
	if (c == t->nr_cpus)
		return sbx_error(-EINVAL, "a STAT record of CPU %d, which the CPU map does not "
				 "have", (int)st.cpu);
	if (st.thread >= t->nr_threads)
		return sbx_error(-EINVAL, "a STAT record of thread %u of a map of %zu", st.thread,
				 t->nr_threads);
	t->events[e].now[c * t->nr_threads + st.thread] = (struct counts){ st.val, st.ena, st.run };
	return 0;
}

/* val * ena / run as perf computes it (in double), saturated where it would not fit */
static uint64_t scaled(uint64_t val, uint64_t ena, uint64_t run)
{
	double v = (double)val * (double)ena / (double)run;

	return v >= 0x1p64 ? UINT64_MAX : (uint64_t)v;
}

/*
 * perf_stat_process_counter(): under the per-CPU, per-thread, per-core, …
 * modes each count becomes what changed since the last round (the raw
 * count kept for the next), then scaled to the whole time when scaling is
 * on and the event ran part of it (0 when it never ran); the global mode
 * leaves the counts as they are.
 */
static void process_counts(struct perf_stat_table *t, struct event_counts *ev)
{
	size_t cells = t->nr_cpus * t->nr_threads;

	if (t->aggr_mode != AGGR_NONE && t->aggr_mode != AGGR_SOCKET &&
	    t->aggr_mode != AGGR_DIE && t->aggr_mode != AGGR_CORE &&
	    t->aggr_mode != AGGR_THREAD && t->aggr_mode != AGGR_NODE)
		return;
	for (size_t i = 0; i < cells; i++) {
		struct counts *n = &ev->now[i], raw = *n;

		n->val -= ev->prev[i].val;
		n->ena -= ev->prev[i].ena;
		n->run -= ev->prev[i].run;
		ev->prev[i] = raw;
		if (!t->scale)
			continue;
		if (!n->run)
			n->val = 0;
		else if (n->run < n->ena)
			n->val = scaled(n->val, n->ena, n->run);
	}
}

static int stat_round(struct perf_stat_table *t, const struct perf_data *d,
		      const struct perf_event_header *rec, FILE *out)
{
	struct perf_rec_stat_round round;
	uint64_t time;
	int err;

	if (perf_rec_parse_stat_round(rec, &round))
		return -EINVAL;
	if (!t->have_cpus || !t->have_threads)
		return 0;	/* perf: no counts were made, nothing to print */
	if ((err = make_events(t, d)))
		return err;
	time = round.time;
	/* perf prints the header with an event's first row */
	if (!t->header_printed && t->nr_events) {
		fprintf(out, "%3s %8s %15s %15s %15s %15s %s\n", "CPU", "THREAD", "VAL", "ENA",
			"RUN", "TIME", "EVENT");
		t->header_printed = true;
	}
	for (size_t e = 0; e < t->nr_events; e++) {
		const char *name = perf_data_attr(d, e)->name;

		process_counts(t, &t->events[e]);
		for (size_t th = 0; th < t->nr_threads; th++)
			for (size_t c = 0; c < t->nr_cpus; c++) {
				const struct counts *n = &t->events[e].now[c * t->nr_threads + th];

				fprintf(out, "%3d %8d %15" PRIu64 " %15" PRIu64 " %15" PRIu64
					" %15" PRIu64 " %s\n", t->cpus[c], (int)t->pids[th], n->val,
					n->ena, n->run, time, name ? name : "");
			}
	}
	return ferror(out) ? sbx_error(-EIO, "cannot write the counts") : 0;
}

int perf_stat_table_record(struct perf_stat_table *t, const struct perf_data *d,
			   const struct perf_event_header *rec, FILE *out)
{
	switch (rec->type) {
	case PERF_RECORD_THREAD_MAP:
		return thread_map(t, rec);
	case PERF_RECORD_CPU_MAP:
		return cpu_map(t, rec);
	case PERF_RECORD_STAT_CONFIG:
		return stat_config(t, rec);
	case PERF_RECORD_STAT:
		return stat_counts(t, d, rec);
	case PERF_RECORD_STAT_ROUND:
		return stat_round(t, d, rec, out);
	}
	return 0;
}
