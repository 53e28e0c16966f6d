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
#include "symbol/chain.h"
#include "util/array.h"
#include "util/error.h"
#include "perf/header-info.h"
#include "perf/perf-data.h"
#include "perf/record-type.h"
#include "perf/records.h"
#include "perf/session.h"
#include "profile/callgraph.h"
#include "profile/hist.h"
#include "profile/stacks.h"
#include "util/hashmap.h"
#include "util/output.h"
#include "util/strlist.h"

static const char *const report_usage[] = {
	"sbx report [-i FILE|-] [-s KEY[,KEY...]] [-F FIELD[,FIELD...]] [--pid PID[,PID...]] "
	"[--tid TID[,TID...]] "
	"[--comm COMM[,COMM...]] "
	"[--dso DSO[,DSO...]] [--symbols SYM[,SYM...]] [-C CPU[,CPU...]] [--time START,STOP] [-n] "
	"[-q] [--stats] [--header|--header-only] [-I] [-T] [-D] [--limit N] "
	"[--percent-limit PCT] [--percentage absolute|relative] [--children] "
	"[-g [MODE,THRESHOLD,ORDER,...]] [-G] [--max-stack N] [--no-inline] [--no-demangle] "
	"[--json|--folded|--flamegraph FILE]",
	NULL,
};

enum {
	OPT_PID = 0x100,
	OPT_COMM,
	OPT_DSO,
	OPT_NO_DEMANGLE,
	OPT_INLINE,
	OPT_NO_INLINE,
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
	OPT_MAX_STACK,
	OPT_HEADER,
	OPT_HEADER_ONLY,
};

static const struct sbx_option report_options[] = {
	{ "input", 'i', "FILE", "perf.data to read, - for stdin (default ./perf.data)", 0 },
	{ "sort", 's', "KEYS", "group and sort by KEYS: pid, comm, dso, sym, cpu, srcline, symoff, "
	  "and "
	  "perf's numbers: overhead, overhead_sys, overhead_us, overhead_children, sample, period "
	  "(default comm,dso,sym)", 0 },
	{ "fields", 'F', "FIELDS", "the columns, in order (perf report -F; +FIELDS: after the "
	  "default ones), the same names as -s", 0 },
	{ "pid", 0, "PIDS", "only samples of these processes (comma-separated)", OPT_PID },
	{ "tid", 0, "TIDS", "only samples of these threads (comma-separated)", OPT_TID },
	{ "comm", 0, "COMMS", "only samples of threads with these names", OPT_COMM },
	{ "comms", 'c', "COMMS", "the same as --comm (perf's spelling)", OPT_COMM },
	{ "dso", 0, "DSOS", "only samples in these DSOs (name or path)", OPT_DSO },
	{ "dsos", 'd', "DSOS", "the same as --dso (perf's spelling)", OPT_DSO },
	{ "symbols", 'S', "SYMS", "only samples in these symbols (names as shown)", OPT_SYMBOLS },
	{ "cpu", 'C', "CPUS", "only the samples taken on these CPUs (0,2-3): the others are "
	  "not counted at all", 0 },
	{ "percentage", 0, "MODE", "absolute (default: shares of all samples) or relative "
	  "(of those the filters keep)", OPT_PERCENTAGE },
	{ "percent-limit", 0, "PCT", "hide rows under PCT percent", OPT_PERCENT_LIMIT },
	{ "time", 0, "START,STOP", "only the samples taken between these times (seconds)",
	  OPT_TIME },
	{ "quiet", 'q', NULL, "no header lines: the rows only", 0 },
	{ "verbose", 'v', NULL, "say more on stderr, as sbx -v (may be repeated)", 0 },
	{ "stats", 0, NULL, "the number of records of each type, as perf report --stats",
	  OPT_STATS },
	{ "header", 0, NULL, "print the recording's header info first, as perf report --header",
	  OPT_HEADER },
	{ "header-only", 0, NULL, "print the recording's header info only", OPT_HEADER_ONLY },
	{ "show-info", 'I', NULL, "with --header: the topology features in full (pipe mode: "
	  "each feature as it passes)", 0 },
	{ "dump-raw-trace", 'D', NULL, "print every record as perf report -D does (its bytes, "
	  "fields and place), then the counts of each type", 0 },
	{ "threads", 'T', NULL, "after the rows, each thread's count of each event from the READ "
	  "records of record -s (perf report -T)", 0 },
	{ "show-nr-samples", 'n', NULL, "a column of sample counts (perf report -n)", 0 },
	{ "limit", 0, "N", "print the first N rows of each event only", OPT_LIMIT },
	{ "inline", 0, NULL, "frames of the functions inlined at unwound frames (the default)",
	  OPT_INLINE },
	{ "no-inline", 0, NULL, "no frames of inlined functions: DWARF is not read",
	  OPT_NO_INLINE },
	{ "no-demangle", 0, NULL, "print C++ and Rust symbol names as they are in the file",
	  OPT_NO_DEMANGLE },
	{ "children", 0, NULL, "also the samples of the stacks that hold each row (perf's Children)",
	  OPT_CHILDREN },
	{ "no-children", 0, NULL, "the samples in each row only (the default)", OPT_NO_CHILDREN },
	{ "call-graph", 'g', "[SPEC]", "call graphs under the rows: graph|flat|fractal|folded|none,"
	  "THRESHOLD[,LIMIT],caller|callee,function|address|srcline,percent|period|count "
	  "(default graph,0.5,caller; with a SPEC, callee unless --children)", 0 },
	{ "inverted", 'G', NULL, "call graphs with the callers first (-g caller)", 0 },
	{ "max-stack", 0, "N", "use the first N frames of each call chain (default 127)",
	  OPT_MAX_STACK },
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
	{ "sort", "pid comm dso sym cpu srcline symoff overhead overhead_sys overhead_us overhead_guest_sys "
	  "overhead_guest_us overhead_children sample period" },
	{ "fields", "pid comm dso sym cpu srcline symoff overhead overhead_sys overhead_us "
	  "overhead_guest_sys overhead_guest_us overhead_children sample period" },
	{ "percentage", "absolute relative" },
	{ "call-graph", "graph flat fractal folded none caller callee function address srcline "
	  "percent period count" },
	{ NULL, NULL },
};

