// SPDX-License-Identifier: MIT
/* GCC 12's AutoFDO profile, written from a sample profile (see afdo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile/afdo.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hashmap.h"

#define TAG_NAMES	0xaa000000u
#define TAG_FUNCTIONS	0xac000000u
#define TAG_MODULES	0xae000000u
#define HIST_INDIR_CALL	7u	/* create_gcov's type of a call target (GCC 12 ignores it) */

/* A name as GCC 12 compares it (cut at its first '.'), and its place in the table. */
struct aname {
	char *s;
	uint32_t idx;
	bool top;		/* a top-level function has it */
};

struct atarget {
	struct aname *name;
	uint64_t count;
};

/* One line of an instance: the most of its discriminators, their targets summed. */
struct apos {
	uint32_t line;
	uint64_t count;
	struct atarget *targets;
	size_t nr_targets;
};

struct ainst;

struct acall {
	uint32_t line;
	struct ainst *inst;
};

struct ainst {
	struct aname *name;
	uint64_t total;
	struct apos *pos;
	size_t nr_pos;
	struct acall *calls;
	size_t nr_calls;
};

struct afdo {
	struct hashmap names;		/* struct aname, by string */
	int err;
};

static bool aname_is(const void *entry, const void *key)
{
	return !strcmp(((const struct aname *)entry)->s, key);
}

/* The name, cut at its first '.' as GCC 12 cuts every name it reads, interned. */
static struct aname *intern(struct afdo *a, const char *name)
{
	size_t n = strcspn(name, ".");
	char *s = strndup(name, n);
	struct aname *e;

	if (!s) {
		a->err = -ENOMEM;
		return NULL;
	}
	e = hashmap_get(&a->names, hash_str(s), aname_is, s);
	if (e) {
		free(s);
		return e;
	}
	e = calloc(1, sizeof(*e));
	if (!e || hashmap_put(&a->names, hash_str(s), e)) {
		free(e);
		free(s);
		a->err = -ENOMEM;
		return NULL;
	}
	e->s = s;
	return e;
}

static void inst_free(struct ainst *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nr_pos; i++)
		free(x->pos[i].targets);
	free(x->pos);
	for (size_t i = 0; i < x->nr_calls; i++)
		inst_free(x->calls[i].inst);
	free(x->calls);
	free(x);
}

static int cmp_body_line(const void *p, const void *q)
{
	const struct sp_body *x = *(struct sp_body *const *)p, *y = *(struct sp_body *const *)q;

	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	return x->loc.disc < y->loc.disc ? -1 : x->loc.disc > y->loc.disc;
}

/* A target to pos: summed with one of the same (cut) name. */
static void add_target(struct afdo *a, struct apos *pos, const struct sp_target *t)
{
	struct aname *n = intern(a, t->name);
	struct atarget *v;

	/* a name that is all suffix (".omp_outlined."): GCC 12 stops at index 0 */
	if (!n || !n->s[0])
		return;
	for (size_t i = 0; i < pos->nr_targets; i++)
		if (pos->targets[i].name == n) {
			pos->targets[i].count = sp_add(pos->targets[i].count, t->count);
			return;
		}
	v = realloc(pos->targets, (pos->nr_targets + 1) * sizeof(*v));
	if (!v) {
		a->err = -ENOMEM;
		return;
	}
	pos->targets = v;
	v[pos->nr_targets++] = (struct atarget){ n, t->count };
}

/* The lines of f, one position each. */
static void convert_body(struct afdo *a, struct ainst *x, const struct sp_func *f)
{
	size_t nb = hashmap_nr(&f->body), k = 0;
	struct sp_body **b = nb ? malloc(nb * sizeof(*b)) : NULL, *e;

	if (nb && (!b || !(x->pos = calloc(nb, sizeof(*x->pos))))) {
		free(b);
		a->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; (e = hashmap_next(&f->body, &i));)
		b[k++] = e;
	if (nb)
		qsort(b, nb, sizeof(*b), cmp_body_line);
	for (size_t i = 0; i < nb && !a->err; i++) {
		struct sp_target *t;
		struct apos *pos;

		if (!x->nr_pos || x->pos[x->nr_pos - 1].line != b[i]->loc.line)
			x->pos[x->nr_pos++] = (struct apos){ .line = b[i]->loc.line };
		pos = &x->pos[x->nr_pos - 1];
		if (b[i]->count > pos->count)
			pos->count = b[i]->count;
		for (size_t j = 0; (t = hashmap_next(&b[i]->targets, &j));)
			add_target(a, pos, t);
	}
	free(b);
}

static struct ainst *convert(struct afdo *a, const struct sp_func *f);

/* The inlined callees of f: one per line and (cut) name, the larger total of those that meet. */
static void convert_calls(struct afdo *a, struct ainst *x, const struct sp_func *f)
{
	struct sp_callsite *c;
	struct sp_func *g;
	size_t n = 0;

	for (size_t i = 0; (c = hashmap_next(&f->callsites, &i));)
		n += hashmap_nr(&c->callees);
	if (!n)
		return;
	x->calls = calloc(n, sizeof(*x->calls));
	if (!x->calls) {
		a->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; !a->err && (c = hashmap_next(&f->callsites, &i));) {
		for (size_t k = 0; !a->err && (g = hashmap_next(&c->callees, &k));) {
			struct ainst *y = convert(a, g);
			size_t j;

			if (!y)
				break;
			if (!y->name->s[0]) {	/* all suffix: no name GCC 12 can take */
				inst_free(y);
				continue;
			}
			for (j = 0; j < x->nr_calls; j++)
				if (x->calls[j].line == c->loc.line && x->calls[j].inst->name == y->name)
					break;
			if (j == x->nr_calls) {
				x->calls[x->nr_calls++] = (struct acall){ c->loc.line, y };
			} else if (y->total > x->calls[j].inst->total) {
				inst_free(x->calls[j].inst);
				x->calls[j].inst = y;
			} else {
				inst_free(y);
			}
		}
	}
}

