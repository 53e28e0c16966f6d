// SPDX-License-Identifier: MIT
/* Histograms of samples by pid, comm, dso and symbol (see hist.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf/perf-data.h"
#include "profile/hist.h"
#include "symbol/dso.h"
#include "util/error.h"
#include "util/hashmap.h"

static const char *const key_names[HIST_NR_KEYS] = { "pid", "comm", "dso", "sym", "cpu",
						     "srcline", "symoff" };

struct hist {
	enum hist_key keys[HIST_NR_KEYS];
	size_t nr_keys;
	bool use[HIST_NR_KEYS];
	struct hashmap rows;		/* struct hist_row, by its key fields */
	struct hashmap dso_names;	/* struct dso: the first of each short name */
	struct dso *last_dso, *last_row_dso;	/* row_dso()'s last answer */
	struct hist_row **sorted;	/* hist_sorted()'s array, NULL when stale */
	uint64_t *event_samples, *event_period;
	uint64_t *out_samples, *out_period;	/* left out by the filters */
	bool demangle;			/* ties ordered by demangled names */
	uint32_t cpu;			/* of the samples being added (hist_set_cpu()) */
	const char *srcline;		/* of the sample being added (hist_set_srcline()) */
	size_t nr_events;
	uint64_t total;
	bool by_children;
	struct hist_field sorts[HIST_NR_KEYS + HIST_NR_NUMS];	/* hist_set_sort(); 0: default */
	size_t nr_sorts;
	uint8_t cpumode;		/* of the samples being added (hist_set_cpumode()) */
	int depth_order;		/* hist_set_depth_order() */
	uint64_t stacks;		/* hist_add_chain()'s calls: a stamp per stack */
};

struct hist *hist_new(const enum hist_key *keys, size_t nr_keys)
{
	struct hist *h;

	if (nr_keys > HIST_NR_KEYS) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	for (size_t i = 0; i < nr_keys; i++) {
		h->keys[i] = keys[i];
		h->use[keys[i]] = true;
	}
	h->nr_keys = nr_keys;
	return h;
}

void hist_free(struct hist *h)
{
	struct hist_row *r;

	if (!h)
		return;
	for (size_t i = 0; (r = hashmap_next(&h->rows, &i));)
		free(r);
	hashmap_release(&h->rows);
	hashmap_release(&h->dso_names);	/* the DSOs are the machine's */
	free(h->sorted);
	free(h->event_samples);
	free(h->event_period);
	free(h->out_samples);
	free(h->out_period);
	free(h);
}

const char *hist_key_name(enum hist_key key)
{
	return key < HIST_NR_KEYS ? key_names[key] : "?";
}

/* perf's sort entries and output fields, in the order perf matches a prefix against them */
static const struct {
	const char *name;
	bool num;
	int id;		/* enum hist_key or hist_num; -1: perf has it, sbx does not */
} perf_fields[] = {
	{ "pid", false, HIST_KEY_PID }, { "comm", false, HIST_KEY_COMM },
	{ "dso", false, HIST_KEY_DSO }, { "symbol", false, HIST_KEY_SYM },
	{ "parent", false, -1 }, { "cpu", false, HIST_KEY_CPU }, { "socket", false, -1 },
	{ "srcline", false, HIST_KEY_SRCLINE }, { "srcfile", false, -1 },
	{ "local_weight", false, -1 }, { "weight", false, -1 }, { "transaction", false, -1 },
	{ "trace", false, -1 }, { "symbol_size", false, -1 }, { "dso_size", false, -1 },
	{ "cgroup", false, -1 }, { "cgroup_id", false, -1 }, { "ipc_null", false, -1 },
	{ "time", false, -1 }, { "code_page_size", false, -1 }, { "local_ins_lat", false, -1 },
	{ "ins_lat", false, -1 }, { "local_p_stage_cyc", false, -1 },
	{ "p_stage_cyc", false, -1 }, { "addr", false, -1 },
	/* newer perf's (6.8): the symbol and the offset in it */
	{ "symoff", false, HIST_KEY_SYMOFF },
	{ "overhead", true, HIST_NUM_OVERHEAD }, { "overhead_sys", true, HIST_NUM_SYS },
	{ "overhead_us", true, HIST_NUM_USR }, { "overhead_guest_sys", true, HIST_NUM_GUEST_SYS },
	{ "overhead_guest_us", true, HIST_NUM_GUEST_USR },
	{ "overhead_children", true, HIST_NUM_CHILDREN }, { "sample", true, HIST_NUM_SAMPLES },
	{ "period", true, HIST_NUM_PERIOD },
};

