// SPDX-License-Identifier: MIT
/* sbx report: where the samples of a perf.data fall, by pid/comm/dso/sym. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "parse-options.h"
#include "perf-input.h"
#include "symbol/addrspace.h"
#include "util/error.h"
#include "perf/perf-data.h"
#include "perf/session.h"
#include "profile/hist.h"
#include "profile/stacks.h"
#include "util/output.h"
#include "util/strlist.h"

static const char *const report_usage[] = {
	"sbx report [-i FILE|-] [-s KEY[,KEY...]] [--pid PID[,PID...]] [--tid TID[,TID...]] "
	"[--comm COMM[,COMM...]] "
	"[--dso DSO[,DSO...]] [--symbols SYM[,SYM...]] [-C CPU[,CPU...]] [--time START,STOP] [-n] "
	"[-q] [--stats] [--limit N] "
	"[--percent-limit PCT] [--percentage absolute|relative] [--children] [--no-demangle] "
	"[--json|--folded|--flamegraph FILE]",
	NULL,
};

enum {
	OPT_PID = 0x100,
	OPT_COMM,
	OPT_DSO,
	OPT_NO_DEMANGLE,
	OPT_JSON,
	OPT_FOLDED,
	OPT_FLAMEGRAPH,
	OPT_TID,
	OPT_STDIO,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_LIMIT,
	OPT_SYMBOLS,
	OPT_PERCENT_LIMIT,
	OPT_PERCENTAGE,
	OPT_STATS,
	OPT_TIME,
};

static const struct sbx_option report_options[] = {
	{ "input", 'i', "FILE", "perf.data to read, - for stdin (default ./perf.data)", 0 },
	{ "sort", 's', "KEYS", "group by KEYS: pid, comm, dso, sym, cpu (default comm,dso,sym)",
	  0 },
	{ "pid", 0, "PIDS", "only samples of these processes (comma-separated)", OPT_PID },
	{ "tid", 0, "TIDS", "only samples of these threads (comma-separated)", OPT_TID },
	{ "comm", 0, "COMMS", "only samples of threads with these names", OPT_COMM },
	{ "dso", 0, "DSOS", "only samples in these DSOs (name or path)", OPT_DSO },
	{ "symbols", 0, "SYMS", "only samples in these symbols (names as shown)", OPT_SYMBOLS },
	{ "cpu", 'C', "CPUS", "only the samples taken on these CPUs (0,2-3): the others are "
	  "not counted at all", 0 },
	{ "percentage", 0, "MODE", "absolute (default: shares of all samples) or relative "
	  "(of those the filters keep)", OPT_PERCENTAGE },
	{ "percent-limit", 0, "PCT", "hide rows under PCT percent", OPT_PERCENT_LIMIT },
	{ "time", 0, "START,STOP", "only the samples taken between these times (seconds)",
	  OPT_TIME },
	{ "quiet", 'q', NULL, "no header lines: the rows only", 0 },
	{ "stats", 0, NULL, "the number of records of each type, as perf report --stats",
	  OPT_STATS },
	{ "show-nr-samples", 'n', NULL, "a column of sample counts (perf report -n)", 0 },
	{ "limit", 0, "N", "print the first N rows of each event only", OPT_LIMIT },
	{ "no-demangle", 0, NULL, "print C++ and Rust symbol names as they are in the file",
	  OPT_NO_DEMANGLE },
	{ "children", 0, NULL, "also the samples of the stacks that hold each row (perf's Children)",
	  OPT_CHILDREN },
	{ "no-children", 0, NULL, "the samples in each row only (the default)", OPT_NO_CHILDREN },
	{ "stdio", 0, NULL, "text output (the default; perf report's spelling)", OPT_STDIO },
	{ "json", 0, NULL, "print one JSON array of rows", OPT_JSON },
	{ "folded", 0, NULL, "print one line per unique call stack: comm;frame;... COUNT",
	  OPT_FOLDED },
	{ "flamegraph", 0, "FILE", "write an SVG flame graph of the call stacks to FILE",
	  OPT_FLAMEGRAPH },
	OPT_END,
};

/* what the completions offer for the arguments (--list-values) */
static const struct sbx_option_values report_values[] = {
	{ "sort", "pid comm dso sym cpu" },
	{ "percentage", "absolute relative" },
	{ NULL, NULL },
};

