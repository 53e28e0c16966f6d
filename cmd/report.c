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
#include "sbx/addrspace.h"
#include "sbx/error.h"
#include "sbx/perf-data.h"
#include "sbx/session.h"

static const char *const report_usage[] = {
	"sbx report [-i FILE|-] [-s KEY[,KEY...]] [--pid PID[,PID...]] [--comm COMM[,COMM...]] "
	"[--dso DSO[,DSO...]] [-n N] [--no-demangle] [--json]",
	NULL,
};

enum {
	OPT_PID = 0x100,
	OPT_COMM,
	OPT_DSO,
	OPT_NO_DEMANGLE,
	OPT_JSON,
};

static const struct sbx_option report_options[] = {
	{ "input", 'i', "FILE", "perf.data to read, - for stdin (default ./perf.data)", 0 },
	{ "sort", 's', "KEYS", "group by KEYS: pid, comm, dso, sym (default comm,dso,sym)", 0 },
	{ "pid", 0, "PIDS", "only samples of these processes (comma-separated)", OPT_PID },
	{ "comm", 0, "COMMS", "only samples of threads with these names", OPT_COMM },
	{ "dso", 0, "DSOS", "only samples in these DSOs (name or path)", OPT_DSO },
	{ "limit", 'n', "N", "print the first N rows of each event only", 0 },
	{ "no-demangle", 0, NULL, "print C++ and Rust symbol names as they are in the file",
	  OPT_NO_DEMANGLE },
	{ "json", 0, NULL, "print one JSON array of rows", OPT_JSON },
	OPT_END,
};

enum sort_key { KEY_PID, KEY_COMM, KEY_DSO, KEY_SYM, NR_KEYS };

static const char *const key_names[NR_KEYS] = { "pid", "comm", "dso", "sym" };

/* A row: one value of the sort keys within one event. */
struct entry {
	size_t event;
	uint32_t pid;
	const char *comm;		/* interned */
	struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;			/* when sym is NULL: the address, for the name */
	bool kernel;
	uint64_t samples, period;
};

struct list {
	char **items;
	size_t nr;
};

struct report {
	enum sort_key keys[NR_KEYS];
	size_t nr_keys;
	bool use[NR_KEYS];
	struct list pids, comms, dsos;
	bool demangle;		/* C++/Rust names as perf shows them (not --no-demangle) */
	struct machine *machine;
	struct perf_data *data;
	/* rows, in a hash table keyed by the sort values */
	struct entry **table;
	size_t table_size, nr_entries;
	uint64_t *event_samples, *event_period;
	size_t nr_events;
	uint64_t filtered;
};

static int split_list(const char *arg, struct list *l)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **v = realloc(l->items, (l->nr + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->items = v;
		l->items[l->nr] = strdup(t);
		if (!l->items[l->nr])
			return -ENOMEM;
		l->nr++;
	}
	free(copy);
	return 0;
}

static void free_list(struct list *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->items[i]);
	free(l->items);
}

static bool in_list(const struct list *l, const char *s)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i], s))
			return true;
	return false;
}

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static uint64_t entry_hash(const struct entry *e)
{
	uint64_t h = e->event;

	h = hash_mix(h, e->pid);
	h = hash_mix(h, (uintptr_t)e->comm);
	h = hash_mix(h, (uintptr_t)e->dso);
	h = hash_mix(h, (uintptr_t)e->sym);
	h = hash_mix(h, e->addr);
	h = hash_mix(h, e->kernel);
	/* a finalizer, so that the low bits used by the table depend on every bit */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 33);
}

static bool entry_eq(const struct entry *a, const struct entry *b)
{
	return a->event == b->event && a->pid == b->pid && a->comm == b->comm &&
	       a->dso == b->dso && a->sym == b->sym && a->addr == b->addr &&
	       a->kernel == b->kernel;
}