const char *hist_num_name(enum hist_num n)
{
	for (size_t i = 0; i < sizeof(perf_fields) / sizeof(*perf_fields); i++)
		if (perf_fields[i].num && perf_fields[i].id == (int)n)
			return perf_fields[i].name;
	return "?";
}

bool hist_field_add(struct hist_field *v, size_t *nr, struct hist_field f)
{
	for (size_t i = 0; i < *nr; i++)
		if (v[i].num == f.num && v[i].id == f.id)
			return false;
	v[(*nr)++] = f;
	return true;
}

int hist_parse_fields(const char *arg, struct hist_field *out, size_t *nr)
{
	char *copy = strdup(arg), *save = NULL;
	int err = 0;

	*nr = 0;
	if (!copy)
		return sbx_error(-ENOMEM, "out of memory");
	/* perf's strtok_r(", "): commas and spaces, empty words skipped */
	for (char *t = strtok_r(copy, ", ", &save); t && !err; t = strtok_r(NULL, ", ", &save)) {
		size_t i, n = strlen(t);

		for (i = 0; i < sizeof(perf_fields) / sizeof(*perf_fields); i++)
			if (!strncasecmp(t, perf_fields[i].name, n))
				break;
		if (i == sizeof(perf_fields) / sizeof(*perf_fields)) {
			err = sbx_error(-EINVAL, "unknown key '%s'", t);
			break;
		}
		if (perf_fields[i].id < 0) {
			err = sbx_error(-EINVAL, "perf's key '%s' is not supported (sbx has pid, comm, "
					"dso, sym, cpu, srcline, symoff, overhead, overhead_sys, overhead_us, "
					"overhead_guest_sys, overhead_guest_us, overhead_children, "
					"sample, period)", perf_fields[i].name);
			break;
		}
		/* a field given twice counts once, as in perf */
		hist_field_add(out, nr, (struct hist_field){ perf_fields[i].num, perf_fields[i].id });
	}
	if (!err && !*nr)
		err = sbx_error(-EINVAL, "no key given");
	free(copy);
	return err;
}

int hist_set_sort(struct hist *h, const struct hist_field *sorts, size_t nr)
{
	if (nr > sizeof(h->sorts) / sizeof(*h->sorts))
		return -EINVAL;
	memcpy(h->sorts, sorts, nr * sizeof(*sorts));
	h->nr_sorts = nr;
	free(h->sorted);
	h->sorted = NULL;
	return 0;
}

uint64_t hist_row_num(const struct hist_row *r, enum hist_num n)
{
	switch (n) {
	case HIST_NUM_OVERHEAD:	return r->period;
	case HIST_NUM_SYS:	return r->period_sys;
	case HIST_NUM_USR:	return r->period_us;
	case HIST_NUM_GUEST_SYS:	return r->period_guest_sys;
	case HIST_NUM_GUEST_USR:	return r->period_guest_us;
	case HIST_NUM_CHILDREN:	return r->children;
	case HIST_NUM_SAMPLES:	return r->samples;
	case HIST_NUM_PERIOD:	return r->period;
	default:		return 0;
	}
}

size_t hist_keys(const struct hist *h, const enum hist_key **keys)
{
	*keys = h->keys;
	return h->nr_keys;
}

bool hist_has_key(const struct hist *h, enum hist_key key)
{
	return key < HIST_NR_KEYS && h->use[key];
}

