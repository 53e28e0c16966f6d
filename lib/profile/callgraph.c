// SPDX-License-Identifier: MIT
/* Call-graph trees under report rows, printed as perf report prints them (see callgraph.h). */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/callgraph.h"
#include "symbol/symtab.h"
#include "util/error.h"
#include "util/hashmap.h"

#define NODES_PER_BLOCK 1024

struct node_block {
	struct node_block *next;
	size_t used;
	struct cg_node nodes[NODES_PER_BLOCK];
};

/*
 * Children are found by walking the parent's list; the children of nodes
 * with more than WIDE of them are also in one hash table. Each child walked
 * past is a cache miss on a large graph: beyond two, one probe of the table
 * costs less (a graph of 200,000 chains of 4 to 16 frames: 25% less time
 * than with eight, for 9% more memory).
 */
#define WIDE 2

struct callgraph {
	struct hashmap children;	/* the children of wide nodes, by (parent, frame key) */
	struct node_block *blocks;
	enum cg_key key;
};

/* What tells two frames apart: perf's "function" key (DSO and symbol), else the address. */
struct node_key {
	const struct cg_node *parent;
	const struct cg_frame *frame;
	enum cg_key key;
};

/* The length of f's function name without the " (inlined)" of an inlined one. */
static size_t func_name_len(const struct cg_frame *f)
{
	size_t n = strlen(f->sym->name);

	return f->inlined && n > 10 ? n - 10 : n;
}

/*
 * perf's match_chain(): inlined functions by name, others by DSO and symbol
 * (or address). perf also matches an inlined function with an out-of-line
 * one of the same name; here an inlined frame matches inlined ones only
 * (so that the hash of a frame follows from the frame alone), and sorts
 * after the others. 2: neither is inlined, for the caller to compare.
 */
static int cmp_frames(const struct cg_frame *a, const struct cg_frame *b)
{
	size_t la, lb;
	int c;

	if (!a->inlined && !b->inlined)
		return 2;
	if (a->inlined != b->inlined)
		return a->inlined ? 1 : -1;
	la = func_name_len(a);
	lb = func_name_len(b);
	c = memcmp(a->sym->name, b->sym->name, la < lb ? la : lb);
	if (c)
		return c < 0 ? -1 : 1;
	return la < lb ? -1 : la > lb;
}

static bool same_frame(const struct cg_frame *a, const struct cg_frame *b, enum cg_key key)
{
	int c;

	/* perf's match_chain(): srclines where both have one (interned: one pointer each),
	   addresses with that key */
	if (key == CG_KEY_SRCLINE && (a->srcline || b->srcline))
		return a->srcline == b->srcline;
	if (key == CG_KEY_ADDRESS)
		return a->dso == b->dso && a->ip == b->ip;
	c = cmp_frames(a, b);
	if (c != 2)
		return c == 0;
	if (a->dso != b->dso || a->sym != b->sym)
		return false;
	return a->sym || a->ip == b->ip;
}

static uint64_t key_hash(const struct cg_node *parent, const struct cg_frame *f, enum cg_key key)
{
	uint64_t h = (uintptr_t)parent;

	if (key == CG_KEY_SRCLINE && f->srcline)
		return hash_u64(hash_combine(h, (uintptr_t)f->srcline));
	if (key == CG_KEY_ADDRESS)
		return hash_u64(hash_combine(hash_combine(h, (uintptr_t)f->dso), f->ip));
	if (f->inlined)
		return hash_u64(hash_combine(h, hash_bytes(f->sym->name, func_name_len(f))));
	h = hash_combine(h, (uintptr_t)f->dso);
	h = hash_combine(h, f->sym ? (uintptr_t)f->sym : f->ip);
	return hash_u64(h);
}

static bool node_eq(const void *entry, const void *key)
{
	const struct cg_node *n = entry;
	const struct node_key *k = key;

	return n->parent == k->parent && same_frame(&n->frame, k->frame, k->key);
}

struct callgraph *callgraph_new(void)
{
	return calloc(1, sizeof(struct callgraph));
}

