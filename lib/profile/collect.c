// SPDX-License-Identifier: MIT
/* Per-DSO counts for sample profiles, through per-process address spaces (see collect.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/collect.h"
#include "profile/sampleprof.h"
#include "symbol/dso.h"
#include "util/array.h"
#include "util/error.h"
#include "util/sort.h"

static const char *const reason_names[PG_NR_REASONS] = {
	[PG_KERNEL] = "kernel",
	[PG_NO_MAP] = "no mmap",
	[PG_NOT_BINARY] = "not the chosen binary",
	[PG_BUILD_ID] = "build-id mismatch",
	[PG_NO_FUNCTION] = "outside any function",
	[PG_NO_LINE] = "no line",
	[PG_FILTERED] = "other pid",
};

const char *pg_reason_name(enum pg_reason r)
{
	return r < PG_NR_REASONS ? reason_names[r] : "?";
}

/* Counts are many and small: they come from chunks freed together. */
#define CHUNK_BYTES	(64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used;
	uint64_t data[(CHUNK_BYTES - 16) / 8];
};

struct pg_collector {
	struct machine *machine;
	struct pg_options opt;
	struct hashmap by_dso;		/* struct pg_dso, by dso pointer */
	struct pg_dso **order;
	size_t nr_dsos, cap_dsos;
	struct hashmap names;		/* interned callee names */
	struct chunk *chunks;
	/*
	 * Branch stacks held back to be counted once each, weighted, while
	 * the processes' maps stay as they are (see stage_branches)
	 */
	struct hashmap pending;		/* struct pending */
	struct pending **pending_order;	/* in the order first seen */
	size_t nr_pending, cap_pending, pending_bytes;
	struct chunk *pending_chunks;
	struct pg_dso *last;		/* the one dso_counts() gave last */
	uint64_t dropped[PG_NR_REASONS];
	uint64_t samples;
	uint64_t weight;		/* how many samples the one being counted stands for */
};

static void *chunk_take(struct chunk **list, size_t size)
{
	struct chunk *k = *list;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (!k || k->used + size > sizeof(k->data)) {
		k = malloc(sizeof(*k));
		if (!k)
			return NULL;
		k->next = *list;
		k->used = 0;
		*list = k;
	}
	p = (char *)k->data + k->used;
	k->used += size;
	return p;
}

static void chunks_free(struct chunk **list)
{
	while (*list) {
		struct chunk *n = (*list)->next;

		free(*list);
		*list = n;
	}
}

static void *chunk_alloc(struct pg_collector *c, size_t size)
{
	return chunk_take(&c->chunks, size);
}

struct pg_collector *pg_collector_new(struct machine *m, const struct pg_options *opt)
{
	struct pg_collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->machine = m;
	if (opt)
		c->opt = *opt;
	return c;
}

static void dso_release(struct pg_dso *d)
{
	free(d->ip_log);
	free(d->wlog);
	free(d->ips);
	hashmap_release(&d->stacks);
	hashmap_release(&d->calls);
}

void pg_collector_free(struct pg_collector *c)
{
	char *s;

	if (!c)
		return;
	for (size_t i = 0; i < c->nr_dsos; i++)
		dso_release(c->order[i]);
	free(c->order);
	hashmap_release(&c->by_dso);
	for (size_t i = 0; (s = hashmap_next(&c->names, &i));)
		free(s);
	hashmap_release(&c->names);
	chunks_free(&c->chunks);
	hashmap_release(&c->pending);
	free(c->pending_order);
	chunks_free(&c->pending_chunks);
	free(c);
}

static bool same_dso(const void *entry, const void *key)
{
	return ((const struct pg_dso *)entry)->dso == key;
}

struct pg_dso *pg_collector_find(const struct pg_collector *c, const struct dso *dso)
{
	return hashmap_get(&c->by_dso, hash_u64((uintptr_t)dso), same_dso, dso);
}

static struct pg_dso *dso_counts(struct pg_collector *c, struct dso *dso)
{
	struct pg_dso *d;