bool hist_filter_match(const struct hist_filter *f, uint32_t pid, const struct addr_location *al)
{
	if (f->pids.nr) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%u", pid);
		if (!strlist_has(&f->pids, buf))
			return false;
	}
	if (f->tids.nr) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%u", al->tid);
		if (!strlist_has(&f->tids, buf))
			return false;
	}
	if (f->comms.nr && !strlist_has(&f->comms, al->comm))
		return false;
	if (f->dsos.nr && (!al->dso || (!strlist_has(&f->dsos, al->dso->short_name) &&
					!strlist_has(&f->dsos, al->dso->path))))
		return false;
	if (f->syms.nr && (!al->sym ||
			   !strlist_has(&f->syms, al->dso ? dso_symbol_name(al->dso, al->sym,
									    f->demangle)
							  : al->sym->name)))
		return false;
	return true;
}

void hist_filter_release(struct hist_filter *f)
{
	strlist_release(&f->pids);
	strlist_release(&f->tids);
	strlist_release(&f->comms);
	strlist_release(&f->dsos);
	strlist_release(&f->syms);
}

static uint64_t row_hash(const struct hist_row *r)
{
	uint64_t h = r->event;

	h = hash_combine(h, r->pid);
	h = hash_combine(h, r->tid);
	h = hash_combine(h, r->cpu);
	h = hash_combine(h, (uintptr_t)r->srcline);
	h = hash_combine(h, (uintptr_t)r->comm);
	h = hash_combine(h, (uintptr_t)r->dso);
	h = hash_combine(h, (uintptr_t)r->sym);
	h = hash_combine(h, r->addr);
	h = hash_combine(h, r->dso && r->kernel);
	return hash_u64(h);
}

static bool row_eq(const void *entry, const void *key)
{
	const struct hist_row *a = entry, *b = key;

	return a->event == b->event && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu &&
	       a->srcline == b->srcline &&
	       a->comm == b->comm &&
	       a->dso == b->dso && a->sym == b->sym && a->addr == b->addr &&
	       (!a->dso || a->kernel == b->kernel);
}

static int grow_events(struct hist *h, size_t n)
{
	/* the per-event totals, each grown with zeros for the new events */
	uint64_t **totals[] = { &h->event_samples, &h->event_period, &h->out_samples,
				&h->out_period };

	if (n <= h->nr_events)
		return 0;
	for (size_t t = 0; t < sizeof(totals) / sizeof(*totals); t++) {
		uint64_t *v = realloc(*totals[t], n * sizeof(*v));

		if (!v)
			return -ENOMEM;	/* those grown so far are merely larger */
		for (size_t i = h->nr_events; i < n; i++)
			v[i] = 0;
		*totals[t] = v;
	}
	h->nr_events = n;
	return 0;
}

static bool dso_named(const void *entry, const void *key)
{
	return !strcmp(((const struct dso *)entry)->short_name, key);
}

/*
 * The DSO that stands for d in the rows: the first one seen of its short
 * name, as perf's sort__dso_cmp() compares DSOs by that name (two builds
 * of "app" in two folders are one row); d itself when memory runs out.
 */
static struct dso *row_dso(struct hist *h, struct dso *d)
{
	uint64_t hash;
	struct dso *first;

	if (!d)
		return NULL;
	if (d == h->last_dso)	/* the samples of one DSO come in runs */
		return h->last_row_dso;
	hash = hash_str(d->short_name);
	first = hashmap_get(&h->dso_names, hash, dso_named, d->short_name);
	if (!first) {
		first = d;
		if (hashmap_put(&h->dso_names, hash, d))
			return d;	/* out of memory: d stands for itself */
	}
	h->last_dso = d;
	h->last_row_dso = first;
	return first;
}

/*
 * The row of al (of that srcline) in event, made (with zero counts) when
 * missing; NULL when out of memory.
 */