struct report {
	struct hist *hist;
	struct hist_filter filter;
	bool demangle;		/* C++/Rust names as perf shows them (not --no-demangle) */
	struct machine *machine;
	struct perf_data *data;
	struct stacks *stacks;	/* --folded, --flamegraph: stacks instead of rows */
	bool children;		/* --children */
	bool show_nr;		/* -n: a samples column */
	bool relative;		/* --percentage relative: shares of the samples kept */
	bool quiet;		/* -q */
	double percent_limit;	/* --percent-limit */
	struct perf_input_slice slice;	/* -C, --time */
	bool stats;		/* --stats: counts of records instead of rows */
	uint64_t *event_samples;	/* --stats: the samples of each event */
	struct addr_location *frames;	/* a sample's stack, resolved (--children) */
	size_t cap_frames;
};

/* --children: the rows of the sample's stack (its call chain, or its IP alone). */
static int add_chain(struct report *r, size_t event, const struct perf_sample *s,
		     const struct addr_location *leaf)
{
	uint8_t mode = s->cpumode;
	size_t n = 0;

	if (!s->callchain)
		return hist_add_chain(r->hist, event, leaf, 1, s->period);
	if (s->callchain_nr + 1 > r->cap_frames) {
		struct addr_location *v = realloc(r->frames, (s->callchain_nr + 1) * sizeof(*v));

		if (!v)
			return sbx_error(-ENOMEM, "out of memory");
		r->frames = v;
		r->cap_frames = s->callchain_nr + 1;
	}
	/* the sample's own row first: a chain may lack it (empty, or a precise IP) */
	r->frames[n++] = *leaf;
	for (uint64_t i = 0; i < s->callchain_nr; i++)
		if (!perf_callchain_context(s->callchain[i], &mode))
			machine_resolve(r->machine, s->pid, s->tid, mode, s->callchain[i],
					&r->frames[n++]);
	return hist_add_chain(r->hist, event, r->frames, n, s->period);
}

static size_t event_index(struct report *r, const struct perf_data_attr *attr)
{
	for (size_t i = 0; i < perf_data_nr_attrs(r->data); i++)
		if (perf_data_attr(r->data, i) == attr)
			return i;
	return 0;
}

static int on_record(void *ctx, const struct perf_event_header *rec,
		     const struct perf_data_attr *attr, const struct perf_sample *s)
{
	struct report *r = ctx;
	struct addr_location al;
	int err;

	if (rec->type != PERF_RECORD_SAMPLE)
		return machine_process_record(r->machine, rec);
	if (r->stats) {
		r->event_samples[event_index(r, attr)]++;
		return 0;
	}
	/* -C and --time: the other samples are not there at all, as in perf */
	if (!perf_input_sample_wanted(&r->slice, s))
		return 0;
	machine_resolve(r->machine, s->pid, s->tid, s->cpumode, s->ip, &al);
	hist_set_cpu(r->hist, s->cpu);
	/* the filters: rows left out, still in the total (--percentage absolute) */
	if (!hist_filter_match(&r->filter, s->pid, &al))
		return r->stacks ? 0 : hist_add_filtered_out(r->hist, event_index(r, attr), s->period);
	if (r->stacks)
		return stacks_add_sample(r->stacks, r->machine, s, r->demangle);
	err = hist_add(r->hist, event_index(r, attr), &al, s->period);
	if (!err && r->children)
		err = add_chain(r, event_index(r, attr), s, &al);
	return err;
}

static const char *dso_name(const struct hist_row *e)
{
	return e->dso ? e->dso->short_name : "[unknown]";
}

/* The symbol's name as shown: demangled unless --no-demangle. */
static const char *shown_name(const struct report *r, const struct hist_row *e)
{
	if (e->dso)
		return dso_symbol_name(e->dso, e->sym, r->demangle);
	return e->sym->name;
}

static void sym_name(const struct report *r, const struct hist_row *e, char *buf, size_t size,
		     bool marker)
{
	const char *mark = marker ? (e->kernel ? "[k] " : "[.] ") : "";

	if (e->sym)
		snprintf(buf, size, "%s%s", mark, shown_name(r, e));
	else
		snprintf(buf, size, "%s0x%016" PRIx64, mark, e->addr);
}