void callgraph_free(struct callgraph *cg)
{
	if (!cg)
		return;
	for (struct node_block *b = cg->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	hashmap_release(&cg->children);
	free(cg);
}

static struct cg_node *node_alloc(struct callgraph *cg)
{
	struct node_block *b = cg->blocks;

	if (!b || b->used == NODES_PER_BLOCK) {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		b->next = cg->blocks;
		b->used = 0;
		cg->blocks = b;
	}
	memset(&b->nodes[b->used], 0, sizeof(b->nodes[0]));
	return &b->nodes[b->used++];
}

void callgraph_set_key(struct callgraph *cg, enum cg_key key)
{
	cg->key = key;
}

struct cg_node *callgraph_root_new(struct callgraph *cg)
{
	return node_alloc(cg);
}

/* The child of n for frame f, or NULL. */
static struct cg_node *find_child(struct callgraph *cg, struct cg_node *n, const struct cg_frame *f)
{
	struct node_key key = { n, f, cg->key };

	if (n->nr_children > WIDE)
		return hashmap_get(&cg->children, key_hash(n, f, cg->key), node_eq, &key);
	for (struct cg_node *c = n->children; c; c = c->next)
		if (same_frame(&c->frame, f, cg->key))
			return c;
	return NULL;
}

/* A new child of n for frame f, or NULL when out of memory. */
static struct cg_node *add_child(struct callgraph *cg, struct cg_node *n, const struct cg_frame *f)
{
	struct cg_node *c = node_alloc(cg);

	if (!c)
		return NULL;
	/* a node that grows wide: its children go into the table too */
	if (n->nr_children == WIDE)
		for (struct cg_node *x = n->children; x; x = x->next)
			if (hashmap_put(&cg->children, key_hash(n, &x->frame, cg->key), x))
				return NULL;
	if (n->nr_children >= WIDE && hashmap_put(&cg->children, key_hash(n, f, cg->key), c))
		return NULL;
	c->frame = *f;
	c->parent = n;
	c->next = n->children;
	n->children = c;
	n->nr_children++;
	return c;
}

int callgraph_add(struct callgraph *cg, struct cg_node *root, const struct cg_frame *frames,
		  size_t nr, uint64_t period)
{
	struct cg_node *n = root;

	if (nr > root->depth)
		root->depth = (uint32_t)nr;
	for (size_t i = 0; i < nr; i++) {
		struct cg_node *c = find_child(cg, n, &frames[i]);

		if (!c && !(c = add_child(cg, n, &frames[i])))
			return sbx_error(-ENOMEM, "out of memory");
		n->cumul += period;
		n->cumul_samples++;
		n = c;
	}
	n->cumul += period;
	n->cumul_samples++;
	n->hit += period;
	n->hit_samples++;
	return 0;
}

/* ------------------------------------------------------------------ printing */

/*
 * Siblings in perf's order: the heaviest first; of equal weight, in the
 * order of perf's lookup tree, which holds the greater keys first (by DSO,
 * then symbol address or IP). perf compares DSOs by their address in
 * memory, which follows the order it made them in; here that order itself
 * (dso.seq), so that the output is the same on every run.
 */
/* the key of the tree being printed: qsort's comparators have no context (one thread) */
static enum cg_key print_key;

static int cmp_key(const struct cg_node *a, const struct cg_node *b)
{
	const struct cg_frame *x = &a->frame, *y = &b->frame;
	uint64_t kx, ky;
	int c;

	/* perf's match_chain() of that key: srclines as strings, or DSO and address */
	if (print_key == CG_KEY_SRCLINE && (x->srcline || y->srcline)) {
		if (x->srcline == y->srcline)
			return 0;
		/* perf's match_chain_strings(): none is greater than any */
		if (!x->srcline || !y->srcline)
			return !x->srcline ? -1 : 1;
		return strcmp(x->srcline, y->srcline) > 0 ? -1 : 1;
	}
	c = print_key == CG_KEY_ADDRESS ? 2 : cmp_frames(x, y);
	if (c != 2)
		return -c;
	if (x->dso != y->dso) {
		if (!x->dso || !y->dso)
			return x->dso ? -1 : 1;
		return x->dso->seq > y->dso->seq ? -1 : 1;
	}
	kx = x->sym && print_key != CG_KEY_ADDRESS ? x->sym->start : x->ip;
	ky = y->sym && print_key != CG_KEY_ADDRESS ? y->sym->start : y->ip;
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return 0;
}

static int cmp_by_cumul(const void *pa, const void *pb)
{
	const struct cg_node *a = *(const struct cg_node *const *)pa;
	const struct cg_node *b = *(const struct cg_node *const *)pb;

	if (a->cumul != b->cumul)
		return a->cumul > b->cumul ? -1 : 1;
	return cmp_key(a, b);
}

static int cmp_by_key(const void *pa, const void *pb)
{
	return cmp_key(*(const struct cg_node *const *)pa, *(const struct cg_node *const *)pb);
}

/* The children of n whose cumul is at least min_hit, sorted by cmp; NULL with *nr 0 if none. */
static struct cg_node **sorted_children(const struct cg_node *n, uint64_t min_hit,
					int (*cmp)(const void *, const void *), size_t *nr,
					int *err)
{
	struct cg_node **v;
	size_t k = 0;

	*nr = 0;
	if (!n->nr_children)
		return NULL;
	v = malloc(n->nr_children * sizeof(*v));
	if (!v) {
		*err = -ENOMEM;
		return NULL;
	}
	for (struct cg_node *c = n->children; c; c = c->next)
		if (c->cumul >= min_hit)
			v[k++] = c;
	qsort(v, k, sizeof(*v), cmp);
	*nr = k;
	return v;
}

struct printer {
	FILE *f;
	const struct cg_print_opts *o;
	cg_name_fn name;
	void *ctx;
	uint64_t min_hit;	/* graph, flat, folded: of the event's total */
	int err;
};

/* A run: n and the nodes below it that perf keeps in one node (no hit, one child). */
static const struct cg_node *run_end(const struct cg_node *n)
{
	while (!n->hit && n->nr_children == 1)
		n = n->children;
	return n;
}

static void print_value(struct printer *p, uint64_t period, uint64_t samples, uint64_t total)
{
	switch (p->o->value) {
	case CG_VALUE_PERIOD:
		fprintf(p->f, "%" PRIu64, period);
		break;
	case CG_VALUE_COUNT:
		fprintf(p->f, "%" PRIu64, samples);
		break;
	default:
		fprintf(p->f, "%.2f%%", total ? 100.0 * (double)period / (double)total : 0.0);
		break;
	}
}

static void print_margin(struct printer *p, int left_margin)
{
	fprintf(p->f, "%*s", 12 + left_margin, "");
}

/* The line between two branches: the pipes of the levels still open. */
static void print_graph_line(struct printer *p, int depth, const bool *mask, int left_margin)
{
	print_margin(p, left_margin);
	for (int i = 0; i < depth; i++)
		fputs(mask[i] ? "|          " : "           ", p->f);
	fputc('\n', p->f);
}

/*
 * One frame of a branch, or "[...]" for the fractal's remainder (frame
 * NULL); the first of a run (first) carries the branch's value,
 * "--38.75%--name".
 */
static void print_graph_entry(struct printer *p, const struct cg_node *frame,
			      uint64_t period, uint64_t samples, int depth, const bool *mask,
			      bool first, uint64_t total, int left_margin)
{
	print_margin(p, left_margin);
	for (int i = 0; i < depth; i++) {
		fputc(mask[i] ? '|' : ' ', p->f);
		if (first && i == depth - 1) {
			fputs("--", p->f);
			print_value(p, period, samples, total);
			fputs("--", p->f);
		} else {
			fputs("          ", p->f);
		}
	}
	fprintf(p->f, "%s\n", frame ? p->name(&frame->frame, p->ctx) : "[...]");
}

/* The children of parent at depth (1 for the top), as perf's __callchain__fprintf_graph. */
/* The least cumul of the children of n that are shown: of the total, or of n's (fractal). */
static uint64_t min_hit_under(const struct printer *p, const struct cg_node *n)
{
	if (p->o->mode != CG_FRACTAL)
		return p->min_hit;
	return (uint64_t)ceil((double)(n->cumul - n->hit) * p->o->min_percent / 100.0);
}

/*
 * The children of parent at depth (1 for the top), as perf's
 * __callchain__fprintf_graph; mask[i] says whether level i's pipe goes on.
 * Returns the number of children printed.
 */
static size_t print_graph_children(struct printer *p, const struct cg_node *parent, uint64_t total,
				   int depth, bool *mask, int left_margin)
{
	bool fractal = p->o->mode == CG_FRACTAL;
	uint64_t remaining = total, cumul_samples = 0;
	struct cg_node **kids;
	size_t nr;

	kids = sorted_children(parent, min_hit_under(p, parent), cmp_by_cumul, &nr, &p->err);
	/* mask[depth] is this level's pipe for the levels below it */
	for (size_t k = 0; k < nr; k++) {
		const struct cg_node *c = kids[k], *end = run_end(c);
		bool last = k + 1 == nr;

		remaining -= c->cumul;
		cumul_samples += c->cumul_samples;
		/* the pipes of this level end at the last child, unless "[...]" follows */
		print_graph_line(p, depth, mask, left_margin);
		if (last && (!fractal || !remaining))
			mask[depth - 1] = false;
		for (const struct cg_node *n = c;; n = n->children) {
			print_graph_entry(p, n, c->cumul, c->cumul_samples, depth, mask, n == c,
					  total, left_margin);
			if (n == end)
				break;
		}
		mask[depth] = true;
		print_graph_children(p, end, fractal ? end->cumul - end->hit : total, depth + 1,
				     mask, left_margin);
		if (k + 1 == p->o->print_limit)
			break;	/* perf's "[...]" still counts the ones left out here */
	}
	if (fractal && nr && remaining && remaining != total) {
		uint64_t rem_samples = (parent->cumul_samples - parent->hit_samples) - cumul_samples;

		if (p->o->value != CG_VALUE_COUNT || (int64_t)rem_samples > 0) {
			mask[depth - 1] = false;
			print_graph_entry(p, NULL, remaining, rem_samples, depth, mask, true, total,
					  left_margin);
		}
	}
	free(kids);
	return nr;
}

static void print_graph(struct printer *p, const struct cg_node *root, uint64_t parent_total,
			bool *mask)
{
	const struct cg_print_opts *o = p->o;
	const struct cg_node *top = root;
	uint64_t total = o->mode == CG_FRACTAL ? parent_total : o->total;
	int left_margin = o->left_margin;
	uint32_t entries = 0;
	bool printed = false;
	struct cg_node **kids;
	size_t nr;

	kids = sorted_children(root, min_hit_under(p, root), cmp_by_cumul, &nr, &p->err);
	/* one chain root with all of the row: printed without a share, "---name" */
	if (nr == 1 && kids[0]->cumul == parent_total) {
		const struct cg_node *end = run_end(kids[0]);

		for (const struct cg_node *n = kids[0];; n = n->children) {
			if (!(n == kids[0] && o->skip_first)) {
				print_margin(p, left_margin);
				if (!printed) {
					fputs("|\n", p->f);
					print_margin(p, left_margin);
					fputs("---", p->f);
					left_margin += 3;
					printed = true;
				}
				fprintf(p->f, "%s\n", p->name(&n->frame, p->ctx));
				if (++entries == o->print_limit)
					break;
			}
			if (n == end)
				break;
		}
		top = end;
	}
	free(kids);
	mask[0] = true;
	/* a blank line after a tree, none where nothing was printed */
	if (print_graph_children(p, top, total, 1, mask, left_margin) || printed)
		fputc('\n', p->f);
}

/* Every node with a hit of at least min_hit, children before parents, siblings by key. */
static int collect_hits(const struct cg_node *n, uint64_t min_hit, const struct cg_node ***v,
			size_t *nr, size_t *cap)
{
	struct cg_node **kids;
	size_t nk;
	int err = 0;

	kids = sorted_children(n, 0, cmp_by_key, &nk, &err);
	for (size_t i = 0; i < nk && !err; i++)
		err = collect_hits(kids[i], min_hit, v, nr, cap);
	free(kids);
	if (err || !n->hit || n->hit < min_hit || !n->parent)
		return err;
	if (*nr == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		const struct cg_node **w = realloc(*v, c * sizeof(*w));

		if (!w)
			return -ENOMEM;
		*v = w;
		*cap = c;
	}
	(*v)[(*nr)++] = n;
	return 0;
}

struct hit_ref {
	const struct cg_node *n;
	size_t seq;
};

static int cmp_by_hit(const void *pa, const void *pb)
{
	const struct hit_ref *a = pa, *b = pb;

	if (a->n->hit != b->n->hit)
		return a->n->hit > b->n->hit ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The frames from the top of the tree down to n, each through emit. */
static void print_path(struct printer *p, const struct cg_node *n, bool folded, bool *first)
{
	if (!n->parent)
		return;
	print_path(p, n->parent, folded, first);
	if (folded)
		fprintf(p->f, "%s%s", *first ? "" : ";", p->name(&n->frame, p->ctx));
	else
		fprintf(p->f, "                %s\n", p->name(&n->frame, p->ctx));
	*first = false;
}

/* flat: each chain that ends somewhere, its share and its frames; folded: one line each */
static int print_chains(struct printer *p, const struct cg_node *root)
{
	const struct cg_node **v = NULL;
	struct hit_ref *refs = NULL;
	size_t nr = 0, cap = 0;
	int err = collect_hits(root, p->min_hit, &v, &nr, &cap);

	if (!err && nr && !(refs = malloc(nr * sizeof(*refs))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < nr; i++)
		refs[i] = (struct hit_ref){ v[i], i };
	if (!err && nr)
		qsort(refs, nr, sizeof(*refs), cmp_by_hit);
	for (size_t i = 0; !err && i < nr && !(p->o->print_limit && i == p->o->print_limit); i++) {
		const struct cg_node *n = refs[i].n;
		bool first = true;

		if (p->o->mode == CG_FOLDED) {
			print_value(p, n->hit, n->hit_samples, p->o->total);
			fputc(' ', p->f);
			print_path(p, n, true, &first);
			fputc('\n', p->f);
		} else {
			/* perf prints the node's cumulated share here, not its hit */
			fputs("           ", p->f);
			print_value(p, n->cumul, n->cumul_samples, p->o->total);
			fputc('\n', p->f);
			print_path(p, n, false, &first);
			fputc('\n', p->f);
		}
	}
	free(refs);
	free(v);
	return err;
}

int callgraph_print(FILE *f, const struct cg_node *root, uint64_t parent_total,
		    const struct cg_print_opts *opts, cg_name_fn name, void *ctx)
{
	struct printer p = { f, opts, name, ctx, 0, 0 };
	bool *mask;

	print_key = opts->key;
	p.min_hit = (uint64_t)((double)opts->total * opts->min_percent / 100.0);
	if (opts->mode == CG_FLAT || opts->mode == CG_FOLDED) {
		p.err = print_chains(&p, root);
	} else {
		mask = calloc((size_t)root->depth + 2, sizeof(*mask));
		if (!mask)
			return sbx_error(-ENOMEM, "out of memory");
		print_graph(&p, root, parent_total, mask);
		free(mask);
	}
	if (p.err)
		return sbx_error(p.err, "out of memory");
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------------ JSON */

static json_object *json_node(const struct cg_node *n, uint64_t min_hit, cg_name_fn name,
			      void *ctx, int *err)
{
	json_object *o = json_object_new_object(), *kids = json_object_new_array();
	struct cg_node **v;
	size_t nr;

	json_object_object_add(o, "name", json_object_new_string(name(&n->frame, ctx)));
	json_object_object_add(o, "dso", json_object_new_string(n->frame.dso ?
								 n->frame.dso->shown_path : "[unknown]"));
	json_object_object_add(o, "kernel", json_object_new_boolean(n->frame.kernel));
	if (!n->frame.sym)
		json_object_object_add(o, "address", json_object_new_int64((int64_t)n->frame.ip));
	if (n->frame.inlined)
		json_object_object_add(o, "inlined", json_object_new_boolean(true));
	json_object_object_add(o, "self", json_object_new_int64((int64_t)n->hit));
	json_object_object_add(o, "total", json_object_new_int64((int64_t)n->cumul));
	json_object_object_add(o, "self_samples", json_object_new_int64((int64_t)n->hit_samples));
	json_object_object_add(o, "total_samples",
			       json_object_new_int64((int64_t)n->cumul_samples));
	v = sorted_children(n, min_hit, cmp_by_cumul, &nr, err);
	for (size_t i = 0; i < nr; i++)
		json_object_array_add(kids, json_node(v[i], min_hit, name, ctx, err));
	free(v);
	json_object_object_add(o, "children", kids);
	return o;
}

json_object *callgraph_json(const struct cg_node *root, const struct cg_print_opts *opts,
			    cg_name_fn name, void *ctx)
{
	uint64_t min_hit = (uint64_t)((double)opts->total * opts->min_percent / 100.0);
	json_object *arr = json_object_new_array();
	struct cg_node **v;
	size_t nr;
	int err = 0;

	print_key = opts->key;
	v = sorted_children(root, min_hit, cmp_by_cumul, &nr, &err);
	for (size_t i = 0; i < nr; i++)
		json_object_array_add(arr, json_node(v[i], min_hit, name, ctx, &err));
	free(v);
	if (err) {
		json_object_put(arr);
		errno = ENOMEM;
		return NULL;
	}
	return arr;
}