static struct hist_row *row_of(struct hist *h, size_t event, const struct addr_location *al,
			       const char *srcline)
{
	struct hist_row key = { .event = event }, *row;
	uint64_t hash;

	if (h->use[HIST_KEY_SRCLINE])
		key.srcline = srcline;
	if (h->use[HIST_KEY_PID]) {	/* perf's pid key is the thread */
		key.pid = al->pid;
		key.tid = al->tid;
	}
	if (h->use[HIST_KEY_COMM])
		key.comm = al->comm;	/* interned by the machine */
	if (h->use[HIST_KEY_CPU])
		key.cpu = h->cpu;
	if (h->use[HIST_KEY_DSO] || h->use[HIST_KEY_SYM] || h->use[HIST_KEY_SYMOFF])
		key.dso = row_dso(h, al->dso);
	if (h->use[HIST_KEY_SYM] || h->use[HIST_KEY_SYMOFF]) {
		key.sym = al->sym;
		key.kernel = al->kernel;
		if (!al->sym || h->use[HIST_KEY_SYMOFF])	/* symoff: the address too */
			key.addr = al->addr;
		/*
		 * a symbol of another DSO of that name: the first one's symbol of
		 * the same bounds, as perf's _sort__sym_cmp() compares them; else a
		 * row of its own DSO
		 */
		if (al->sym && key.dso != al->dso) {
			const struct symbol *s = dso_find_symbol(key.dso, al->sym->start);

			/* a symbol of the file's table: not an inlined function's */
			if (s && s->start == al->sym->start && s->size == al->sym->size &&
			    dso_find_symbol(al->dso, al->sym->start) == al->sym)
				key.sym = s;
			else
				key.dso = al->dso;
		}
	}
	hash = row_hash(&key);
	row = hashmap_get(&h->rows, hash, row_eq, &key);
	if (!row) {
		row = malloc(sizeof(*row));
		if (!row || hashmap_put(&h->rows, hash, row)) {
			free(row);
			return NULL;
		}
		*row = key;
		row->first_tid = al->tid;
		free(h->sorted);
		h->sorted = NULL;
	}
	return row;
}

int hist_add(struct hist *h, size_t event, const struct addr_location *al, uint64_t period)
{
	struct hist_row *row;

	if (grow_events(h, event + 1) || !(row = row_of(h, event, al, h->srcline)))
		return sbx_error(-ENOMEM, "out of memory");
	row->samples++;
	row->period += period;
	switch (h->cpumode) {	/* perf's split by the sample's mode */
	case PERF_RECORD_MISC_KERNEL:
		row->period_sys += period;
		break;
	case PERF_RECORD_MISC_USER:
		row->period_us += period;
		break;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		row->period_guest_sys += period;
		break;
	case PERF_RECORD_MISC_GUEST_USER:
		row->period_guest_us += period;
		break;
	default:
		break;
	}
	h->event_samples[event]++;
	h->event_period[event] += period;
	h->total++;
	return 0;
}

struct hist_row *hist_row_get(struct hist *h, size_t event, const struct addr_location *al)
{
	if (grow_events(h, event + 1))
		return NULL;
	return row_of(h, event, al, h->srcline);
}

int hist_add_filtered_out(struct hist *h, size_t event, uint64_t period)
{
	if (grow_events(h, event + 1))
		return sbx_error(-ENOMEM, "out of memory");
	h->out_samples[event]++;
	h->out_period[event] += period;
	return 0;
}

int hist_add_chain(struct hist *h, size_t event, const struct addr_location *frames, size_t nr,
		   uint64_t period, const char *const *srclines, struct hist_row **rows)
{
	if (grow_events(h, event + 1))
		return sbx_error(-ENOMEM, "out of memory");
	h->stacks++;
	for (size_t i = 0; i < nr; i++) {
		struct hist_row *row = row_of(h, event, &frames[i], srclines ? srclines[i] : NULL);

		if (!row)
			return sbx_error(-ENOMEM, "out of memory");
		if (rows)
			rows[i] = row;
		/* a row once per stack, however deep the recursion */
		if (row->stack_seen == h->stacks)
			continue;
		row->stack_seen = h->stacks;
		row->children_samples++;
		row->children += period;
	}
	return 0;
}

void hist_sort_by_children(struct hist *h, bool on)
{
	h->by_children = on;
}

void hist_set_depth_order(struct hist *h, int dir)
{
	h->depth_order = dir;
}

void hist_set_cpumode(struct hist *h, uint8_t cpumode)
{
	h->cpumode = cpumode;
}

void hist_set_cpu(struct hist *h, uint32_t cpu)
{
	h->cpu = cpu;
}