	/* most samples are in the DSO of the one before */
	if (c->last && c->last->dso == dso)
		return c->last;
	d = pg_collector_find(c, dso);
	if (d)
		return c->last = d;
	if (array_reserve(&c->order, &c->cap_dsos, c->nr_dsos + 1, sizeof(*c->order)))
		return NULL;
	d = chunk_alloc(c, sizeof(*d));
	if (!d)
		return NULL;
	memset(d, 0, sizeof(*d));
	d->dso = dso;
	if (hashmap_put(&c->by_dso, hash_u64((uintptr_t)dso), d))
		return NULL;
	c->order[c->nr_dsos++] = d;
	return c->last = d;
}

static bool name_is(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

static const char *intern(struct pg_collector *c, const char *s)
{
	uint64_t h = hash_str(s);
	char *n = hashmap_get(&c->names, h, name_is, s);

	if (n)
		return n;
	n = strdup(s);
	if (!n || hashmap_put(&c->names, h, n)) {
		free(n);
		return NULL;
	}
	return n;
}

static bool call_is(const void *entry, const void *key)
{
	const struct pg_call *a = entry, *b = key;

	return a->ret == b->ret && a->callee == b->callee;
}

static int count_call(struct pg_collector *c, struct pg_dso *d, uint64_t ret, const char *callee)
{
	struct pg_call key = { ret, intern(c, callee), 0 }, *e;
	uint64_t h;

	if (!key.callee)
		return -ENOMEM;
	h = hash_u64(hash_combine(ret, (uintptr_t)key.callee));
	e = hashmap_get(&d->calls, h, call_is, &key);
	if (!e) {
		e = chunk_alloc(c, sizeof(*e));
		if (!e || hashmap_put(&d->calls, h, e))
			return -ENOMEM;
		*e = key;
	}
	e->n = sp_add(e->n, c->weight);
	return 0;
}

/* The map and file offset of addr in process pid; NULL for the kernel or no map. */
static struct map *locate(struct pg_collector *c, uint32_t pid, uint8_t cpumode, uint64_t addr,
			  uint64_t *off)
{
	bool kernel;
	struct map *m = machine_find_map(c->machine, pid, cpumode, addr, &kernel);

	if (!m || kernel)
		return NULL;
	*off = addr - m->start + m->pgoff;
	return m;
}

static bool stack_is(const void *entry, const void *key)
{
	const struct pg_stack *a = entry, *b = key;

	return a->nr == b->nr && !memcmp(a->ends, b->ends, 2 * a->nr * sizeof(*a->ends));
}

/* Count one stack (key: ends of nr pairs) in d. */
static int count_stack(struct pg_collector *c, struct pg_dso *d, const uint64_t *ends,
		       uint32_t nr, struct pg_stack *key)
{
	uint64_t h = hash_bytes(ends, 2 * nr * sizeof(*ends));
	struct pg_stack *e;

	key->nr = nr;
	e = hashmap_get(&d->stacks, h, stack_is, key);
	if (!e) {
		e = chunk_alloc(c, sizeof(*e) + 2 * nr * sizeof(*ends));
		if (!e || hashmap_put(&d->stacks, h, e))
			return -ENOMEM;
		e->n = 0;
		e->nr = nr;
		memcpy(e->ends, ends, 2 * nr * sizeof(*ends));
	}
	e->n = sp_add(e->n, c->weight);
	return 0;
}

#define MAX_BRANCHES	256

/* The branch stack (nr from, to pairs), as each DSO it touches sees it. */
static int collect_branches(struct pg_collector *c, uint32_t pid, const uint64_t *pairs,
			    size_t nr)
{
	const uint8_t mode = PERF_RECORD_MISC_CPUMODE_UNKNOWN;	/* by the address */
	struct dso *dsos[2 * MAX_BRANCHES];	/* of each end; NULL: none */
	struct dso *distinct[2 * MAX_BRANCHES];
	uint64_t offs[2 * MAX_BRANCHES];
	union {
		struct pg_stack s;
		uint64_t q[1 + 1 + 2 * MAX_BRANCHES];
	} key;
	uint64_t *ends = key.s.ends;
	/*
	 * The maps of the last ends, copied here (most ends are in one of
	 * them, and the stores below could alias a struct map's fields)
	 */
	struct near {
		uint64_t start, len, pgoff;
		struct dso *dso;
	} near[2] = { { 0, 0, 0, NULL }, { 0, 0, 0, NULL } };
	size_t nr_distinct = 0;

	if (nr > MAX_BRANCHES)
		nr = MAX_BRANCHES;
	for (size_t i = 0; i < 2 * nr; i++) {
		uint64_t addr = pairs[i];
		struct dso *dso;
		size_t k = 0;

		/* maps do not overlap: an address inside one is in no other */
		if (addr - near[0].start < near[0].len) {
			/* near[0] */
		} else if (addr - near[1].start < near[1].len) {
			struct near t = near[0];

			near[0] = near[1];
			near[1] = t;
		} else {
			uint64_t off;
			struct map *m = locate(c, pid, mode, addr, &off);

			if (!m) {
				dsos[i] = NULL;
				continue;
			}
			near[1] = near[0];
			near[0] = (struct near){ m->start, m->end - m->start, m->pgoff, m->dso };
		}
		dso = near[0].dso;
		offs[i] = addr - near[0].start + near[0].pgoff;
		dsos[i] = dso;
		while (k < nr_distinct && distinct[k] != dso)
			k++;
		if (k == nr_distinct)
			distinct[nr_distinct++] = dso;
	}
	for (size_t j = 0; j < nr_distinct; j++) {
		struct pg_dso *d = dso_counts(c, distinct[j]);

		if (!d)
			return -ENOMEM;
		for (size_t k = 0; k < 2 * nr; k++)
			ends[k] = dsos[k] == distinct[j] ? offs[k] : PG_EXTERNAL;
		if (count_stack(c, d, ends, (uint32_t)nr, &key.s))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A branch stack of one process held back: llvm-profgen aggregates
 * identical samples before it reads them, and so does the collector,
 * keyed by the process and the branches' ends (their flags and cycles
 * play no part in a profile). Each distinct one is counted once, weighted,
 * before anything can change the processes' maps (pg_collector_record) and
 * at the end (pg_collector_flush); until then the record's own ends are
 * resolved through the maps they were taken under.
 */
struct pending {
	uint32_t pid, nr;
	uint64_t n;
	uint64_t pairs[];	/* from0, to0, from1, to1, … */
};

/* Held back at most: 32 MiB of stacks, then they are counted. */
#define PENDING_BYTES	((size_t)32 << 20)
/* Per stack held back, besides itself: 2 slots of the table, its place in the order */
#define PENDING_OVERHEAD	(2 * sizeof(struct hashmap_slot) + sizeof(struct pending *))

static bool pending_is(const void *entry, const void *key)
{
	const struct pending *a = entry, *b = key;

	return a->pid == b->pid && a->nr == b->nr &&
	       !memcmp(a->pairs, b->pairs, 2 * a->nr * sizeof(*a->pairs));
}

int pg_collector_flush(struct pg_collector *c)
{
	uint64_t weight = c->weight;
	int err = 0;

	for (size_t i = 0; i < c->nr_pending && !err; i++) {
		const struct pending *e = c->pending_order[i];

		c->weight = e->n;
		err = collect_branches(c, e->pid, e->pairs, e->nr);
	}
	c->weight = weight;
	hashmap_release(&c->pending);
	chunks_free(&c->pending_chunks);
	c->nr_pending = c->pending_bytes = 0;
	return err ? sbx_error(-ENOMEM, "out of memory") : 0;
}

static int stage_branches(struct pg_collector *c, uint32_t pid,
			  const struct perf_branch_entry_raw *br, size_t nr)
{
	union {
		struct pending p;
		uint64_t q[2 + 2 * MAX_BRANCHES];
	} key;
	struct pending *e;
	size_t size;
	uint64_t h;

	if (nr > MAX_BRANCHES)
		nr = MAX_BRANCHES;
	key.p.pid = pid;
	key.p.nr = (uint32_t)nr;
	for (size_t i = 0; i < nr; i++) {
		key.p.pairs[2 * i] = br[i].from;
		key.p.pairs[2 * i + 1] = br[i].to;
	}
	h = hash_bytes(key.p.pairs, 2 * nr * sizeof(*key.p.pairs)) ^ hash_u64(pid);
	e = hashmap_get(&c->pending, h, pending_is, &key.p);
	if (e) {
		e->n = sp_add(e->n, c->weight);
		return 0;
	}
	size = sizeof(*e) + 2 * nr * sizeof(*e->pairs);
	/* with its share of the table (two slots at most half full) and of the order */
	if (c->pending_bytes + size + PENDING_OVERHEAD > PENDING_BYTES && pg_collector_flush(c))
		return -ENOMEM;
	if (c->nr_pending == c->cap_pending) {
		size_t cap = c->cap_pending ? 2 * c->cap_pending : 1024;
		struct pending **v = realloc(c->pending_order, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->pending_order = v;
		c->cap_pending = cap;
	}
	e = chunk_take(&c->pending_chunks, size);
	if (!e || hashmap_put(&c->pending, h, e))
		return -ENOMEM;
	memcpy(e, &key.p, size);
	e->n = c->weight;
	c->pending_order[c->nr_pending++] = e;
	c->pending_bytes += size + PENDING_OVERHEAD;
	return 0;
}

/* The records that leave every process's maps as they were. */
static bool keeps_maps(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_READ:
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_CGROUP:
		return true;
	default:
		return false;
	}
}

int pg_collector_record(struct pg_collector *c, const struct perf_event_header *rec)
{
	if (c->nr_pending && !keeps_maps(rec->type)) {
		int err = pg_collector_flush(c);

		if (err)
			return err;
	}
	return machine_process_record(c->machine, rec);
}

/*
 * The user part of a call chain: for each return address in a DSO, the
 * function called there (the one holding the frame before it).
 */
static int collect_calls(struct pg_collector *c, const struct perf_sample *s)
{
	uint64_t prev = 0;
	bool user = false, have_prev = false;

	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t ip = s->callchain[i], off;
		struct addr_location al;
		struct map *m;
		struct pg_dso *d;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			have_prev = false;
			continue;
		}
		if (!user)
			continue;
		if (have_prev) {
			/* ip returns into the caller; prev is in the callee */
			m = locate(c, s->pid, PERF_RECORD_MISC_USER, ip, &off);
			machine_resolve(c->machine, s->pid, s->tid, PERF_RECORD_MISC_USER, prev, &al);
			if (m && al.sym) {
				d = dso_counts(c, m->dso);
				if (!d || count_call(c, d, off, al.sym->name))
					return -ENOMEM;
			}
		}
		prev = ip;
		have_prev = true;
	}
	return 0;
}