/* The period percentages are of: all samples (absolute) or those the filters keep (relative). */
static uint64_t event_total(const struct report *r, size_t ev)
{
	return r->relative ? hist_event_period(r->hist, ev) : hist_event_all_period(r->hist, ev);
}

static uint64_t event_samples(const struct report *r, size_t ev)
{
	return r->relative ? hist_event_samples(r->hist, ev) : hist_event_all_samples(r->hist, ev);
}

/* Whether --percent-limit hides row e: its share (children's with --children) under it. */
static bool under_limit(const struct report *r, const struct hist_row *e, uint64_t total)
{
	uint64_t v = r->children ? e->children : e->period;

	return r->percent_limit > 0 && (!total || 100.0 * v / total < r->percent_limit);
}

/* The name of a row's thread (the pid key), as perf shows it: its last name in the file. */
static const char *thread_name(const struct report *r, const struct hist_row *e)
{
	const char *n = machine_thread_name(r->machine, e->tid);

	return n ? n : "";	/* NULL: out of memory for its ":TID" name */
}

static int print_json(struct report *r, struct hist_row *const *rows, size_t nr, long limit)
{
	json_object *arr = json_object_new_array();
	size_t shown = 0, event = (size_t)-1;
	char buf[4096];

	for (size_t i = 0; i < nr; i++) {
		const struct hist_row *e = rows[i];
		json_object *o;
		uint64_t total = event_total(r, e->event);

		if (e->event != event) {
			event = e->event;
			shown = 0;
		}
		if (under_limit(r, e, total) || (limit >= 0 && shown++ >= (size_t)limit))
			continue;
		o = json_object_new_object();
		if (perf_data_nr_attrs(r->data) > 1)
			json_object_object_add(o, "event", json_object_new_string(
				perf_data_attr(r->data, e->event)->name));
		if (hist_has_key(r->hist, HIST_KEY_PID)) {	/* a thread, as in perf */
			json_object_object_add(o, "pid", json_object_new_int64(e->pid));
			json_object_object_add(o, "tid", json_object_new_int64(e->tid));
			json_object_object_add(o, "thread_comm", json_object_new_string(
				thread_name(r, e)));
		}
		if (hist_has_key(r->hist, HIST_KEY_COMM))
			json_object_object_add(o, "comm", json_object_new_string(e->comm));
		if (hist_has_key(r->hist, HIST_KEY_DSO))
			json_object_object_add(o, "dso", json_object_new_string(dso_name(e)));
		if (hist_has_key(r->hist, HIST_KEY_CPU))	/* -1: the samples have none */
			json_object_object_add(o, "cpu", json_object_new_int64((int32_t)e->cpu));
		if (hist_has_key(r->hist, HIST_KEY_SYM)) {
			sym_name(r, e, buf, sizeof(buf), false);
			json_object_object_add(o, "symbol", json_object_new_string(buf));
			/* the name in the file, when demangling changed it */
			if (e->sym && strcmp(e->sym->name, shown_name(r, e)))
				json_object_object_add(o, "mangled",
						       json_object_new_string(e->sym->name));
		}
		json_object_object_add(o, "samples", json_object_new_int64(e->samples));
		json_object_object_add(o, "period", json_object_new_int64(e->period));
		json_object_object_add(o, "percent", json_object_new_double(
			total ? 100.0 * e->period / total : 0));
		if (r->children) {
			json_object_object_add(o, "children_samples",
					       json_object_new_int64(e->children_samples));
			json_object_object_add(o, "children_period",
					       json_object_new_int64(e->children));
			json_object_object_add(o, "children_percent", json_object_new_double(
				total ? 100.0 * e->children / total : 0));
		}
		json_object_array_add(arr, o);
	}
	printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return 0;
}