void hist_set_srcline(struct hist *h, const char *srcline)
{
	h->srcline = srcline;
}

void hist_set_demangle(struct hist *h, bool on)
{
	h->demangle = on;
}

/*
 * Two rows by one key, ascending as perf's sort entries order them. For
 * the output order (out), perf's sort of symbols leaves two rows of no
 * symbol equal, for the fields after it to order; for ties, their address.
 */
static int cmp_key(const struct hist *h, enum hist_key key, const struct hist_row *x,
		   const struct hist_row *y, bool out)
{
	int c = 0;

	switch (key) {
	case HIST_KEY_PID:
		c = x->tid < y->tid ? -1 : x->tid > y->tid;
		break;
	case HIST_KEY_CPU:
		c = x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
		break;
	case HIST_KEY_SRCLINE:
		c = strcmp(x->srcline ? x->srcline : "", y->srcline ? y->srcline : "");
		break;
	case HIST_KEY_COMM:
		c = strcmp(x->comm ? x->comm : "", y->comm ? y->comm : "");
		break;
	case HIST_KEY_DSO:
		/* no DSO last, as perf's cmp_null() puts it */
		if (!x->dso != !y->dso)
			return x->dso ? -1 : 1;
		c = strcmp(x->dso ? x->dso->short_name : "", y->dso ? y->dso->short_name : "");
		if (!c && x->dso != y->dso)	/* one name, two files */
			c = strcmp(x->dso ? x->dso->path : "", y->dso ? y->dso->path : "");
		break;
	case HIST_KEY_SYM:
	case HIST_KEY_SYMOFF:
		/* named symbols first, then the addresses no symbol holds */
		if (!x->sym != !y->sym)
			c = x->sym ? -1 : 1;
		else if (x->sym)	/* the names as shown: perf demangles when it loads */
			c = strcmp(x->dso ? dso_symbol_name(x->dso, x->sym, h->demangle)
					  : x->sym->name,
				   y->dso ? dso_symbol_name(y->dso, y->sym, h->demangle)
					  : y->sym->name);
		/* ties of addresses no symbol holds: by DSO, then address, as perf's input order */
		if (!c && !out && !x->sym && x->dso != y->dso)
			c = strcmp(x->dso ? x->dso->short_name : "", y->dso ? y->dso->short_name : "");
		/* symoff: then the offset (perf's sort__symoff_sort()) */
		if (!c && (!out || key == HIST_KEY_SYMOFF))
			c = x->addr < y->addr ? -1 : x->addr > y->addr;
		break;
	default:
		break;
	}
	return c;
}

/* hist_sorted()'s order; ctx is the hist */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct hist_row *x = *(const struct hist_row *const *)a;
	const struct hist_row *y = *(const struct hist_row *const *)b;
	const struct hist *h = ctx;
	int c;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	/* hist_set_sort()'s fields in turn: numbers heaviest first, keys ascending */
	for (size_t i = 0; i < h->nr_sorts; i++) {
		const struct hist_field *f = &h->sorts[i];

		if (f->num) {
			uint64_t u = hist_row_num(x, f->id), v = hist_row_num(y, f->id);

			if (f->id == HIST_NUM_CHILDREN && !h->by_children)
				continue;	/* perf: no children, no order */
			if (u != v)
				return u > v ? -1 : 1;
		} else if ((c = cmp_key(h, f->id, x, y, true))) {
			return c;
		}
	}
	if (!h->nr_sorts) {	/* the default: [children], overhead, then the keys */
		if (h->by_children && x->children != y->children)
			return x->children > y->children ? -1 : 1;
		if (x->period != y->period)
			return x->period > y->period ? -1 : 1;
	}
	/* ties as perf report orders them: by the keys, in their order, names by strcmp */
	for (size_t k = 0; k < h->nr_keys; k++)
		if ((c = cmp_key(h, h->keys[k], x, y, false)))
			return c;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* two symbols of one name (a PLT's unnamed entries): by address, then DSO */
	if (x->sym && y->sym && x->sym->start != y->sym->start)
		return x->sym->start < y->sym->start ? -1 : 1;
	if (x->dso && y->dso && x->dso != y->dso)
		return x->dso->seq < y->dso->seq ? -1 : 1;
	return 0;
}