struct report {
	struct hist *hist;
	struct hist_filter filter;
	bool demangle;		/* C++/Rust names as perf shows them (not --no-demangle) */
	bool no_inline;		/* --no-inline */
	struct machine *machine;
	struct perf_data *data;
	struct stacks *stacks;	/* --folded, --flamegraph: stacks instead of rows */
	bool children;		/* --children */
	bool show_nr;		/* -n: a samples column */
	bool header;		/* --header: the header info first (pipe mode: features as they pass) */
	bool show_info;		/* -I */
	bool dump;		/* -D */
	enum cg_key cg_key;	/* -g's key: function, address or srcline */
	bool show_threads;	/* -T: the READ records' counts, summed by thread and event */
	struct thread_counts {
		uint32_t pid, tid;
		uint64_t *v;		/* by counter */
	} **tc;			/* -T: the threads, as their first READ record came */
	size_t nr_tc, cap_tc;
	struct hashmap tc_by_id;	/* those, by pid and tid */
	size_t *counters;	/* -T: the events, as their first READ record came */
	size_t nr_counters, cap_counters;
	size_t *column;		/* -T: by event, its counter + 1 (0: none yet) */
	bool relative;		/* --percentage relative: shares of the samples kept */
	bool quiet;		/* -q */
	double percent_limit;	/* --percent-limit */
	struct perf_input_slice slice;	/* -C, --time */
	bool stats;		/* --stats: counts of records instead of rows */
	uint64_t *event_samples;	/* --stats: the samples of each event */
	struct addr_location *frames;	/* a sample's stack, resolved (--children, -g) */
	uint64_t *ips;			/* its addresses as sampled */
	bool *inlined;			/* its inlined frames (chain_frame.inlined) */
	const char **srclines;		/* -s srcline: its frames' srclines */
	const char *leaf_srcline;	/* -s srcline: the sample's own */
	struct hist_row **rows;		/* the row of each frame */
	struct cg_frame *cursor;	/* -g: its frames in the order the graph is printed */
	size_t cap_frames;
	struct callgraph *cg;		/* -g: the rows' call graphs (NULL: none) */
	struct cg_print_opts cg_opts;
	bool caller;			/* -g caller, -G: callers first */
	size_t max_stack;		/* --max-stack */
	bool sort_sym_first;		/* -s sym...: a graph's first frame is the row's own */
	struct hist_field cols[HIST_NR_KEYS + HIST_NR_NUMS];	/* the columns, in order */
	size_t nr_cols;
	bool strict_fields;		/* -F without '+': overhead is not renamed Self */
	struct hist_field sorts[HIST_NR_KEYS + HIST_NR_NUMS];	/* the rows' order */
	size_t nr_sorts;
	uint64_t stamp;			/* marks rows once per stack (hist_row.mark) */
	struct chain_resolver *chains;	/* the samples' chains: unwound, inline frames */
	char name_buf[1024];		/* frame_name()'s */
};

static int grow_frames(struct report *r, size_t n)
{
	struct addr_location *f;
	uint64_t *ips;
	struct hist_row **rows;
	struct cg_frame *cursor;
	bool *inl;

	if (n <= r->cap_frames)
		return 0;
	inl = realloc(r->inlined, n * sizeof(*inl));
	if (inl)
		r->inlined = inl;
	{
		const char **sl = realloc(r->srclines, n * sizeof(*sl));

		if (!sl)
			return sbx_error(-ENOMEM, "out of memory");
		r->srclines = sl;
	}
	f = realloc(r->frames, n * sizeof(*f));
	if (f)
		r->frames = f;
	ips = realloc(r->ips, n * sizeof(*ips));
	if (ips)
		r->ips = ips;
	rows = realloc(r->rows, n * sizeof(*rows));
	if (rows)
		r->rows = rows;
	cursor = realloc(r->cursor, n * sizeof(*cursor));
	if (cursor)
		r->cursor = cursor;
	if (!f || !ips || !rows || !cursor || !inl)
		return sbx_error(-ENOMEM, "out of memory");
	r->cap_frames = n;
	return 0;
}

/* -g: the chain cursor[0..nr) into row's call graph. */
static int add_to_graph(struct report *r, struct hist_row *row, size_t nr, size_t from,
			uint64_t period)
{
	if (!row->graph && !(row->graph = callgraph_root_new(r->cg)))
		return sbx_error(-ENOMEM, "out of memory");
	if (nr - from > row->depth)
		row->depth = (uint32_t)(nr - from);
	return callgraph_add(r->cg, row->graph, r->cursor + from, nr - from, period);
}

/*
 * The rows of a chain's frames (frames[base + 1..], in the graph's order),
 * as perf's cumulative entries (its fill_callchain_info()) make them: an address no symbol holds is the
 * address as sampled, not relative to its map as in the sample's own row,
 * so the two are two rows; and a frame outside every map keeps the [k] or
 * [.] of the frame before it in the chain's order (the sample's for the
 * first), as perf's reused addr_location does.
 */
static void label_chain_frames(struct report *r, size_t base, size_t nr, bool kernel)
{
	for (size_t k = 0; k < nr; k++) {
		size_t j = base + 1 + k;
		struct addr_location *al = &r->frames[j];

		if (!al->sym)
			al->addr = r->ips[j];
		if (!al->dso && !al->kernel)
			al->kernel = kernel;
		kernel = al->kernel;
	}
}

/*
 * --children and -g: the sample's stack. --children counts it in the rows
 * of its frames (the sample's own row, then its call chain; the IP alone
 * without one). -g adds the chain (without the sample's IP, as perf) to
 * the sample's row's graph and, with --children, the part of it from each
 * frame on to that frame's row (once per row: its first frame in print
 * order), as perf's cumulative entries do.
 */
