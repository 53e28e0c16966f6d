/* SPDX-License-Identifier: MIT */
#ifndef SBX_PROFILE_CALLGRAPH_H
#define SBX_PROFILE_CALLGRAPH_H

/*
 * Call graphs as perf report prints them under its rows (-g): each row's
 * call chains merged into a tree of functions, printed as perf's graph
 * (absolute shares), fractal (shares of the parent), flat (one chain per
 * line block) or folded (one line per chain) form, with its threshold.
 *
 * The trees are tries of frames: a frame is a function (a DSO and a symbol)
 * or, without a symbol, an address in a DSO, so two call sites of one
 * function are one node, as with perf's default key "function". Each node
 * counts the period of the chains that end in it (hit) and of those that
 * pass through it (cumul, hit included). Where perf keeps runs of frames in
 * one node, this keeps one node per frame; a run is a node with no hit and
 * one child, so the printed trees are the same.
 *
 *	struct callgraph *cg = callgraph_new();
 *	struct cg_node *root = callgraph_root_new(cg);	// one per row
 *	callgraph_add(cg, root, frames, nr, period);	// frames in print order
 *	callgraph_print(f, root, row_period, &opts, name_fn, ctx);
 *	callgraph_free(cg);				// every node of every root
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbol/dso.h"

struct json_object;

/* One frame of a chain: a function, or an address of a DSO where no symbol holds it. */
struct cg_frame {
	struct dso *dso;		/* NULL: outside every map */
	const struct symbol *sym;	/* NULL: ip names the frame */
	uint64_t ip;			/* the address as sampled */
	bool kernel;
	bool inlined;			/* sym is an inlined function ("NAME (inlined)"):
					   frames match by NAME, as perf's */
	const char *srcline;		/* -g address/srcline: the frame's srcline
					   (chain_callchain_srcline(), interned), or NULL */
};

/*
 * What tells frames apart (perf's -g key): the function (DSO and symbol;
 * the default), the address (DSO and the address as sampled), or the
 * srcline (frames that both have one by it, others by their function).
 */
enum cg_key { CG_KEY_FUNCTION, CG_KEY_ADDRESS, CG_KEY_SRCLINE };

struct cg_node {
	struct cg_frame frame;
	uint64_t hit;			/* period of the chains that end here */
	uint64_t cumul;			/* period of the chains through here, hit included */
	uint64_t hit_samples, cumul_samples;
	struct cg_node *parent;
	struct cg_node *children;	/* first child, in no order (printing sorts) */
	struct cg_node *next;		/* next sibling */
	uint32_t nr_children;
	uint32_t depth;			/* a root: its longest chain */
};

struct callgraph;

/* A new, empty set of trees; NULL with errno on failure. */
struct callgraph *callgraph_new(void);

/* Free cg and every node of its trees. */
void callgraph_free(struct callgraph *cg);

/* A new empty tree (its root has no frame); NULL when out of memory. */
struct cg_node *callgraph_root_new(struct callgraph *cg);

/* The key of cg's frames (CG_KEY_FUNCTION until set); set it before adding chains. */
void callgraph_set_key(struct callgraph *cg, enum cg_key key);

/*
 * Add one chain, frames[0..nr) from the root of the printed tree down (the
 * caller first in caller order, the sampled function first in callee
 * order), of the given period, to the tree under root. An empty chain
 * counts in the root alone. 0, or -ENOMEM (with a message).
 */
int callgraph_add(struct callgraph *cg, struct cg_node *root, const struct cg_frame *frames,
		  size_t nr, uint64_t period);

enum cg_mode { CG_GRAPH, CG_FRACTAL, CG_FLAT, CG_FOLDED };

/* What a branch shows: its share, its period or its samples (perf's -g ...,percent|period|count). */
enum cg_value { CG_VALUE_PERCENT, CG_VALUE_PERIOD, CG_VALUE_COUNT };

/* What to print, as perf report's -g MODE,THRESHOLD,...,VALUE sets it. */
struct cg_print_opts {
	enum cg_mode mode;
	enum cg_value value;
	double min_percent;	/* branches under this share are left out */
	uint32_t print_limit;	/* the first N branches of a level or chains of a row; 0: all */
	uint64_t total;		/* the event's period: graph, flat and folded shares are of it */
	int left_margin;	/* columns before the tree, after perf's 12 */
	bool skip_first;	/* -s sym: the first frame of a single root is the row's own */
	enum cg_key key;	/* the graph's key (callgraph_set_key()): siblings of equal
				   weight are in the order of perf's tree of that key */
};

/* The name of a frame as printed; the string stays valid until the next call. */
typedef const char *(*cg_name_fn)(const struct cg_frame *f, void *ctx);

/*
 * Print the tree under root as perf report --stdio prints a row's call
 * graph (callchain__fprintf_graph and its flat and folded siblings):
 * siblings heaviest first, branches under opts->min_percent left out (of
 * the total, or of their parent in fractal mode). row_period is the row's
 * own (its Children with --children): a single chain root holding all of
 * it is printed without a share. Returns 0, -ENOMEM (with a message) or
 * -EIO.
 */
int callgraph_print(FILE *f, const struct cg_node *root, uint64_t row_period,
		    const struct cg_print_opts *opts, cg_name_fn name, void *ctx);

/*
 * The tree under root as a JSON array of nodes, each {name, dso, kernel,
 * address (unresolved frames only), inlined (inlined functions only:
 * true), self, total, self_samples,
 * total_samples, children}, siblings heaviest first, branches under
 * opts->min_percent of opts->total left out. NULL with errno on failure.
 */
struct json_object *callgraph_json(const struct cg_node *root,
				   const struct cg_print_opts *opts, cg_name_fn name, void *ctx);

#endif