static bool pid_wanted(const struct pg_collector *c, uint32_t pid)
{
	if (!c->opt.nr_pids)
		return true;
	for (size_t i = 0; i < c->opt.nr_pids; i++)
		if (c->opt.pids[i] == pid)
			return true;
	return false;
}

int pg_collect_parts(struct pg_collector *c, uint32_t pid, uint8_t cpumode, uint64_t ip,
		     const struct perf_branch_entry_raw *branches, size_t nr_branches)
{
	struct perf_sample s = { .pid = pid, .tid = pid, .cpumode = cpumode, .ip = ip,
				 .branches = branches, .branch_nr = nr_branches };

	return pg_collect(c, &s);
}

/* IPs logged per DSO before they are folded into its counts (32 MiB) */
#define LOG_MAX	((size_t)1 << 22)

/*
 * An IP counted weight times at once (a repeat count of perf script text):
 * logged as a pair, summed when the logs are folded, so that a text of n
 * distinct IPs costs O(n log n), not an insertion each.
 */
static int log_ip_weighted(struct pg_dso *d, uint64_t off, uint64_t weight)
{
	if (d->nr_wlog == LOG_MAX) {
		const struct pg_count *folded;

		pg_dso_ips(d, &folded);
		if (!folded)
			return -ENOMEM;
	}
	if (array_reserve(&d->wlog, &d->cap_wlog, d->nr_wlog + 1, sizeof(*d->wlog)))
		return -ENOMEM;
	d->wlog[d->nr_wlog++] = (struct pg_count){ off, weight };
	return 0;
}