static struct ainst *convert(struct afdo *a, const struct sp_func *f)
{
	struct ainst *x = calloc(1, sizeof(*x));

	if (!x) {
		a->err = -ENOMEM;
		return NULL;
	}
	x->name = intern(a, f->name);
	x->total = f->total;
	if (x->name)
		convert_body(a, x, f);
	if (!a->err)
		convert_calls(a, x, f);
	if (a->err) {
		inst_free(x);
		return NULL;
	}
	return x;
}

static void put_str(struct bytes *b, const char *s)
{
	bytes_put_u32(b, (uint32_t)strlen(s) + 1);
	bytes_put_str(b, s);
}

static void put_inst(struct bytes *b, const struct ainst *x)
{
	bytes_put_u32(b, x->name->idx);
	bytes_put_u32(b, (uint32_t)x->nr_pos);
	bytes_put_u32(b, (uint32_t)x->nr_calls);
	for (size_t i = 0; i < x->nr_pos; i++) {
		const struct apos *p = &x->pos[i];

		bytes_put_u32(b, p->line << 16);
		bytes_put_u32(b, (uint32_t)p->nr_targets);
		bytes_put_u64(b, p->count);
		for (size_t k = 0; k < p->nr_targets; k++) {
			bytes_put_u32(b, HIST_INDIR_CALL);
			bytes_put_u64(b, p->targets[k].name->idx);
			bytes_put_u64(b, p->targets[k].count);
		}
	}
	for (size_t i = 0; i < x->nr_calls; i++) {
		bytes_put_u32(b, x->calls[i].line << 16);
		put_inst(b, x->calls[i].inst);
	}
}

/* The section's length, in words after its length word (GCC 12 reads past it). */
static void patch_length(struct bytes *b, size_t at)
{
	bytes_patch_u32(b, at, (uint32_t)((b->len - at - 4 + 3) / 4));
}

static int cmp_aname(const void *p, const void *q)
{
	return strcmp((*(struct aname *const *)p)->s, (*(struct aname *const *)q)->s);
}

int sample_profile_write_afdo(struct sample_profile *p, FILE *out)
{
	struct afdo a = { .names = HASHMAP_INIT };
	struct sp_func *const *funcs;
	size_t nf = sample_profile_sorted(p, &funcs), nt = 0, nn;
	struct ainst **top = nf ? calloc(nf, sizeof(*top)) : NULL;
	uint64_t *heads = nf ? calloc(nf, sizeof(*heads)) : NULL;
	struct aname **sorted = NULL, *e;
	struct bytes b = { 0 };
	size_t at;
	int err = 0;

	if ((sample_profile_nr(p) && !funcs) || (nf && (!top || !heads)) || !intern(&a, "")) {
		err = -ENOMEM;
		goto out;
	}
	/* largest total first: of the functions that meet at one cut name, the first stays */
	for (size_t i = 0; i < nf && !a.err; i++) {
		struct ainst *x = convert(&a, funcs[i]);

		if (!x)
			break;
		/* one function a name (the first: the larger total), and none without one */
		if (x->name->top || !x->name->s[0]) {
			inst_free(x);
			continue;
		}
		x->name->top = true;
		heads[nt] = funcs[i]->head;
		top[nt++] = x;
	}
	if (a.err) {
		err = a.err;
		goto out;
	}
	/* the names in byte order, "" first, as create_gcov writes them */
	nn = hashmap_nr(&a.names);
	sorted = malloc(nn * sizeof(*sorted));
	if (!sorted) {
		err = -ENOMEM;
		goto out;
	}
	nn = 0;
	for (size_t i = 0; (e = hashmap_next(&a.names, &i));)
		sorted[nn++] = e;
	qsort(sorted, nn, sizeof(*sorted), cmp_aname);
	for (size_t i = 0; i < nn; i++)
		sorted[i]->idx = (uint32_t)i;

	bytes_put_u32(&b, AFDO_MAGIC);
	bytes_put_u32(&b, AFDO_VERSION);
	bytes_put_u32(&b, 0);
	bytes_put_u32(&b, TAG_NAMES);
	at = b.len;
	bytes_put_u32(&b, 0);
	bytes_put_u32(&b, (uint32_t)nn);
	for (size_t i = 0; i < nn; i++)
		put_str(&b, sorted[i]->s);
	patch_length(&b, at);
	bytes_put_u32(&b, TAG_FUNCTIONS);
	at = b.len;
	bytes_put_u32(&b, 0);
	bytes_put_u32(&b, (uint32_t)nt);
	for (size_t i = 0; i < nt; i++) {
		bytes_put_u64(&b, heads[i]);
		put_inst(&b, top[i]);
	}
	patch_length(&b, at);
	bytes_put_u32(&b, TAG_MODULES);
	bytes_put_u32(&b, 0);
	bytes_put_u32(&b, 0);
	if (b.failed)
		err = -ENOMEM;
	else if (fwrite(b.p, 1, b.len, out) != b.len)
		err = sbx_error_errno(-errno, "writing the profile");
out:
	for (size_t i = 0; i < nt; i++)
		inst_free(top[i]);
	free(top);
	free(heads);
	free(sorted);
	for (size_t i = 0; (e = hashmap_next(&a.names, &i));) {
		free(e->s);
		free(e);
	}
	hashmap_release(&a.names);
	free(b.p);
	if (err == -ENOMEM)
		return sbx_error(err, "out of memory");
	return err;
}
