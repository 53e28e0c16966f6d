// SPDX-License-Identifier: MIT
/* LLVM sample profiles: the model and the text writer (see sampleprof.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/sampleprof.h"
#include "util/arena.h"
#include "util/bytes.h"
#include "util/error.h"

struct sample_profile {
	struct hashmap funcs;		/* top-level struct sp_func, by name */
	struct hashmap strings;		/* interned names */
	struct arena mem;		/* the functions, callsites, lines, targets and names */
	struct sp_func **sorted;	/* sample_profile_sorted()'s array */
	unsigned origin;		/* sample_profile_set_origin() */
};

static bool str_is(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

bool sp_func_named(const void *entry, const void *key)
{
	return !strcmp(((const struct sp_func *)entry)->name, key);
}

static bool target_is(const void *entry, const void *key)
{
	return !strcmp(((const struct sp_target *)entry)->name, key);
}

static bool body_at(const void *entry, const void *key)
{
	const struct sp_loc *a = &((const struct sp_body *)entry)->loc, *b = key;

	return a->line == b->line && a->disc == b->disc;
}

static bool callsite_at(const void *entry, const void *key)
{
	const struct sp_loc *a = &((const struct sp_callsite *)entry)->loc, *b = key;

	return a->line == b->line && a->disc == b->disc;
}

static uint64_t loc_hash(struct sp_loc l)
{
	return hash_u64((uint64_t)l.line << 32 | l.disc);
}

static const char *intern(struct sample_profile *p, const char *s)
{
	uint64_t h = hash_str(s);
	char *n = hashmap_get(&p->strings, h, str_is, s);

	if (n)
		return n;
	n = arena_strdup(&p->mem, s);
	return n && !hashmap_put(&p->strings, h, n) ? n : NULL;
}

struct sample_profile *sample_profile_new(void)
{
	return calloc(1, sizeof(struct sample_profile));
}

void sp_func_release(struct sp_func *f)
{
	struct sp_body *b;
	struct sp_callsite *c;
	struct sp_func *g;

	for (size_t i = 0; (b = hashmap_next(&f->body, &i));) {
		struct sp_target *t;

		for (size_t k = 0; (t = hashmap_next(&b->targets, &k));)
			arena_forget(t, sizeof(*t));
		hashmap_release(&b->targets);
		arena_forget(b, sizeof(*b));
	}
	hashmap_release(&f->body);
	for (size_t i = 0; (c = hashmap_next(&f->callsites, &i));) {
		for (size_t k = 0; (g = hashmap_next(&c->callees, &k));)
			sp_func_release(g);
		hashmap_release(&c->callees);
		arena_forget(c, sizeof(*c));
	}
	hashmap_release(&f->callsites);
	arena_forget(f, sizeof(*f));
}

void sample_profile_free(struct sample_profile *p)
{
	struct sp_func *f;

	if (!p)
		return;
	for (size_t i = 0; (f = hashmap_next(&p->funcs, &i));)
		sp_func_release(f);
	hashmap_release(&p->funcs);
	hashmap_release(&p->strings);
	arena_release(&p->mem);
	free(p->sorted);
	free(p);
}

/* The function of that name in map, made on first use. */
static struct sp_func *func_in(struct sample_profile *p, struct hashmap *map, const char *name)
{
	uint64_t h = hash_str(name);
	struct sp_func *f = hashmap_get(map, h, sp_func_named, name);

	if (f)
		return f;
	f = arena_zalloc(&p->mem, sizeof(*f));
	if (!f || !(f->name = intern(p, name)) || hashmap_put(map, h, f))
		return NULL;
	return f;
}

struct sp_func *sample_profile_func(struct sample_profile *p, const char *name)
{
	size_t n = hashmap_nr(&p->funcs);
	struct sp_func *f = func_in(p, &p->funcs, name);

	if (f) {
		free(p->sorted);
		p->sorted = NULL;
		if (hashmap_nr(&p->funcs) > n)
			f->origin = p->origin;
	}
	return f;
}

void sample_profile_set_origin(struct sample_profile *p, unsigned origin)
{
	p->origin = origin;
}

struct sp_func *sample_profile_find(const struct sample_profile *p, const char *name)
{
	return hashmap_get(&p->funcs, hash_str(name), sp_func_named, name);
}

struct sp_func *sp_func_inlinee(struct sample_profile *p, struct sp_func *f, struct sp_loc loc,
				const char *callee)
{
	uint64_t h = loc_hash(loc);
	struct sp_callsite *c = hashmap_get(&f->callsites, h, callsite_at, &loc);

	if (!c) {
		c = arena_zalloc(&p->mem, sizeof(*c));
		if (!c || hashmap_put(&f->callsites, h, c))
			return NULL;
		c->loc = loc;
	}
	return func_in(p, &c->callees, callee);
}

struct sp_body *sp_func_body(struct sample_profile *p, struct sp_func *f, struct sp_loc loc)
{
	uint64_t h = loc_hash(loc);
	struct sp_body *b = hashmap_get(&f->body, h, body_at, &loc);

	if (b)
		return b;
	b = arena_zalloc(&p->mem, sizeof(*b));
	if (!b || hashmap_put(&f->body, h, b))
		return NULL;
	b->loc = loc;
	return b;
}

int sp_func_add_target(struct sample_profile *p, struct sp_func *f, struct sp_loc loc,
		       const char *target, uint64_t count)
{
	struct sp_body *b = sp_func_body(p, f, loc);
	struct sp_target *t;
	uint64_t h = hash_str(target);

	if (!b)
		return -ENOMEM;
	t = hashmap_get(&b->targets, h, target_is, target);
	if (!t) {
		t = arena_zalloc(&p->mem, sizeof(*t));
		if (!t || !(t->name = intern(p, target)) || hashmap_put(&b->targets, h, t))
			return -ENOMEM;
	}
	t->count = sp_add(t->count, count);
	return 0;
}

void sp_func_body_covers_calls(struct sp_func *f)
{
	struct sp_body *b;
	struct sp_target *t;

	for (size_t i = 0; (b = hashmap_next(&f->body, &i));) {
		uint64_t sum = 0;

		for (size_t k = 0; (t = hashmap_next(&b->targets, &k));)
			sum = sp_add(sum, t->count);
		if (sum > b->count)
			b->count = sum;
	}
}

void sample_profile_remove_if(struct sample_profile *p, bool (*pred)(const char *name))
{
	struct sp_func *f;

	for (size_t i = 0; (f = hashmap_next(&p->funcs, &i));) {
		if (!pred(f->name))
			continue;
		hashmap_remove(&p->funcs, hash_str(f->name), sp_func_named, f->name);
		sp_func_release(f);
		i = 0;	/* the table changed: start over */
	}
	free(p->sorted);
	p->sorted = NULL;
}

/* ------------------------------------------------------------ sorting */

static int cmp_func_total(const void *a, const void *b)
{
	const struct sp_func *x = *(const struct sp_func *const *)a;
	const struct sp_func *y = *(const struct sp_func *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_func_name(const void *a, const void *b)
{
	return strcmp((*(const struct sp_func *const *)a)->name,
		      (*(const struct sp_func *const *)b)->name);
}

static int cmp_loc(struct sp_loc a, struct sp_loc b)
{
	if (a.line != b.line)
		return a.line < b.line ? -1 : 1;
	return a.disc < b.disc ? -1 : a.disc > b.disc;
}

static int cmp_body(const void *a, const void *b)
{
	return cmp_loc((*(const struct sp_body *const *)a)->loc,
		       (*(const struct sp_body *const *)b)->loc);
}

static int cmp_callsite(const void *a, const void *b)
{
	return cmp_loc((*(const struct sp_callsite *const *)a)->loc,
		       (*(const struct sp_callsite *const *)b)->loc);
}

/* Call targets: most calls first, then by name (LLVM's SortCallTargets). */
static int cmp_target(const void *a, const void *b)
{
	const struct sp_target *x = *(const struct sp_target *const *)a;
	const struct sp_target *y = *(const struct sp_target *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The entries of a hash map in a new array, sorted by cmp (NULL with *nr 0 when empty). */
static void **sorted_entries(const struct hashmap *m, int (*cmp)(const void *, const void *),
			     size_t *nr)
{
	void **v, *e;
	size_t n = 0;

	*nr = 0;
	if (!hashmap_nr(m))
		return NULL;
	v = malloc(hashmap_nr(m) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; (e = hashmap_next(m, &i));)
		v[n++] = e;
	qsort(v, n, sizeof(*v), cmp);
	*nr = n;
	return v;
}

size_t sample_profile_sorted(struct sample_profile *p, struct sp_func *const **funcs)
{
	size_t n = hashmap_nr(&p->funcs);

	if (!p->sorted)
		p->sorted = (struct sp_func **)sorted_entries(&p->funcs, cmp_func_total, &n);
	*funcs = p->sorted;
	return p->sorted ? hashmap_nr(&p->funcs) : 0;
}

size_t sample_profile_nr(const struct sample_profile *p)
{
	return hashmap_nr(&p->funcs);
}

/* ---------------------------------------------------------------- text */

/* A number in decimal (the writer's commonest output: printf's parsing costs more) */
static void put_u64(FILE *out, uint64_t v)
{
	char buf[20];
	size_t i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(buf + i, 1, sizeof(buf) - i, out);
}

static void put_spaces(FILE *out, int n)
{
	static const char spaces[] = "                                ";

	for (; n > 0; n -= (int)sizeof(spaces) - 1)
		fwrite_unlocked(spaces, 1, n < (int)sizeof(spaces) - 1 ? (size_t)n : sizeof(spaces) - 1,
				out);
}

static void put_loc(FILE *out, struct sp_loc l)
{
	put_u64(out, l.line);
	if (l.disc) {
		fputc_unlocked('.', out);
		put_u64(out, l.disc);
	}
	fputs_unlocked(": ", out);
}

/*
 * What a writer does at each step of the one walk of a function (sp_walk):
 * the function itself, each body record (sorted by location, its call
 * targets by count), the number of inlined callees, then each of them
 * (by location, then name) after the location it was inlined at. depth is
 * 0 for a top-level function. The text and extbinary writers are two of
 * these.
 */
struct sp_emit {
	void *ctx;
	void (*func)(void *ctx, const struct sp_func *f, int depth, size_t nr_body);
	void (*body)(void *ctx, const struct sp_body *b, struct sp_target *const *t, size_t nt,
		     int depth);
	void (*callees)(void *ctx, size_t nr, int depth);
	void (*inlined_at)(void *ctx, struct sp_loc loc, int depth);
};

static int sp_walk(const struct sp_func *f, int depth, const struct sp_emit *e)
{
	size_t nb, nc, nt, ncallees = 0;
	struct sp_body **body = (struct sp_body **)sorted_entries(&f->body, cmp_body, &nb);
	struct sp_callsite **cs = (struct sp_callsite **)sorted_entries(&f->callsites,
									cmp_callsite, &nc);
	int err = 0;

	if ((hashmap_nr(&f->body) && !body) || (hashmap_nr(&f->callsites) && !cs)) {
		free(body);
		free(cs);
		return -ENOMEM;
	}
	e->func(e->ctx, f, depth, nb);
	for (size_t i = 0; i < nb && !err; i++) {
		struct sp_target **t = (struct sp_target **)sorted_entries(&body[i]->targets,
									   cmp_target, &nt);

		if (hashmap_nr(&body[i]->targets) && !t) {
			err = -ENOMEM;
			break;
		}
		e->body(e->ctx, body[i], t, nt, depth);
		free(t);
	}
	for (size_t i = 0; i < nc; i++)
		ncallees += hashmap_nr(&cs[i]->callees);
	if (!err)
		e->callees(e->ctx, ncallees, depth);
	for (size_t i = 0; i < nc && !err; i++) {
		struct sp_func **g = (struct sp_func **)sorted_entries(&cs[i]->callees,
								       cmp_func_name, &nt);

		if (hashmap_nr(&cs[i]->callees) && !g) {
			err = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < nt && !err; k++) {
			e->inlined_at(e->ctx, cs[i]->loc, depth);
			err = sp_walk(g[k], depth + 1, e);
		}
		free(g);
	}
	free(body);
	free(cs);
	return err;
}

/* The text format: a function's header line, then its lines one space deeper per level. */
static void text_func(void *ctx, const struct sp_func *f, int depth, size_t nr_body)
{
	FILE *out = ctx;

	fputs_unlocked(f->name, out);
	fputc_unlocked(':', out);
	put_u64(out, f->total);
	if (!depth) {
		fputc_unlocked(':', out);
		put_u64(out, f->head);
	}
	fputc_unlocked('\n', out);
}

static void text_body(void *ctx, const struct sp_body *b, struct sp_target *const *t, size_t nt,
		      int depth)
{
	FILE *out = ctx;

	put_spaces(out, depth + 1);
	put_loc(out, b->loc);
	put_u64(out, b->count);
	for (size_t k = 0; k < nt; k++) {
		fputc_unlocked(' ', out);
		fputs_unlocked(t[k]->name, out);
		fputc_unlocked(':', out);
		put_u64(out, t[k]->count);
	}
	fputc_unlocked('\n', out);
}

static void text_callees(void *ctx, size_t nr, int depth)
{
}

static void text_inlined_at(void *ctx, struct sp_loc loc, int depth)
{
	put_spaces(ctx, depth + 1);
	put_loc(ctx, loc);
}

int sample_profile_write_text(struct sample_profile *p, FILE *out)
{
	struct sp_func *const *funcs;
	size_t n = sample_profile_sorted(p, &funcs);

	if (sample_profile_nr(p) && !funcs)
		return sbx_error(-ENOMEM, "out of memory");
	const struct sp_emit text = { out, text_func, text_body, text_callees, text_inlined_at };

	for (size_t i = 0; i < n; i++)
		if (sp_walk(funcs[i], 0, &text))
			return sbx_error(-ENOMEM, "out of memory");
	return 0;
}

/* ----------------------------------------------------------- extbinary */

/*
 * The extensible binary format as llvm-profdata 14 and 19 write it by
 * default (llvm/ProfileData/SampleProfWriter.cpp, SampleProf.h): magic and
 * version 103 as ULEB128, a table of 7 sections (u64 type, flags, offset,
 * size), then the sections: summary, name table, CS name table (empty),
 * the function records, the symbol list (empty), the function offset table,
 * the function metadata (empty). Every number in them is ULEB128.
 */

#define SP_MAGIC_EXTBINARY	0x5350524F46343204ULL
#define SP_VERSION		103

enum {
	SEC_SUMMARY = 1, SEC_NAME_TABLE = 2, SEC_SYMBOL_LIST = 3, SEC_FUNC_OFFSETS = 4,
	SEC_FUNC_METADATA = 5, SEC_CS_NAME_TABLE = 6, SEC_LBR_PROFILE = 32,
};

/* The name table: every name, sorted by its bytes (std::set<StringRef> order). */
struct names {
	struct hashmap index;		/* struct name_slot, by name */
	const char **sorted;
	size_t nr;
};

struct name_slot {
	const char *name;
	size_t idx;
};

static bool slot_is(const void *entry, const void *key)
{
	return !strcmp(((const struct name_slot *)entry)->name, key);
}

static int add_name(struct names *n, const char *name)
{
	struct name_slot *s;

	if (hashmap_get(&n->index, hash_str(name), slot_is, name))
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s || hashmap_put(&n->index, hash_str(name), s)) {
		free(s);
		return -ENOMEM;
	}
	s->name = name;
	n->nr++;
	return 0;
}

static int collect_names(struct names *n, const struct sp_func *f)
{
	struct sp_body *b;
	struct sp_callsite *c;
	struct sp_func *g;
	struct sp_target *t;

	if (add_name(n, f->name))
		return -ENOMEM;
	for (size_t i = 0; (b = hashmap_next(&f->body, &i));)
		for (size_t k = 0; (t = hashmap_next(&b->targets, &k));)
			if (add_name(n, t->name))
				return -ENOMEM;
	for (size_t i = 0; (c = hashmap_next(&f->callsites, &i));)
		for (size_t k = 0; (g = hashmap_next(&c->callees, &k));)
			if (collect_names(n, g))
				return -ENOMEM;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t name_idx(const struct names *n, const char *name)
{
	const struct name_slot *s = hashmap_get(&n->index, hash_str(name), slot_is, name);

	return s ? s->idx : 0;
}

static void names_release(struct names *n)
{
	struct name_slot *s;

	for (size_t i = 0; (s = hashmap_next(&n->index, &i));)
		free(s);
	hashmap_release(&n->index);
	free(n->sorted);
}

/* Every body count (all depths, zeros too): what the summary is made of. */
struct counts {
	uint64_t *v;
	size_t nr, cap;
};

static int collect_counts(struct counts *c, const struct sp_func *f)
{
	struct sp_body *b;
	struct sp_callsite *cs;
	struct sp_func *g;

	for (size_t i = 0; (b = hashmap_next(&f->body, &i));) {
		if (c->nr == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 1024;
			uint64_t *v = realloc(c->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			c->v = v;
			c->cap = cap;
		}
		c->v[c->nr++] = b->count;
	}
	for (size_t i = 0; (cs = hashmap_next(&f->callsites, &i));)
		for (size_t k = 0; (g = hashmap_next(&cs->callees, &k));)
			if (collect_counts(c, g))
				return -ENOMEM;
	return 0;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x > y ? -1 : x < y;
}

/* SampleProfileSummaryBuilder with LLVM's 16 default cutoffs. */
static int write_summary(struct bytes *out, struct sp_func *const *funcs, size_t nf)
{
	static const uint32_t cutoffs[] = { 10000, 100000, 200000, 300000, 400000, 500000,
					    600000, 700000, 800000, 900000, 950000, 990000,
					    999000, 999900, 999990, 999999 };
	struct counts c = { 0 };
	uint64_t total = 0, max = 0, max_head = 0, sum = 0, count = 0;
	uint32_t seen = 0;
	size_t it = 0;

	for (size_t i = 0; i < nf; i++) {
		if (collect_counts(&c, funcs[i])) {
			free(c.v);
			return -ENOMEM;
		}
		if (funcs[i]->head > max_head)
			max_head = funcs[i]->head;
	}
	for (size_t i = 0; i < c.nr; i++) {
		total += c.v[i];
		if (c.v[i] > max)
			max = c.v[i];
	}
	if (c.nr)
		qsort(c.v, c.nr, sizeof(*c.v), cmp_desc);
	bytes_put_uleb(out, total);
	bytes_put_uleb(out, max);
	bytes_put_uleb(out, max_head);
	bytes_put_uleb(out, c.nr);
	bytes_put_uleb(out, nf);
	bytes_put_uleb(out, sizeof(cutoffs) / sizeof(*cutoffs));
	for (size_t k = 0; k < sizeof(cutoffs) / sizeof(*cutoffs); k++) {
		/* floor(total * cutoff / 1e6), without overflow */
		unsigned __int128 want = (unsigned __int128)total * cutoffs[k] / 1000000;

		/* equal counts are taken as one group */
		while (sum < want && it < c.nr) {
			uint64_t v = c.v[it];
			uint32_t freq = 0;

			while (it < c.nr && c.v[it] == v) {
				it++;
				freq++;
			}
			count = v;
			sum += v * freq;
			seen += freq;
		}
		bytes_put_uleb(out, cutoffs[k]);
		bytes_put_uleb(out, count);
		bytes_put_uleb(out, seen);
	}
	free(c.v);
	return 0;
}

/* The extbinary format: a function's body (no head): name, total, records, then the inlined callees. */
struct ext_ctx {
	struct bytes *out;
	const struct names *n;
};

static void ext_func(void *ctx, const struct sp_func *f, int depth, size_t nr_body)
{
	struct ext_ctx *x = ctx;

	bytes_put_uleb(x->out, name_idx(x->n, f->name));
	bytes_put_uleb(x->out, f->total);
	bytes_put_uleb(x->out, nr_body);
}

static void ext_body(void *ctx, const struct sp_body *b, struct sp_target *const *t, size_t nt,
		     int depth)
{
	struct ext_ctx *x = ctx;

	bytes_put_uleb(x->out, b->loc.line);
	bytes_put_uleb(x->out, b->loc.disc);
	bytes_put_uleb(x->out, b->count);
	bytes_put_uleb(x->out, nt);
	for (size_t k = 0; k < nt; k++) {
		bytes_put_uleb(x->out, name_idx(x->n, t[k]->name));
		bytes_put_uleb(x->out, t[k]->count);
	}
}

static void ext_callees(void *ctx, size_t nr, int depth)
{
	bytes_put_uleb(((struct ext_ctx *)ctx)->out, nr);
}

static void ext_inlined_at(void *ctx, struct sp_loc loc, int depth)
{
	struct ext_ctx *x = ctx;

	bytes_put_uleb(x->out, loc.line);
	bytes_put_uleb(x->out, loc.disc);
}

int sample_profile_write_extbinary(struct sample_profile *p, FILE *out)
{
	struct sp_func *const *funcs;
	size_t nf = sample_profile_sorted(p, &funcs);
	struct names names = { HASHMAP_INIT, NULL, 0 };
	struct bytes head = { 0 }, sec[7] = { { 0 } };
	/* table order (LLVM's DefaultLayout), and where each payload goes in the file */
	static const uint64_t types[7] = { SEC_SUMMARY, SEC_NAME_TABLE, SEC_CS_NAME_TABLE,
					   SEC_FUNC_OFFSETS, SEC_LBR_PROFILE, SEC_SYMBOL_LIST,
					   SEC_FUNC_METADATA };
	static const int physical[7] = { 0, 1, 2, 4, 5, 3, 6 };
	uint64_t offsets[7], *func_off = NULL, pos;
	bool uniq = false;
	int err = 0;

	if (sample_profile_nr(p) && !funcs)
		return sbx_error(-ENOMEM, "out of memory");
	for (size_t i = 0; i < nf && !err; i++)
		err = collect_names(&names, funcs[i]);
	names.sorted = malloc((names.nr ? names.nr : 1) * sizeof(*names.sorted));
	func_off = malloc((nf ? nf : 1) * sizeof(*func_off));
	if (err || !names.sorted || !func_off) {
		err = -ENOMEM;
		goto out;
	}
	{
		struct name_slot *s;
		size_t k = 0;

		for (size_t i = 0; (s = hashmap_next(&names.index, &i));)
			names.sorted[k++] = s->name;
		qsort(names.sorted, names.nr, sizeof(*names.sorted), cmp_str);
		for (size_t i = 0; i < names.nr; i++) {
			s = hashmap_get(&names.index, hash_str(names.sorted[i]), slot_is,
					names.sorted[i]);
			s->idx = i;
			uniq |= strstr(names.sorted[i], ".__uniq.") != NULL;
		}
	}
	err = write_summary(&sec[0], funcs, nf);
	bytes_put_uleb(&sec[1], names.nr);
	for (size_t i = 0; i < names.nr; i++)
		bytes_put(&sec[1], names.sorted[i], strlen(names.sorted[i]) + 1);
	bytes_put_uleb(&sec[2], 0);	/* no CS names */
	for (size_t i = 0; i < nf && !err; i++) {
		struct ext_ctx x = { &sec[4], &names };
		const struct sp_emit ext = { &x, ext_func, ext_body, ext_callees, ext_inlined_at };

		func_off[i] = sec[4].len;
		bytes_put_uleb(&sec[4], funcs[i]->head);
		err = sp_walk(funcs[i], 0, &ext);
	}
	bytes_put_uleb(&sec[3], nf);
	for (size_t i = 0; i < nf; i++) {
		bytes_put_uleb(&sec[3], name_idx(&names, funcs[i]->name));
		bytes_put_uleb(&sec[3], func_off[i]);
	}
	for (int i = 0; i < 7; i++)
		err = err ? err : sec[i].failed ? -ENOMEM : 0;
	if (err)
		goto out;
	bytes_put_uleb(&head, SP_MAGIC_EXTBINARY);
	bytes_put_uleb(&head, SP_VERSION);
	bytes_put_u64(&head, 7);
	pos = head.len + 7 * 32;
	for (int k = 0; k < 7; k++) {
		int i = physical[k];

		offsets[i] = pos;
		pos += sec[i].len;
	}
	for (int i = 0; i < 7; i++) {
		bytes_put_u64(&head, types[i]);
		/* the name table says when names carry .__uniq. suffixes */
		bytes_put_u64(&head, types[i] == SEC_NAME_TABLE && uniq ? 1ULL << 34 : 0);
		bytes_put_u64(&head, offsets[i]);
		bytes_put_u64(&head, sec[i].len);
	}
	if (head.failed) {
		err = -ENOMEM;
		goto out;
	}
	fwrite(head.p, 1, head.len, out);
	for (int k = 0; k < 7; k++)
		if (sec[physical[k]].len)
			fwrite(sec[physical[k]].p, 1, sec[physical[k]].len, out);
out:
	for (int i = 0; i < 7; i++)
		free(sec[i].p);
	free(head.p);
	free(func_off);
	names_release(&names);
	return err ? sbx_error(err, "out of memory") : 0;
}