int pg_collect(struct pg_collector *c, const struct perf_sample *s)
{
	return pg_collect_weighted(c, s, 1);
}

int pg_collect_weighted(struct pg_collector *c, const struct perf_sample *s, uint64_t weight)
{
	struct map *m;
	struct pg_dso *d;
	uint64_t off;
	bool kernel;
	int err = 0;

	c->weight = weight;
	c->samples = sp_add(c->samples, weight);
	if (!pid_wanted(c, s->pid)) {
		c->dropped[PG_FILTERED] = sp_add(c->dropped[PG_FILTERED], weight);
		return 0;
	}
	m = machine_find_map(c->machine, s->pid, s->cpumode, s->ip, &kernel);
	if (kernel) {
		c->dropped[PG_KERNEL] = sp_add(c->dropped[PG_KERNEL], weight);
	} else if (!m) {
		c->dropped[PG_NO_MAP] = sp_add(c->dropped[PG_NO_MAP], weight);
	} else {
		d = dso_counts(c, m->dso);
		if (!d)
			return -ENOMEM;
		off = s->ip - m->start + m->pgoff;
		d->samples = sp_add(d->samples, weight);
		if (s->branch_nr)
			d->lbr_samples = sp_add(d->lbr_samples, weight);
		if (weight != 1) {
			if (log_ip_weighted(d, off, weight))
				return sbx_error(-ENOMEM, "out of memory");
			goto rest;
		}
		if (d->nr_log == LOG_MAX) {
			const struct pg_count *folded;

			/* memory stays bounded by the distinct IPs, not the samples */
			pg_dso_ips(d, &folded);
			if (!folded)
				return sbx_error(-ENOMEM, "out of memory");
		}
		if (d->nr_log == d->cap_log) {
			size_t cap = d->cap_log ? 2 * d->cap_log : 4096;
			uint64_t *v = realloc(d->ip_log, cap * sizeof(*v));

			if (!v)
				return sbx_error(-ENOMEM, "out of memory");
			d->ip_log = v;
			d->cap_log = cap;
		}
		d->ip_log[d->nr_log++] = off;
	}
rest:
	if (!err && s->branch_nr)
		err = stage_branches(c, s->pid, s->branches, s->branch_nr);
	if (!err && c->opt.use_stack && s->callchain_nr)
		err = collect_calls(c, s);
	return err ? sbx_error(-ENOMEM, "out of memory") : 0;
}