static int add_chain(struct report *r, size_t event, const struct perf_sample *s,
		     const struct perf_data_attr *attr, const struct addr_location *leaf)
{
	const struct chain_frame *cf;
	size_t n, first = 1, nr_chain, base;
	struct hist_row *self;
	long nr;
	int err;

	nr = chain_resolve(r->chains, s, attr->attr.sample_regs_user, &cf);
	if (nr < 0)
		return (int)nr;
	if (grow_frames(r, (size_t)nr + 1))
		return -ENOMEM;
	/* the sample's own row first: a chain may lack it (empty, or a precise IP) */
	r->frames[0] = *leaf;
	r->ips[0] = s->ip;
	r->inlined[0] = false;
	for (long i = 0; i < nr; i++) {
		r->frames[i + 1] = cf[i].al;
		r->ips[i + 1] = cf[i].ip;
		r->inlined[i + 1] = cf[i].inlined;
	}
	n = (size_t)nr + 1;
	/* --max-stack: perf keeps the first N frames in the graph's order */
	nr_chain = n - 1;
	if (nr_chain > r->max_stack) {
		if (r->caller)
			first = n - r->max_stack;
		nr_chain = r->max_stack;
	}
	base = first - 1;
	r->frames[base] = *leaf;
	r->ips[base] = s->ip;
	r->inlined[base] = false;
	/* the chain in the graph's order (perf's cursor): callers first with caller */
	for (size_t i = base + 1, j = base + nr_chain; r->caller && i < j; i++, j--) {
		struct addr_location t = r->frames[i];
		uint64_t ip = r->ips[i];
		bool inl = r->inlined[i];

		r->frames[i] = r->frames[j];
		r->frames[j] = t;
		r->ips[i] = r->ips[j];
		r->ips[j] = ip;
		r->inlined[i] = r->inlined[j];
		r->inlined[j] = inl;
	}
	label_chain_frames(r, base, nr_chain, leaf->kernel);
	if (r->children) {
		const char **sl = NULL;

		/* the srcline key: each frame's (perf makes its chain's from the IP as
		   sampled, which is not where the frame is: see sbx-report(1)) */
		if (hist_has_key(r->hist, HIST_KEY_SRCLINE)) {
			sl = r->srclines;
			/* the leaf's, from its address before relabelling */
			sl[0] = r->leaf_srcline;
			for (size_t i = 1; i <= nr_chain; i++)
				if (!(sl[i] = chain_srcline(r->chains, &r->frames[base + i])))
					return sbx_error(-ENOMEM, "out of memory");
		}
		err = hist_add_chain(r->hist, event, r->frames + base, nr_chain + 1, s->period,
				     sl, r->rows);
		if (err)
			return err;
		self = r->rows[0];
	} else if (!(self = hist_row_get(r->hist, event, leaf))) {
		return sbx_error(-ENOMEM, "out of memory");
	}
	if (!r->cg || !nr_chain)
		return 0;	/* perf adds no empty chain to a graph */
	for (size_t k = 0; k < nr_chain; k++) {
		size_t j = 1 + k;	/* in frames + base, rows */
		const struct addr_location *al = &r->frames[base + j];

		const char *sl = NULL;
		bool oom;

		if (r->cg_key != CG_KEY_FUNCTION &&
		    !(sl = chain_callchain_srcline(r->chains, al, r->cg_key == CG_KEY_ADDRESS,
						   &oom)) && oom)
			return sbx_error(-ENOMEM, "out of memory");
		r->cursor[k] = (struct cg_frame){ al->dso, al->sym, r->ips[base + j], al->kernel,
						  r->inlined[base + j], sl };
	}
	err = add_to_graph(r, self, nr_chain, 0, s->period);
	if (err || !r->children)
		return err;
	self->mark = ++r->stamp;
	for (size_t k = 0; k < nr_chain && !err; k++) {
		struct hist_row *row = r->rows[1 + k];

		if (row->mark == r->stamp)
			continue;
		row->mark = r->stamp;
		err = add_to_graph(r, row, nr_chain, k, s->period);
	}
	return err;
}

/* Whether tok is a prefix of word (perf takes -g's words abbreviated). */
static bool is_prefix(const char *tok, const char *word)
{
	return *tok && !strncmp(tok, word, strlen(tok));
}

/*
 * -g's value, as perf report reads it: words in any order (a mode, an
 * order, the key, a value kind), a threshold and a print limit as numbers.
 * *graph is cleared by "none"; *order_set says an order was given.
 */
static int parse_call_graph(struct report *r, const char *arg, bool *graph, bool *order_set)
{
	static const struct { const char *word; enum cg_mode mode; } modes[] = {
		{ "graph", CG_GRAPH }, { "flat", CG_FLAT }, { "fractal", CG_FRACTAL },
		{ "folded", CG_FOLDED } };
	static const struct { const char *word; enum cg_value value; } values[] = {
		{ "percent", CG_VALUE_PERCENT }, { "period", CG_VALUE_PERIOD },
		{ "count", CG_VALUE_COUNT } };
	struct strlist l = STRLIST_INIT;
	int numbers = 0, err = 0;

	*graph = true;
	if (strlist_split(&l, arg, ','))
		return sbx_error(-ENOMEM, "out of memory");
	for (size_t i = 0; i < l.nr && !err; i++) {
		const char *t = l.items[i];
		bool known = false;
		char *end;

		if (is_prefix(t, "none")) {
			*graph = false;
			break;
		}
		for (size_t m = 0; m < sizeof(modes) / sizeof(*modes) && !known; m++)
			if (is_prefix(t, modes[m].word)) {
				r->cg_opts.mode = modes[m].mode;
				known = true;
			}
		if (!known && (is_prefix(t, "callee") || is_prefix(t, "caller"))) {
			r->caller = is_prefix(t, "caller") && !is_prefix(t, "callee");
			*order_set = known = true;
		}
		for (size_t v = 0; v < sizeof(values) / sizeof(*values) && !known; v++)
			if (is_prefix(t, values[v].word)) {
				r->cg_opts.value = values[v].value;
				known = true;
			}
		if (known)
			continue;
		if (is_prefix(t, "function") || is_prefix(t, "address") || is_prefix(t, "srcline")) {
			r->cg_key = is_prefix(t, "function") ? CG_KEY_FUNCTION :
				    is_prefix(t, "address") ? CG_KEY_ADDRESS : CG_KEY_SRCLINE;
			continue;
		}
		if (is_prefix(t, "branch")) {
			err = sbx_error(-EINVAL, "bad -g '%s': the key '%s' is not supported (LBR "
					"branch call graphs)", arg, t);
			break;
		}
		if (numbers == 0) {
			r->cg_opts.min_percent = strtod(t, &end);
			if (*end || end == t || !(r->cg_opts.min_percent >= 0 &&
						  r->cg_opts.min_percent <= 100))
				err = sbx_error(-EINVAL, "bad -g '%s': '%s' is not a mode, order, key, "
						"value or threshold", arg, t);
		} else if (numbers == 1) {
			unsigned long v = strtoul(t, &end, 10);

			if (*end || end == t || *t == '-' || v > UINT32_MAX)
				err = sbx_error(-EINVAL, "bad -g '%s': bad print limit '%s'", arg, t);
			r->cg_opts.print_limit = (uint32_t)v;
		} else {
			err = sbx_error(-EINVAL, "bad -g '%s': '%s' is a number after the threshold "
					"and the print limit", arg, t);
		}
		numbers++;
	}
	strlist_release(&l);
	return err;
}