static void print_text(struct report *r, struct hist_row *const *rows, size_t nr, long limit)
{
	static const char *const titles[HIST_NR_KEYS] = {
		"    Pid:Command", "Command", "Shared Object", "Symbol", "CPU" };	/* perf's titles */
	size_t w[HIST_NR_KEYS] = { 15, 7, 13, 6, 3 };
	const enum hist_key *keys;
	size_t nr_keys = hist_keys(r->hist, &keys);
	char buf[4096];
	size_t start = 0;

	/* a filter of one comm, dso or symbol: perf leaves its column out */
	bool elide[HIST_NR_KEYS] = { false };

	elide[HIST_KEY_COMM] = r->filter.comms.nr == 1;
	elide[HIST_KEY_DSO] = r->filter.dsos.nr == 1;
	elide[HIST_KEY_SYM] = r->filter.syms.nr == 1;
	while (start < nr) {
		size_t ev = rows[start]->event, end = start, shown;
		const struct perf_data_attr *a = perf_data_attr(r->data, ev);
		uint64_t total = event_total(r, ev);

		while (end < nr && rows[end]->event == ev)
			end++;
		for (size_t i = start; i < end; i++) {
			const struct hist_row *e = rows[i];
			size_t n;

			/* perf's "%7d:%-*s" of the thread's tid and name */
			n = 8 + strlen(thread_name(r, e));
			w[HIST_KEY_PID] = n > w[HIST_KEY_PID] ? n : w[HIST_KEY_PID];
			n = strlen(e->comm ? e->comm : "");
			w[HIST_KEY_COMM] = n > w[HIST_KEY_COMM] ? n : w[HIST_KEY_COMM];
			n = strlen(dso_name(e));
			w[HIST_KEY_DSO] = n > w[HIST_KEY_DSO] ? n : w[HIST_KEY_DSO];
		}
		if (!r->quiet) {
			printf("# Samples: %" PRIu64 " of event '%s'\n", event_samples(r, ev),
			       a && a->name ? a->name : "?");
			printf("# Event count: %" PRIu64 "\n#\n# %s%s", total,
			       r->children ? "Children      Self" : "Overhead",
			       r->show_nr ? "       Samples" : "");
			for (size_t k = 0; k < nr_keys; k++) {
				if (elide[keys[k]])
					continue;
				if (keys[k] == HIST_KEY_SYM)
					printf("  %s", titles[keys[k]]);
				else
					printf("  %-*s", (int)w[keys[k]], titles[keys[k]]);
			}
			printf("\n#\n");
		}
		shown = 0;
		for (size_t i = start; i < end; i++) {
			const struct hist_row *e = rows[i];

			if (under_limit(r, e, total))
				continue;
			if (limit >= 0 && shown++ >= (size_t)limit)
				break;
			if (r->children)
				printf("  %7.2f%%", total ? 100.0 * e->children / total : 0.0);
			printf("  %7.2f%%", total ? 100.0 * e->period / total : 0.0);
			if (r->show_nr)
				printf("  %12" PRIu64, e->samples);
			for (size_t k = 0; k < nr_keys; k++) {
				if (elide[keys[k]])
					continue;
				switch (keys[k]) {
				case HIST_KEY_PID:
					printf("  %7u:%-*s", e->tid, (int)w[HIST_KEY_PID] - 8,
					       thread_name(r, e));
					break;
				case HIST_KEY_COMM:
					printf("  %-*s", (int)w[HIST_KEY_COMM], e->comm);
					break;
				case HIST_KEY_DSO:
					printf("  %-*s", (int)w[HIST_KEY_DSO], dso_name(e));
					break;
				case HIST_KEY_CPU:	/* perf's "%*.*d": a sample without one is -001 */
					printf("  %*.*d", (int)w[HIST_KEY_CPU], (int)w[HIST_KEY_CPU],
					       (int)e->cpu);
					break;
				case HIST_KEY_SYM:
					sym_name(r, e, buf, sizeof(buf), true);
					printf("  %s", buf);
					break;
				default:
					break;
				}
			}
			printf("\n");
		}
		start = end;
		if (start < nr && !r->quiet)
			printf("\n");
	}
}