struct tie_ref {
	struct hist_row *row;
	size_t pos;
	int depth_order;
};

static int cmp_tie_thread(const void *a, const void *b)
{
	const struct tie_ref *x = a, *y = b;

	if (x->row->first_tid != y->row->first_tid)
		return x->row->first_tid < y->row->first_tid ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_tie_depth(const void *a, const void *b)
{
	const struct tie_ref *x = a, *y = b;

	if (x->row->depth != y->row->depth)
		return (x->row->depth > y->row->depth) == (x->depth_order > 0) ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * perf's hpp__sort_acc puts, of two rows of equal Children made by one
 * thread, the one with the deeper graph first (a caller above its callee),
 * and leaves rows of two threads to the other keys. As a comparison that
 * is not an order (perf's result depends on the order it inserts rows in),
 * so here it is applied after the sort: within each run of equal
 * Children, the rows of each thread are reordered by depth among the
 * places they hold, and the rows of other threads stay where they are.
 */
static int order_ties_by_depth(struct hist *h, struct hist_row **v, size_t n)
{
	struct tie_ref *t = NULL;
	size_t *places = NULL;

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j]->event == v[i]->event &&
				v[j]->children == v[i]->children; j++)
			;
		if (j - i < 2)
			continue;
		free(t);
		free(places);
		t = malloc((j - i) * sizeof(*t));
		places = malloc((j - i) * sizeof(*places));
		if (!t || !places) {
			free(t);
			free(places);
			return -ENOMEM;
		}
		for (size_t k = i; k < j; k++)
			t[k - i] = (struct tie_ref){ v[k], k, h->depth_order };
		qsort(t, j - i, sizeof(*t), cmp_tie_thread);
		for (size_t g = 0, e; g < j - i; g = e) {
			for (e = g + 1; e < j - i && t[e].row->first_tid == t[g].row->first_tid; e++)
				;
			/* t[g..e): one thread's rows, by place; give them the places by depth */
			for (size_t k = g; k < e; k++)
				places[k - g] = t[k].pos;
			qsort(t + g, e - g, sizeof(*t), cmp_tie_depth);
			for (size_t k = g; k < e; k++)
				v[places[k - g]] = t[k].row;
		}
	}
	free(t);
	free(places);
	return 0;
}

struct hist_row *const *hist_sorted(struct hist *h, size_t *nr)
{
	size_t n = hashmap_nr(&h->rows), k = 0;
	struct hist_row *r;

	*nr = 0;
	if (!n)
		return NULL;
	if (!h->sorted) {
		h->sorted = malloc(n * sizeof(*h->sorted));
		if (!h->sorted)
			return NULL;
		for (size_t i = 0; (r = hashmap_next(&h->rows, &i));)
			h->sorted[k++] = r;
	}
	/* counts change with every hist_add(): sort each time */
	qsort_r(h->sorted, n, sizeof(*h->sorted), cmp_rows, h);
	/* perf's tie rule of the Children column, where it leads the order */
	if (h->by_children && h->depth_order &&
	    (!h->nr_sorts || (h->sorts[0].num && h->sorts[0].id == HIST_NUM_CHILDREN)) &&
	    order_ties_by_depth(h, h->sorted, n))
		return NULL;
	*nr = n;
	return h->sorted;
}

size_t hist_nr_events(const struct hist *h)
{
	return h->nr_events;
}

uint64_t hist_event_samples(const struct hist *h, size_t event)
{
	return event < h->nr_events ? h->event_samples[event] : 0;
}

uint64_t hist_event_period(const struct hist *h, size_t event)
{
	return event < h->nr_events ? h->event_period[event] : 0;
}

uint64_t hist_event_all_samples(const struct hist *h, size_t event)
{
	return event < h->nr_events ? h->event_samples[event] + h->out_samples[event] : 0;
}

uint64_t hist_event_all_period(const struct hist *h, size_t event)
{
	return event < h->nr_events ? h->event_period[event] + h->out_period[event] : 0;
}

uint64_t hist_total_samples(const struct hist *h)
{
	return h->total;
}