/*
 * The logged IPs of d as (offset, samples), ascending: counted in an array
 * by offset when they are dense (a program's sampled code spans not much
 * more than its samples: no sort at all), else sorted and run-counted.
 */
static struct pg_count *fold_log(struct pg_dso *d, size_t *nr)
{
	const uint64_t *log = d->ip_log;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t n = d->nr_log, k = 0;
	struct pg_count *v;

	for (size_t i = 0; i < n; i++) {
		lo = log[i] < lo ? log[i] : lo;
		hi = log[i] > hi ? log[i] : hi;
	}
	if (hi - lo < 2 * (uint64_t)n) {
		/* n is at most LOG_MAX: a u32 holds any count */
		size_t range = (size_t)(hi - lo) + 1;
		uint32_t *cnt = calloc(range, sizeof(*cnt));

		if (!cnt)
			return NULL;
		for (size_t i = 0; i < n; i++)
			cnt[log[i] - lo]++;
		/* the log is read: its memory for the counts that follow (peak RSS) */
		free(d->ip_log);
		d->ip_log = NULL;
		d->nr_log = d->cap_log = 0;
		for (size_t j = 0; j < range; j++)
			k += cnt[j] != 0;
		v = malloc(k * sizeof(*v));
		k = 0;
		for (size_t j = 0; v && j < range; j++)
			if (cnt[j])
				v[k++] = (struct pg_count){ lo + j, cnt[j] };
		free(cnt);
		*nr = k;
		return v;
	}
	if (sort_u64(d->ip_log, n))
		return NULL;
	for (size_t i = 0; i < n; i++)
		k += !i || log[i] != log[i - 1];
	v = malloc(k * sizeof(*v));
	k = 0;
	for (size_t i = 0; v && i < n; i++) {
		if (!i || log[i] != log[i - 1])
			v[k++] = (struct pg_count){ log[i], 0 };
		v[k - 1].n++;
	}
	*nr = k;
	return v;
}