/* --stats: perf report --stats's tables, the records of each type, then each event's samples */
static void print_stats(const struct report *r, const struct session_stats *stats)
{
	struct session_stats st = *stats;
	uint64_t total = 0;

	/* the reader unpacks COMPRESSED records (perf record -z) itself: perf counts them too */
	st.by_type[PERF_RECORD_COMPRESSED] += perf_data_nr_compressed(r->data);
	for (size_t t = 0; t < SESSION_STATS_TYPES; t++)
		total += st.by_type[t];
	printf("\nAggregated stats:\n%16s events: %10" PRIu64 "\n", "TOTAL", total);
	for (size_t t = 0; t < SESSION_STATS_TYPES; t++) {
		const char *name = perf_record_type_name((uint32_t)t);

		/* perf's names here: ATTR, FEATURE, ... (HEADER_ATTR elsewhere) */
		if (name && !strncmp(name, "HEADER_", 7))
			name += 7;
		if (st.by_type[t])
			printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", name ? name : "?",
			       st.by_type[t], 100.0 * st.by_type[t] / total);
	}
	for (size_t i = 0; i < perf_data_nr_attrs(r->data); i++) {
		const struct perf_data_attr *a = perf_data_attr(r->data, i);

		printf("%s stats:\n", a && a->name ? a->name : "?");
		if (r->event_samples[i])
			printf("%16s events: %10" PRIu64 "\n", "SAMPLE", r->event_samples[i]);
	}
}