/*
 * -g: a frame's name in a graph, as perf's: the symbol, else the address as
 * sampled; with the keys address and srcline, "NAME SRCLINE" where it has
 * one (" (inlined)" after it).
 */
static const char *frame_name(const struct cg_frame *f, void *ctx)
{
	struct report *r = ctx;
	const char *name;
	size_t n;

	if (!f->sym) {
		snprintf(r->name_buf, sizeof(r->name_buf), "%#" PRIx64, f->ip);
		return r->name_buf;
	}
	name = f->dso ? dso_symbol_name(f->dso, f->sym, r->demangle) : f->sym->name;
	if (!f->srcline)
		return name;
	n = strlen(name);
	if (f->inlined && n > 10 && !strcmp(name + n - 10, " (inlined)"))
		n -= 10;
	snprintf(r->name_buf, sizeof(r->name_buf), "%.*s %s%s", (int)n, name, f->srcline,
		 n < strlen(name) ? " (inlined)" : "");
	return r->name_buf;
}

/* The index of attr among the recording's events. */
static size_t event_index(struct report *r, const struct perf_data_attr *attr)
{
	uintptr_t base = (uintptr_t)perf_data_attr(r->data, 0), a = (uintptr_t)attr;
	size_t i = base && a >= base ? (a - base) / sizeof(*attr) : 0;

	return i < perf_data_nr_attrs(r->data) && perf_data_attr(r->data, i) == attr ? i : 0;
}

/* the most counts -T keeps (threads x events): 128 MiB */
#define MAX_THREAD_COUNTS ((size_t)1 << 24)

static bool thread_is(const void *entry, const void *key)
{
	const struct thread_counts *a = entry, *b = key;

	return a->pid == b->pid && a->tid == b->tid;
}

/*
 * -T: a READ record's value added to its thread's count of its event, as
 * perf's perf_read_values_add_value(): threads and events in the order
 * their first record came. Group reads (PERF_FORMAT_GROUP) are left out.
 */
static int add_read(struct report *r, const struct perf_event_header *rec,
		    const struct perf_data_attr *attr)
{
	struct perf_rec_read rd;
	struct thread_counts key, *tc;
	uint64_t value, h;
	size_t ev, c;

	if (!attr || (attr->attr.read_format & PERF_FORMAT_GROUP))
		return 0;
	if (perf_rec_parse_read(rec, &rd) || !rd.nr) {
		sbx_error_clear();	/* a record without its count: left out */
		return 0;
	}
	key = (struct thread_counts){ rd.pid, rd.tid, NULL };
	value = rd.value;
	ev = event_index(r, attr);
	if (!r->column) {
		r->column = calloc(perf_data_nr_attrs(r->data) + 1, sizeof(*r->column));
		if (!r->column)
			return sbx_error(-ENOMEM, "out of memory");
	}
	h = hash_u64((uint64_t)key.pid << 32 | key.tid);
	tc = hashmap_get(&r->tc_by_id, h, thread_is, &key);
	if ((!r->column[ev] && (r->nr_counters + 1) * (r->nr_tc + !tc) > MAX_THREAD_COUNTS) ||
	    (!tc && (r->nr_tc + 1) * r->nr_counters > MAX_THREAD_COUNTS))
		return sbx_error(-E2BIG, "-T: more than %zu counts of threads by events",
				 MAX_THREAD_COUNTS);
	if (!r->column[ev]) {
		c = r->nr_counters;
		if (array_reserve(&r->counters, &r->cap_counters, c + 1, sizeof(*r->counters)))
			return sbx_error(-ENOMEM, "out of memory");
		r->counters[r->nr_counters++] = ev;
		r->column[ev] = r->nr_counters;
		for (size_t t = 0; t < r->nr_tc; t++) {	/* each thread's counts grow a column */
			uint64_t *v = realloc(r->tc[t]->v, r->nr_counters * sizeof(*v));

			if (!v)
				return sbx_error(-ENOMEM, "out of memory");
			v[c] = 0;
			r->tc[t]->v = v;
		}
	}
	c = r->column[ev] - 1;
	if (!tc) {
		if (array_reserve(&r->tc, &r->cap_tc, r->nr_tc + 1, sizeof(*r->tc)))
			return sbx_error(-ENOMEM, "out of memory");
		tc = malloc(sizeof(*tc));
		if (!tc)
			return sbx_error(-ENOMEM, "out of memory");
		*tc = key;
		tc->v = calloc(r->nr_counters, sizeof(uint64_t));
		if (!tc->v || hashmap_put(&r->tc_by_id, h, tc)) {
			free(tc->v);
			free(tc);
			return sbx_error(-ENOMEM, "out of memory");
		}
		r->tc[r->nr_tc++] = tc;
	}
	tc->v[c] += value;
	return 0;
}