static int count_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct pg_count *)a)->a, y = ((const struct pg_count *)b)->a;

	return (x > y) - (x < y);
}

/* The weighted log of d as (offset, samples), ascending: sorted and summed in place, taken. */
static struct pg_count *fold_wlog(struct pg_dso *d, size_t *nr)
{
	struct pg_count *v = d->wlog;
	size_t k = 0;

	qsort(v, d->nr_wlog, sizeof(*v), count_cmp);
	for (size_t i = 0; i < d->nr_wlog; i++) {
		if (k && v[k - 1].a == v[i].a)
			v[k - 1].n = sp_add(v[k - 1].n, v[i].n);
		else
			v[k++] = v[i];
	}
	d->wlog = NULL;
	d->nr_wlog = d->cap_wlog = 0;
	*nr = k;
	return v;
}

/* fresh[0..n) (ascending, owned) merged into d's counts: 0, or -ENOMEM (fresh is freed). */
static int merge_counts(struct pg_dso *d, struct pg_count *fresh, size_t n)
{
	struct pg_count *v;
	size_t a = 0, k = 0;

	if (!d->nr_ips) {
		free(d->ips);
		d->ips = fresh;
		d->nr_ips = n;
		return 0;
	}
	v = malloc((d->nr_ips + n) * sizeof(*v));
	if (!v) {
		free(fresh);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		while (a < d->nr_ips && d->ips[a].a < fresh[i].a)
			v[k++] = d->ips[a++];
		v[k] = fresh[i];
		if (a < d->nr_ips && d->ips[a].a == fresh[i].a)
			v[k].n = sp_add(v[k].n, d->ips[a++].n);
		k++;
	}
	while (a < d->nr_ips)
		v[k++] = d->ips[a++];
	free(fresh);
	free(d->ips);
	d->ips = v;
	d->nr_ips = k;
	return 0;
}

size_t pg_dso_ips(struct pg_dso *d, const struct pg_count **out)
{
	struct pg_count *fresh;
	size_t n = 0;

	*out = d->ips;
	if (!d->nr_log && !d->nr_wlog)
		return d->nr_ips;
	/* the new IPs, counted, then merged with what was counted before */
	if (d->nr_log) {
		fresh = fold_log(d, &n);
		if (!fresh || merge_counts(d, fresh, n)) {
			*out = NULL;
			return 0;
		}
		free(d->ip_log);
		d->ip_log = NULL;
		d->nr_log = d->cap_log = 0;
	}
	if (d->nr_wlog) {
		fresh = fold_wlog(d, &n);
		if (merge_counts(d, fresh, n)) {
			*out = NULL;
			return 0;
		}
	}
	*out = d->ips;
	return d->nr_ips;
}

bool pg_dso_has_branch_stacks(const struct pg_dso *d)
{
	return d->lbr_samples || hashmap_nr(&d->stacks);
}

struct pg_count *pg_dso_take_ips(struct pg_dso *d, size_t *n)
{
	const struct pg_count *ips;
	struct pg_count *v;

	*n = pg_dso_ips(d, &ips);
	if (d->ips_taken)
		return NULL;
	if (!ips) {
		/* every sample of d logged an IP: none counted means memory ran out */
		*n = d->samples != 0;
		return NULL;
	}
	v = d->ips;
	d->ips = NULL;
	d->nr_ips = 0;
	d->ips_taken = true;
	return v;
}

size_t pg_collector_dsos(const struct pg_collector *c, struct pg_dso *const **dsos)
{
	*dsos = c->order;
	return c->nr_dsos;
}

uint64_t pg_collector_dropped(const struct pg_collector *c, enum pg_reason r)
{
	return r < PG_NR_REASONS ? c->dropped[r] : 0;
}

uint64_t pg_collector_samples(const struct pg_collector *c)
{
	return c->samples;
}

void pg_collector_drop(struct pg_collector *c, enum pg_reason r, uint64_t n)
{
	if (r < PG_NR_REASONS)
		c->dropped[r] += n;
}