/* --folded on stdout, or --flamegraph into its file (complete or not there). */
static int write_stacks(struct report *r, const char *input, const char *path)
{
	struct output *out = NULL;
	char title[512];
	FILE *f;
	int err;

	if (!stacks_samples(r->stacks))
		return error("%s: no samples match the filters", input);
	if (!path)
		return stacks_write_folded(r->stacks, stdout) ? error_lib(-EIO, "--folded") :
								 EXIT_OK;
	err = output_open(path, 0644, &out);
	f = err ? NULL : output_stream(out);
	if (!err && !f)
		err = sbx_error_errno(-errno, "cannot write '%s'", path);
	snprintf(title, sizeof(title), "Flame Graph: %s", input);
	if (!err)
		err = stacks_write_svg(r->stacks, f, title);
	if (!err)
		err = output_commit(out);
	else
		output_abort(out);
	return err ? error_lib(err, "--flamegraph") : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report r = { 0 };
	struct sbx_opts p;
	const char *input = "perf.data";
	bool json = sbx_globals.json, folded = false;
	const char *flamegraph = NULL;
	long limit = -1;
	struct perf_input in = { 0 };
	struct hist_row *const *rows;
	enum hist_key keys[HIST_NR_KEYS];
	size_t nr_keys, nr;
	int c, err, ret = EXIT_FAILED;

	r.demangle = true;
	hist_parse_keys("comm,dso,sym", keys, &nr_keys);
	opts_init(&p, "report", report_usage, report_options, argc, argv, 0);
	opts_values(&p, report_values);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case 'i':
			input = p.arg;
			break;
		case 's':
			err = hist_parse_keys(p.arg, keys, &nr_keys);
			if (err == -ENOMEM)
				goto out_opts;
			if (err) {
				ret = opts_usage_error(&p, "bad --sort '%s': keys are pid, comm, "
						       "dso, sym, cpu, each once", p.arg);
				goto out_opts;
			}
			break;
		case OPT_PID:
		case OPT_TID:
			err = perf_input_id_option(&p, c == OPT_PID ? "pid" : "tid",
						   c == OPT_PID ? &r.filter.pids : &r.filter.tids);
			if (err) {
				ret = err == -ENOMEM ? EXIT_FAILED : err;
				goto out_opts;
			}
			break;
		case OPT_STDIO:
			break;	/* perf's spelling of what sbx report always does */
		case OPT_CHILDREN:
		case OPT_NO_CHILDREN:
			r.children = c == OPT_CHILDREN;
			break;
		case OPT_COMM:
			if (strlist_split(&r.filter.comms, p.arg, ','))
				goto out_opts;
			break;
		case OPT_DSO:
			if (strlist_split(&r.filter.dsos, p.arg, ','))
				goto out_opts;
			break;
		case OPT_SYMBOLS:
			if (strlist_split(&r.filter.syms, p.arg, ','))
				goto out_opts;
			break;
		case 'C':
			ret = perf_input_cpu_option(&p, &r.slice.cpus);
			if (ret)
				goto out_opts;
			ret = EXIT_FAILED;
			break;
		case 'q':
			r.quiet = true;
			break;
		case OPT_STATS:
			r.stats = true;
			break;
		case OPT_TIME:
			ret = perf_input_time_option(&p, &r.slice.time);
			if (ret)
				goto out_opts;
			ret = EXIT_FAILED;
			break;
		case OPT_PERCENTAGE:
			if (strcmp(p.arg, "absolute") && strcmp(p.arg, "relative")) {
				ret = opts_usage_error(&p, "--percentage must be absolute or relative, "
						       "not '%s'", p.arg);
				goto out_opts;
			}
			r.relative = !strcmp(p.arg, "relative");
			break;
		case OPT_PERCENT_LIMIT: {
			char *end;

			r.percent_limit = strtod(p.arg, &end);
			if (*end || !*p.arg || !(r.percent_limit >= 0 && r.percent_limit <= 100)) {
				ret = opts_usage_error(&p, "--percent-limit takes a percentage from 0 "
						       "to 100, not '%s'", p.arg);
				goto out_opts;
			}
			break;
		}
		case 'n':
			r.show_nr = true;
			break;
		case OPT_LIMIT: {
			char *end;

			limit = strtol(p.arg, &end, 10);
			if (*end || limit < 0) {
				ret = opts_usage_error(&p, "bad --limit '%s'", p.arg);
				goto out_opts;
			}
			break;
		}
		case OPT_NO_DEMANGLE:
			r.demangle = false;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case OPT_FLAMEGRAPH:
			if (!*p.arg) {
				ret = opts_usage_error(&p, "--flamegraph: an empty file name");
				goto out_opts;
			}
			flamegraph = p.arg;
			break;
		default:
			ret = opts_finish(&p, c);
			goto out;
		}
	}
	if (p.optind < p.argc) {
		ret = opts_usage_error(&p, "unexpected argument '%s'", p.argv[p.optind]);
		goto out_opts;
	}
	if (folded + !!flamegraph + (json && !sbx_globals.json) > 1) {
		ret = opts_usage_error(&p, "--json, --folded and --flamegraph exclude each other");
		goto out_opts;
	}
	opts_finish(&p, c);

	if ((folded || flamegraph) && !(r.stacks = stacks_new())) {
		ret = error("out of memory");
		goto out;
	}
	r.hist = hist_new(keys, nr_keys);
	if (!r.hist) {
		ret = error("out of memory");
		goto out;
	}
	hist_sort_by_children(r.hist, r.children);
	hist_set_demangle(r.hist, r.demangle);
	r.filter.demangle = r.demangle;
	ret = perf_input_open(&in, input);
	if (ret)
		goto out;
	r.data = in.data;
	r.machine = in.machine;
	if (r.stats && !(r.event_samples = calloc(perf_data_nr_attrs(in.data) + 1,
						  sizeof(*r.event_samples)))) {
		ret = error("out of memory");
		goto out;
	}
	ret = perf_input_run(&in, on_record, &r);
	if (ret)
		goto out;
	if (r.stats) {
		print_stats(&r, perf_input_stats(&in));
		ret = EXIT_OK;
		goto out;
	}
	if (!perf_input_samples(&in)) {
		ret = error("%s: no samples", input);
		goto out;
	}
	ret = perf_input_slice_check(&r.slice, &in);
	if (ret)
		goto out;
	if (r.stacks) {
		ret = write_stacks(&r, input, flamegraph);
		goto out;
	}
	rows = hist_sorted(r.hist, &nr);
	if (!rows && hist_total_samples(r.hist)) {
		ret = error("out of memory");
		goto out;
	}
	if (json)
		print_json(&r, rows, nr, limit);
	else if (nr)
		print_text(&r, rows, nr, limit);
	else
		printf("# no samples match the filters\n");
	ret = EXIT_OK;
	goto out;
out_opts:
	opts_finish(&p, c);
	if (ret == EXIT_FAILED)
		ret = error("out of memory");
out:
	free(r.event_samples);
	free(r.frames);
	stacks_free(r.stacks);
	hist_free(r.hist);
	hist_filter_release(&r.filter);
	perf_input_close(&in);
	return ret;
}