/* -T: perf's table of the counts (perf_read_values__display_pretty()), right-aligned */
static int print_threads(const struct report *r)
{
	int pw = 3, tw = 3, n, *cw = calloc(r->nr_counters ? r->nr_counters : 1, sizeof(*cw));
	char num[32];

	if (!cw)
		return -ENOMEM;
	for (size_t t = 0; t < r->nr_tc; t++) {
		n = snprintf(num, sizeof(num), "%d", (int)r->tc[t]->pid);
		pw = n > pw ? n : pw;
		n = snprintf(num, sizeof(num), "%d", (int)r->tc[t]->tid);
		tw = n > tw ? n : tw;
	}
	for (size_t c = 0; c < r->nr_counters; c++) {
		const struct perf_data_attr *a = perf_data_attr(r->data, r->counters[c]);

		cw[c] = (int)strlen(a && a->name ? a->name : "?");
		for (size_t t = 0; t < r->nr_tc; t++) {
			n = snprintf(num, sizeof(num), "%" PRIu64, r->tc[t]->v[c]);
			cw[c] = n > cw[c] ? n : cw[c];
		}
	}
	printf("# %*s  %*s", pw, "PID", tw, "TID");
	for (size_t c = 0; c < r->nr_counters; c++) {
		const struct perf_data_attr *a = perf_data_attr(r->data, r->counters[c]);

		printf("  %*s", cw[c], a && a->name ? a->name : "?");
	}
	printf("\n");
	for (size_t t = 0; t < r->nr_tc; t++) {
		printf("  %*d  %*d", pw, (int)r->tc[t]->pid, tw, (int)r->tc[t]->tid);
		for (size_t c = 0; c < r->nr_counters; c++)
			printf("  %*" PRIu64, cw[c], r->tc[t]->v[c]);
		printf("\n");
	}
	free(cw);
	return 0;
}

static int on_record(void *ctx, const struct perf_event_header *rec,
		     const struct perf_data_attr *attr, const struct perf_sample *s)
{
	struct report *r = ctx;
	struct addr_location al;
	int err;

	if (rec->type == PERF_RECORD_READ && r->show_threads)
		return add_read(r, rec, attr);
	/* perf prints them with -I too (pipe mode: a file's are in its header) */
	if (rec->type == PERF_RECORD_HEADER_FEATURE && (r->header || r->show_info))
		perf_header_fprintf_feature_record(stdout, r->data, rec, r->show_info);
	if (rec->type != PERF_RECORD_SAMPLE)
		return machine_process_record(r->machine, rec);
	/* -D: the dump printed the sample; the processes are all report keeps */
	if (r->dump)
		return 0;
	if (r->stats) {
		r->event_samples[event_index(r, attr)]++;
		return 0;
	}
	/* -C and --time: the other samples are not there at all, as in perf */
	if (!perf_input_sample_wanted(&r->slice, s))
		return 0;
	machine_resolve(r->machine, s->pid, s->tid, s->cpumode, s->ip, &al);
	/* the srcline key: of the address in the file (perf's map__rip_2objdump()) */
	if (hist_has_key(r->hist, HIST_KEY_SRCLINE)) {
		const char *sl = chain_srcline(r->chains, &al);

		if (!sl)
			return sbx_error(-ENOMEM, "out of memory");
		hist_set_srcline(r->hist, sl);
		r->leaf_srcline = sl;
	}
	/* perf's label of an address no symbol holds: relative to its map (map_ip) */
	if (!al.sym && al.dso)
		al.addr = al.offset;
	hist_set_cpu(r->hist, s->cpu);
	hist_set_cpumode(r->hist, s->cpumode);
	/* the filters: rows left out, still in the total (--percentage absolute) */
	if (!hist_filter_match(&r->filter, s->pid, &al))
		return r->stacks ? 0 : hist_add_filtered_out(r->hist, event_index(r, attr), s->period);
	if (r->stacks) {
		const struct chain_frame *cf;
		long nr = chain_resolve(r->chains, s, attr->attr.sample_regs_user, &cf);

		return nr < 0 ? (int)nr : stacks_add_sample(r->stacks, r->machine, s, cf,
							     (size_t)nr, r->demangle);
	}
	err = hist_add(r->hist, event_index(r, attr), &al, s->period);
	if (!err && (r->children || r->cg))
		err = add_chain(r, event_index(r, attr), s, attr, &al);
	return err;
}

/*
 * -D: perf report -D's output (perf_input_dump() was called): its two
 * header lines (not with --header or -q), every record, the counts.
 */
static int dump_raw_trace(struct report *r, struct perf_input *in)
{
	if (!r->header && !r->quiet)
		printf("# To display the perf.data header info, please use --header/--header-only "
		       "options.\n#\n");
	if (perf_input_run(in, on_record, r))
		return EXIT_FAILED;
	perf_input_dump_stats(in);
	return ferror(stdout) ? error_lib(-EIO, "report") : EXIT_OK;
}