static int table_grow(struct report *r)
{
	size_t size = r->table_size ? 2 * r->table_size : 1024;
	struct entry **t = calloc(size, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < r->table_size; i++) {
		size_t h;

		if (!r->table[i])
			continue;
		h = entry_hash(r->table[i]) & (size - 1);
		while (t[h])
			h = (h + 1) & (size - 1);
		t[h] = r->table[i];
	}
	free(r->table);
	r->table = t;
	r->table_size = size;
	return 0;
}

static int add_entry(struct report *r, const struct entry *key, uint64_t period)
{
	size_t h;

	if ((r->nr_entries + 1) * 2 > r->table_size && table_grow(r))
		return sbx_error(-ENOMEM, "out of memory");
	for (h = entry_hash(key) & (r->table_size - 1); r->table[h];
	     h = (h + 1) & (r->table_size - 1)) {
		if (entry_eq(r->table[h], key)) {
			r->table[h]->samples++;
			r->table[h]->period += period;
			return 0;
		}
	}
	r->table[h] = malloc(sizeof(*key));
	if (!r->table[h])
		return sbx_error(-ENOMEM, "out of memory");
	*r->table[h] = *key;
	r->table[h]->samples = 1;
	r->table[h]->period = period;
	r->nr_entries++;
	return 0;
}

static size_t event_index(struct report *r, const struct perf_data_attr *attr)
{
	for (size_t i = 0; i < perf_data_nr_attrs(r->data); i++)
		if (perf_data_attr(r->data, i) == attr)
			return i;
	return 0;
}