/* Whether any event of the file samples call chains. */
static bool has_callchains(const struct perf_data *d)
{
	for (size_t i = 0; i < perf_data_nr_attrs(d); i++)
		if (perf_data_attr(d, i)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* -g: row e's call graph under its line (text), as perf prints it. */
static int print_graph(struct report *r, const struct hist_row *e, uint64_t total)
{
	r->cg_opts.total = total;
	r->cg_opts.skip_first = r->sort_sym_first;
	if (!e->graph)
		return 0;
	return callgraph_print(stdout, e->graph, r->children ? e->children : e->period,
			       &r->cg_opts, frame_name, r);
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
	else	/* perf's "%#.*llx": no 0x before a 0 */
		snprintf(buf, size, "%s%s%016" PRIx64, mark, e->addr ? "0x" : "", e->addr);
}

/* The symoff key's label: perf's (6.8) "[k] NAME+0xOFFSET", or the address no symbol holds. */
static void symoff_name(const struct report *r, const struct hist_row *e, char *buf, size_t size,
			bool marker)
{
	if (!e->sym) {
		sym_name(r, e, buf, size, marker);
		return;
	}
	snprintf(buf, size, "%s%s+0x%" PRIx64, marker ? (e->kernel ? "[k] " : "[.] ") : "",
		 shown_name(r, e), e->addr - e->sym->start);
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
		if (hist_has_key(r->hist, HIST_KEY_DSO) || hist_has_key(r->hist, HIST_KEY_SYM)) {
			if (hist_has_key(r->hist, HIST_KEY_DSO))
				json_object_object_add(o, "dso", json_object_new_string(dso_name(e)));
			/* the file itself, null outside every map */
			json_object_object_add(o, "dso_path", e->dso ?
					       json_object_new_string(e->dso->path) : NULL);
		}
		if (hist_has_key(r->hist, HIST_KEY_SRCLINE))
			json_object_object_add(o, "srcline", json_object_new_string(e->srcline));
		if (hist_has_key(r->hist, HIST_KEY_SYMOFF)) {
			symoff_name(r, e, buf, sizeof(buf), false);
			json_object_object_add(o, "symoff", json_object_new_string(buf));
		}
		if (hist_has_key(r->hist, HIST_KEY_CPU))	/* -1: the samples have none */
			json_object_object_add(o, "cpu", json_object_new_int64((int32_t)e->cpu));
		if (hist_has_key(r->hist, HIST_KEY_SYM)) {
			sym_name(r, e, buf, sizeof(buf), false);
			json_object_object_add(o, "symbol", json_object_new_string(buf));
			json_object_object_add(o, "kernel", json_object_new_boolean(e->kernel));
			/* no symbol: the address as a number too, as labelled (in its map) */
			if (!e->sym)
				json_object_object_add(o, "address", json_object_new_uint64(e->addr));
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
		if (r->cg) {
			json_object *g;

			r->cg_opts.total = total;
			g = e->graph ? callgraph_json(e->graph, &r->cg_opts, frame_name, r) :
				       json_object_new_array();
			if (!g) {
				json_object_put(o);
				json_object_put(arr);
				return sbx_error(-ENOMEM, "out of memory");
			}
			json_object_object_add(o, "callgraph", g);
		}
		json_object_array_add(arr, o);
	}
	printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return 0;
}

/*
 * perf report's setup_sorting(): the sort order and the columns from -s and
 * -F. -F without '+' names the columns alone, and the sorts are -s's (none
 * without -s); otherwise the sorts are overhead (children first with
 * --children) unless -s names one, then -s's keys (or comm,dso,sym), and the
 * columns the default ones, then -F's. Either list then takes what the
 * other has and it lacks, at its end.
 */
static void setup_fields(struct report *r, const char *sort_arg, const struct hist_field *sorts,
			 size_t nr_sorts, const char *fields_arg, const struct hist_field *fields,
			 size_t nr_fields)
{
	static const struct hist_field def[] = { { false, HIST_KEY_COMM }, { false, HIST_KEY_DSO },
						  { false, HIST_KEY_SYM } };
	const struct hist_field overhead = { true, HIST_NUM_OVERHEAD },
				children = { true, HIST_NUM_CHILDREN };

	r->strict_fields = fields_arg && fields_arg[0] != '+';
	r->nr_sorts = r->nr_cols = 0;
	if (sort_arg || !r->strict_fields) {
		if (!r->strict_fields) {
			/* perf's test is on the text: "overhead_children" holds "overhead" */
			if (r->children && (!sort_arg || !strstr(sort_arg, "overhead_children")))
				hist_field_add(r->sorts, &r->nr_sorts, children);
			if (!sort_arg || !strstr(sort_arg, "overhead"))
				hist_field_add(r->sorts, &r->nr_sorts, overhead);
		}
		if (!sort_arg) {
			sorts = def;
			nr_sorts = sizeof(def) / sizeof(*def);
		}
		for (size_t i = 0; i < nr_sorts; i++)
			hist_field_add(r->sorts, &r->nr_sorts, sorts[i]);
	}
	if (!r->strict_fields) {
		if (r->children)
			hist_field_add(r->cols, &r->nr_cols, children);
		hist_field_add(r->cols, &r->nr_cols, overhead);
		if (r->show_nr)
			hist_field_add(r->cols, &r->nr_cols, (struct hist_field){ true, HIST_NUM_SAMPLES });
	}
	for (size_t i = 0; i < nr_fields; i++)
		hist_field_add(r->cols, &r->nr_cols, fields[i]);
	for (size_t i = 0; i < r->nr_sorts; i++)
		hist_field_add(r->cols, &r->nr_cols, r->sorts[i]);
	for (size_t i = 0; i < r->nr_cols; i++)
		hist_field_add(r->sorts, &r->nr_sorts, r->cols[i]);
}

/* perf's header of a numeric column, and its width */
static const char *num_title(const struct report *r, enum hist_num n, int *width)
{
	static const char *const titles[HIST_NR_NUMS] = {
		"Overhead", "sys", "usr", "guest sys", "guest usr", "Children", "Samples", "Period" };
	static const int widths[HIST_NR_NUMS] = { 8, 8, 8, 9, 9, 8, 12, 12 };

	*width = widths[n];
	/* perf renames Overhead Self next to its default Children column */
	if (n == HIST_NUM_OVERHEAD && r->children && !r->strict_fields)
		return "Self";
	return titles[n];
}

static int print_text(struct report *r, struct hist_row *const *rows, size_t nr, long limit)
{
	static const char *const titles[HIST_NR_KEYS] = {
		"    Pid:Command", "Command", "Shared Object", "Symbol", "CPU",
		"Source:Line", "Symbol Offset" };	/* perf's titles */
	static const size_t w0[HIST_NR_KEYS] = { 15, 7, 13, 6, 3, 11, 13 };
	size_t w[HIST_NR_KEYS];
	char buf[4096];
	size_t start = 0;
	bool sym_padded = false;	/* a symbol column before others: padded */

	/* a filter of one comm, dso or symbol: perf leaves its column out */
	bool elide[HIST_NR_KEYS] = { false };

	elide[HIST_KEY_COMM] = r->filter.comms.nr == 1;
	elide[HIST_KEY_DSO] = r->filter.dsos.nr == 1;
	elide[HIST_KEY_SYM] = r->filter.syms.nr == 1;
	for (size_t k = 0; k + 1 < r->nr_cols; k++)
		sym_padded |= !r->cols[k].num && r->cols[k].id == HIST_KEY_SYM;
	while (start < nr) {
		size_t ev = rows[start]->event, end = start, shown;
		const struct perf_data_attr *a = perf_data_attr(r->data, ev);
		uint64_t total = event_total(r, ev);

		while (end < nr && rows[end]->event == ev)
			end++;
		/* perf sizes the columns of each event by all its rows, hidden ones too */
		memcpy(w, w0, sizeof(w));
		for (size_t i = start; i < end; i++) {
			const struct hist_row *e = rows[i];
			size_t n;

			/* perf's "%7d:%-*s" of the thread's tid and name */
			n = 8 + strlen(thread_name(r, e));
			w[HIST_KEY_PID] = n > w[HIST_KEY_PID] ? n : w[HIST_KEY_PID];
			/* perf sizes the column by each row's thread's last name
			   (thread__comm_len()), and cuts the rows' names to it */
			n = strlen(machine_thread_name(r->machine, e->first_tid) ?: "");
			w[HIST_KEY_COMM] = n > w[HIST_KEY_COMM] ? n : w[HIST_KEY_COMM];
			n = strlen(dso_name(e));
			w[HIST_KEY_DSO] = n > w[HIST_KEY_DSO] ? n : w[HIST_KEY_DSO];
			n = e->srcline ? strlen(e->srcline) : 0;
			w[HIST_KEY_SRCLINE] = n > w[HIST_KEY_SRCLINE] ? n : w[HIST_KEY_SRCLINE];
			if (hist_has_key(r->hist, HIST_KEY_SYM)) {
				sym_name(r, e, buf, sizeof(buf), true);
				n = strlen(buf);
				w[HIST_KEY_SYM] = n > w[HIST_KEY_SYM] ? n : w[HIST_KEY_SYM];
			}
			if (hist_has_key(r->hist, HIST_KEY_SYMOFF)) {
				symoff_name(r, e, buf, sizeof(buf), true);
				n = strlen(buf);
				w[HIST_KEY_SYMOFF] = n > w[HIST_KEY_SYMOFF] ? n : w[HIST_KEY_SYMOFF];
			}
		}
		if (!r->quiet) {
			bool first = true;

			printf("# Samples: %" PRIu64 " of event '%s'\n", event_samples(r, ev),
			       a && a->name ? a->name : "?");
			printf("# Event count: %" PRIu64 "\n#\n", total);
			for (size_t k = 0; k < r->nr_cols; k++) {
				const struct hist_field *f = &r->cols[k];
				int nw;

				if (!f->num && elide[f->id])
					continue;
				printf("%s", first ? "# " : "  ");
				first = false;
				if (f->num) {
					const char *t = num_title(r, f->id, &nw);

					printf("%*s", nw, t);
				}
				else
					printf("%-*s", (int)w[f->id], titles[f->id]);
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
			for (size_t k = 0; k < r->nr_cols; k++) {
				const struct hist_field *f = &r->cols[k];
				int nw;

				if (f->num) {
					uint64_t v = hist_row_num(e, f->id);

					num_title(r, f->id, &nw);
					if (f->id == HIST_NUM_CHILDREN && !r->children)
						printf("  %*s", nw, "N/A");
					else if (f->id == HIST_NUM_SAMPLES || f->id == HIST_NUM_PERIOD)
						printf("  %*" PRIu64, nw, v);
					else	/* perf's " %*.2f%%" */
						printf("  %*.2f%%", nw - 1, total ? 100.0 * v / total : 0.0);
					continue;
				}
				if (elide[f->id])
					continue;
				switch (f->id) {
				case HIST_KEY_PID:
					printf("  %7u:%-*s", e->tid, (int)w[HIST_KEY_PID] - 8,
					       thread_name(r, e));
					break;
				case HIST_KEY_COMM:
					printf("  %-*.*s", (int)w[HIST_KEY_COMM],
					       (int)w[HIST_KEY_COMM], e->comm);
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
					/* not the last column: padded to the longest, as perf pads */
					printf("  %-*s", sym_padded ? (int)w[HIST_KEY_SYM] : 0, buf);
					break;
				case HIST_KEY_SRCLINE:
					/* perf's "%-.*s": last, it is not padded */
					printf("  %-*s", k + 1 < r->nr_cols ? (int)w[HIST_KEY_SRCLINE] : 0,
					       e->srcline);
					break;
				case HIST_KEY_SYMOFF:
					symoff_name(r, e, buf, sizeof(buf), true);
					printf("  %-*s", k + 1 < r->nr_cols ? (int)w[HIST_KEY_SYMOFF] : 0,
					       buf);
					break;
				default:
					break;
				}
			}
			printf("\n");
			if (r->cg && print_graph(r, e, total) == -ENOMEM)
				return -ENOMEM;
		}
		start = end;
		if (start < nr && !r->quiet)
			printf("\n");
	}
	return 0;
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
	bool json = sbx_globals.json, folded = false, header_only = false;
	bool graph = false, order_set = false, children_set = false;
	const char *flamegraph = NULL;
	long limit = -1;
	struct perf_input in = { 0 };
	struct hist_row *const *rows;
	enum hist_key keys[HIST_NR_KEYS];
	size_t nr_keys = 0, nr;
	struct hist_field sorts[HIST_NR_KEYS + HIST_NR_NUMS], fields[HIST_NR_KEYS + HIST_NR_NUMS];
	size_t nr_sorts = 0, nr_fields = 0;
	const char *sort_arg = NULL, *fields_arg = NULL;
	int c, err, ret = EXIT_FAILED;

	r.demangle = true;
	r.max_stack = 127;	/* perf's default (its sysctl_perf_event_max_stack) */
	r.cg_opts = (struct cg_print_opts){ .mode = CG_GRAPH, .value = CG_VALUE_PERCENT,
					    .min_percent = 0.5 };
	opts_init(&p, "report", report_usage, report_options, argc, argv, 0);
	opts_values(&p, report_values);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case 'i':
			input = p.arg;
			break;
		case 's':
		case 'F': {
			const char *a = c == 'F' && p.arg[0] == '+' ? p.arg + 1 : p.arg;

			err = hist_parse_fields(a, c == 's' ? sorts : fields,
						c == 's' ? &nr_sorts : &nr_fields);
			if (err == -ENOMEM)
				goto out_opts;
			if (err) {
				ret = opts_usage_error(&p, "bad %s '%s': %s", c == 's' ? "--sort" :
						       "--fields", p.arg, sbx_error_msg());
				goto out_opts;
			}
			if (c == 's')
				sort_arg = p.arg;
			else
				fields_arg = p.arg;
			break;
		}
		case 'g':
			/* bare -g is perf's default spec, graph,0.5,caller,function,percent */
			graph = true;
			err = parse_call_graph(&r, p.arg ? p.arg : "graph,0.5,caller,function,percent",
					       &graph, &order_set);
			if (err == -ENOMEM)
				goto out_opts;
			if (err) {
				ret = opts_usage_error(&p, "%s", sbx_error_msg());
				goto out_opts;
			}
			break;
		case 'G':
			graph = r.caller = order_set = true;
			break;
		case OPT_MAX_STACK: {
			char *end;
			long v = strtol(p.arg, &end, 10);

			if (*end || end == p.arg || v < 0) {
				ret = opts_usage_error(&p, "bad --max-stack '%s'", p.arg);
				goto out_opts;
			}
			r.max_stack = (size_t)v;
			break;
		}
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
			children_set = true;
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
		case 'v':
			sbx_globals.verbose++;
			break;
		case OPT_STATS:
			r.stats = true;
			break;
		case OPT_HEADER:
			r.header = true;
			break;
		case OPT_HEADER_ONLY:
			header_only = true;
			break;
		case 'I':
			r.show_info = true;
			break;
		case 'T':
			r.show_threads = true;
			break;
		case 'D':
			r.dump = true;
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
		case OPT_INLINE:
		case OPT_NO_INLINE:
			r.no_inline = c == OPT_NO_INLINE;
			break;
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
	if (r.show_threads && (folded || flamegraph || json || r.stats)) {
		ret = opts_usage_error(&p, "-T prints a table after the rows: not with --json, "
				       "--folded, --flamegraph or --stats");
		goto out_opts;
	}
	if ((r.header || header_only) && (folded || flamegraph || json)) {
		ret = opts_usage_error(&p, "--header and --header-only print text: not with --json, "
				       "--folded or --flamegraph");
		goto out_opts;
	}
	if (r.dump && (folded || flamegraph || json || r.stats || r.show_threads || header_only)) {
		ret = opts_usage_error(&p, "-D prints every record: not with --json, --folded, "
				       "--flamegraph, --stats, -T or --header-only");
		goto out_opts;
	}
	if (graph && (folded || flamegraph || r.stats)) {
		ret = opts_usage_error(&p, "-g and -G print graphs under rows: not with --folded, "
				       "--flamegraph or --stats");
		goto out_opts;
	}
	opts_finish(&p, c);

	ret = perf_input_open(&in, input);
	if (ret)
		goto out;
	/* -D: perf's warning of an unordered file comes as it opens it, before the header */
	if (r.dump && perf_input_dump(&in, false, false, &r.slice)) {
		ret = error("out of memory");
		goto out;
	}
	if (header_only) {
		/* perf report: in pipe mode the features that follow too */
		ret = perf_header_fprintf(stdout, in.data, r.show_info) ||
		      perf_header_fprintf_pipe_features(stdout, in.data, r.show_info) ?
		      error_lib(-EIO, "report") : EXIT_OK;
		goto out;
	}
	if (r.header && perf_header_fprintf(stdout, in.data, r.show_info)) {
		ret = error_lib(-EIO, "report");
		goto out;
	}
	r.data = in.data;
	r.machine = in.machine;
	if (r.dump) {
		ret = dump_raw_trace(&r, &in);
		goto out;
	}
	/* perf: with call graphs, --children; with --children, the callers first unless told */
	if (graph && !children_set)
		r.children = true;
	/* perf: --children silently off when no event of a file records call chains */
	if (!perf_data_is_pipe(in.data) && !has_callchains(in.data))
		r.children = false;
	if (!order_set)
		r.caller = r.children;
	setup_fields(&r, sort_arg, sorts, nr_sorts, fields_arg, fields, nr_fields);
	for (size_t i = 0; i < r.nr_sorts; i++)
		if (!r.sorts[i].num)
			keys[nr_keys++] = r.sorts[i].id;
	/* perf: a graph's first frame, the row's own, is not printed when -s starts with
	   sym and there is no -F (its test is on the text) */
	r.sort_sym_first = !fields_arg && sort_arg && !strncmp(sort_arg, "sym", 3);
	if (graph) {
		if (!(r.cg = callgraph_new())) {
			ret = error("out of memory");
			goto out;
		}
		callgraph_set_key(r.cg, r.cg_key);
		r.cg_opts.key = r.cg_key;
	}
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
	hist_set_sort(r.hist, r.sorts, r.nr_sorts);
	hist_set_depth_order(r.hist, r.cg ? (r.caller ? 1 : -1) : 0);
	hist_set_demangle(r.hist, r.demangle);
	r.filter.demangle = r.demangle;
	if (!(r.chains = chain_resolver_new(r.machine))) {
		ret = error("out of memory");
		goto out;
	}
	/* perf report's --inline (its default): the functions inlined at unwound frames (6.1) */
	chain_resolver_set_inlines(r.chains, r.no_inline ? CHAIN_INLINES_NONE :
				   CHAIN_INLINES_UNWOUND, r.demangle);
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
	if (r.cg && !has_callchains(r.data)) {
		ret = error("%s: -g, but no call chains in the file (record with -g)", input);
		goto out;
	}
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
		err = print_json(&r, rows, nr, limit);
	else if (nr)
		err = print_text(&r, rows, nr, limit);
	else
		err = printf("# no samples match the filters\n") < 0 ? -EIO : 0;
	if (!err && r.show_threads) {	/* perf prints it after the rows, with -q too */
		printf("\n");
		err = print_threads(&r);
		if (!err && ferror(stdout))
			err = -EIO;
	}
	ret = err ? error_lib(err, "report") : EXIT_OK;
	goto out;
out_opts:
	opts_finish(&p, c);
	if (ret == EXIT_FAILED)
		ret = error("out of memory");
out:
	for (size_t t = 0; t < r.nr_tc; t++) {
		free(r.tc[t]->v);
		free(r.tc[t]);
	}
	free(r.tc);
	hashmap_release(&r.tc_by_id);
	free(r.counters);
	free(r.column);
	free(r.event_samples);
	free(r.frames);
	free(r.ips);
	free(r.rows);
	free(r.cursor);
	callgraph_free(r.cg);
	chain_resolver_free(r.chains);
	free(r.inlined);
	free(r.srclines);
	stacks_free(r.stacks);
	hist_free(r.hist);
	hist_filter_release(&r.filter);
	perf_input_close(&in);
	return ret;
}