static int grow_events(struct report *r, size_t n)
{
	if (n <= r->nr_events)
		return 0;
	uint64_t *s = realloc(r->event_samples, n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	r->event_samples = s;
	s = realloc(r->event_period, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	r->event_period = s;
	for (size_t i = r->nr_events; i < n; i++)
		r->event_samples[i] = r->event_period[i] = 0;
	r->nr_events = n;
	return 0;
}

static int on_record(void *ctx, const struct perf_event_header *rec,
		     const struct perf_data_attr *attr, const struct perf_sample *s)
{
	struct report *r = ctx;
	struct addr_location al;
	struct entry key;
	char pidbuf[16];

	if (rec->type != PERF_RECORD_SAMPLE)
		return machine_process_record(r->machine, rec);

	machine_resolve(r->machine, s->pid, s->tid, s->cpumode, s->ip, &al);
	if (r->pids.nr) {
		snprintf(pidbuf, sizeof(pidbuf), "%u", s->pid);
		if (!in_list(&r->pids, pidbuf))
			return 0;
	}
	if (r->comms.nr && !in_list(&r->comms, al.comm))
		return 0;
	if (r->dsos.nr && (!al.dso || (!in_list(&r->dsos, al.dso->short_name) &&
				       !in_list(&r->dsos, al.dso->path))))
		return 0;

	memset(&key, 0, sizeof(key));
	key.event = event_index(r, attr);
	if (grow_events(r, key.event + 1))
		return sbx_error(-ENOMEM, "out of memory");
	r->event_samples[key.event]++;
	r->event_period[key.event] += s->period;
	r->filtered++;
	if (r->use[KEY_PID])
		key.pid = s->pid;
	if (r->use[KEY_COMM])
		key.comm = al.comm;	/* interned by the machine */
	if (r->use[KEY_DSO] || r->use[KEY_SYM])
		key.dso = al.dso;
	if (r->use[KEY_SYM]) {
		key.sym = al.sym;
		key.kernel = al.kernel;
		if (!al.sym)
			key.addr = al.addr;
	}
	return add_entry(r, &key, s->period);
}

static int cmp_entries(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->comm != y->comm)
		return strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
	if (x->dso != y->dso)
		return strcmp(x->dso ? x->dso->path : "", y->dso ? y->dso->path : "");
	if (x->sym != y->sym)
		return strcmp(x->sym ? x->sym->name : "", y->sym ? y->sym->name : "");
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *dso_name(const struct entry *e)
{
	return e->dso ? e->dso->short_name : "[unknown]";
}

/* The symbol's name as shown: demangled unless --no-demangle. */
static const char *shown_name(const struct report *r, const struct entry *e)
{
	if (e->dso)
		return dso_symbol_name(e->dso, e->sym, r->demangle);
	return e->sym->name;
}

static void sym_name(const struct report *r, const struct entry *e, char *buf, size_t size,
		     bool marker)
{
	const char *mark = marker ? (e->kernel ? "[k] " : "[.] ") : "";

	if (e->sym)
		snprintf(buf, size, "%s%s", mark, shown_name(r, e));
	else
		snprintf(buf, size, "%s0x%016" PRIx64, mark, e->addr);
}

static int print_json(struct report *r, struct entry **rows, size_t nr, long limit)
{
	json_object *arr = json_object_new_array();
	size_t shown = 0, event = (size_t)-1;
	char buf[4096];

	for (size_t i = 0; i < nr; i++) {
		const struct entry *e = rows[i];
		json_object *o = json_object_new_object();
		uint64_t total = r->event_period[e->event];

		if (e->event != event) {
			event = e->event;
			shown = 0;
		}
		if (limit >= 0 && shown++ >= (size_t)limit) {
			json_object_put(o);
			continue;
		}
		if (r->nr_events > 1)
			json_object_object_add(o, "event", json_object_new_string(
				perf_data_attr(r->data, e->event)->name));
		if (r->use[KEY_PID])
			json_object_object_add(o, "pid", json_object_new_int64(e->pid));
		if (r->use[KEY_COMM])
			json_object_object_add(o, "comm", json_object_new_string(e->comm));
		if (r->use[KEY_DSO])
			json_object_object_add(o, "dso", json_object_new_string(dso_name(e)));
		if (r->use[KEY_SYM]) {
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
		json_object_array_add(arr, o);
	}
	printf("%s\n", json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
	return 0;
}

static void print_text(struct report *r, struct entry **rows, size_t nr, long limit)
{
	size_t w[NR_KEYS] = { 7, 7, 13, 6 };
	char buf[4096];
	size_t start = 0;

	while (start < nr) {
		size_t ev = rows[start]->event, end = start, shown;
		const struct perf_data_attr *a = perf_data_attr(r->data, ev);

		while (end < nr && rows[end]->event == ev)
			end++;
		for (size_t i = start; i < end; i++) {
			const struct entry *e = rows[i];
			size_t n;

			n = (size_t)snprintf(buf, sizeof(buf), "%u", e->pid);
			w[KEY_PID] = n > w[KEY_PID] ? n : w[KEY_PID];
			n = strlen(e->comm ? e->comm : "");
			w[KEY_COMM] = n > w[KEY_COMM] ? n : w[KEY_COMM];
			n = strlen(dso_name(e));
			w[KEY_DSO] = n > w[KEY_DSO] ? n : w[KEY_DSO];
		}
		printf("# Samples: %" PRIu64 " of event '%s'\n", r->event_samples[ev],
		       a && a->name ? a->name : "?");
		printf("# Event count: %" PRIu64 "\n#\n# Overhead", r->event_period[ev]);
		for (size_t k = 0; k < r->nr_keys; k++) {
			static const char *const titles[NR_KEYS] = {
				"Pid", "Command", "Shared Object", "Symbol" };
			enum sort_key key = r->keys[k];

			if (key == KEY_SYM)
				printf("  %s", titles[key]);
			else
				printf("  %-*s", (int)w[key], titles[key]);
		}
		printf("\n#\n");
		shown = 0;
		for (size_t i = start; i < end; i++) {
			const struct entry *e = rows[i];
			uint64_t total = r->event_period[ev];

			if (limit >= 0 && shown++ >= (size_t)limit)
				break;
			printf("  %7.2f%%", total ? 100.0 * e->period / total : 0.0);
			for (size_t k = 0; k < r->nr_keys; k++) {
				switch (r->keys[k]) {
				case KEY_PID:
					printf("  %*u", (int)w[KEY_PID], e->pid);
					break;
				case KEY_COMM:
					printf("  %-*s", (int)w[KEY_COMM], e->comm);
					break;
				case KEY_DSO:
					printf("  %-*s", (int)w[KEY_DSO], dso_name(e));
					break;
				case KEY_SYM:
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
		if (start < nr)
			printf("\n");
	}
}

static int parse_sort(struct report *r, const char *arg)
{
	struct list l = { 0 };

	if (split_list(arg, &l))
		return -ENOMEM;
	r->nr_keys = 0;
	memset(r->use, 0, sizeof(r->use));
	for (size_t i = 0; i < l.nr; i++) {
		size_t k;

		for (k = 0; k < NR_KEYS; k++)
			if (!strcmp(l.items[i], key_names[k]) ||
			    (k == KEY_SYM && !strcmp(l.items[i], "symbol")))
				break;
		if (k == NR_KEYS || r->use[k]) {
			free_list(&l);
			return -EINVAL;
		}
		r->use[k] = true;
		r->keys[r->nr_keys++] = k;
	}
	free_list(&l);
	return r->nr_keys ? 0 : -EINVAL;
}

int cmd_report(int argc, char **argv)
{
	struct report r = { 0 };
	struct sbx_opts p;
	const char *input = "perf.data";
	bool json = sbx_globals.json;
	long limit = -1;
	struct perf_input in = { 0 };
	struct entry **rows = NULL;
	int c, ret = EXIT_FAILED;

	r.demangle = true;
	parse_sort(&r, "comm,dso,sym");
	opts_init(&p, "report", report_usage, report_options, argc, argv, 0);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case 'i':
			input = p.arg;
			break;
		case 's':
			if (parse_sort(&r, p.arg)) {
				ret = opts_usage_error(&p, "bad --sort '%s': keys are pid, comm, "
						       "dso, sym, each once", p.arg);
				goto out_opts;
			}
			break;
		case OPT_PID:
			if (split_list(p.arg, &r.pids))
				goto out_opts;
			break;
		case OPT_COMM:
			if (split_list(p.arg, &r.comms))
				goto out_opts;
			break;
		case OPT_DSO:
			if (split_list(p.arg, &r.dsos))
				goto out_opts;
			break;
		case 'n': {
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
		default:
			ret = opts_finish(&p, c);
			goto out;
		}
	}
	if (p.optind < p.argc) {
		ret = opts_usage_error(&p, "unexpected argument '%s'", p.argv[p.optind]);
		goto out_opts;
	}
	opts_finish(&p, c);

	ret = perf_input_open(&in, input);
	if (ret)
		goto out;
	r.data = in.data;
	r.machine = in.machine;
	ret = perf_input_run(&in, on_record, &r);
	if (ret)
		goto out;
	if (!perf_input_samples(&in)) {
		ret = error("%s: no samples", input);
		goto out;
	}
	rows = malloc((r.nr_entries ? r.nr_entries : 1) * sizeof(*rows));
	if (!rows) {
		ret = error("out of memory");
		goto out;
	}
	for (size_t i = 0, n = 0; i < r.table_size; i++)
		if (r.table[i])
			rows[n++] = r.table[i];
	qsort(rows, r.nr_entries, sizeof(*rows), cmp_entries);
	if (json)
		print_json(&r, rows, r.nr_entries, limit);
	else if (r.filtered)
		print_text(&r, rows, r.nr_entries, limit);
	else
		printf("# no samples match the filters\n");
	ret = EXIT_OK;
	goto out;
out_opts:
	opts_finish(&p, c);
	if (ret == EXIT_FAILED)
		ret = error("out of memory");
out:
	free(rows);
	for (size_t i = 0; i < r.table_size; i++)
		free(r.table[i]);
	free(r.table);
	free(r.event_samples);
	free(r.event_period);
	free_list(&r.pids);
	free_list(&r.comms);
	free_list(&r.dsos);
	perf_input_close(&in);
	return ret;
}
