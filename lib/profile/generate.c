// SPDX-License-Identifier: MIT
/* Counts to sample profiles, IP-only and LBR (see generate.h). */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "profile/generate.h"
#include "util/array.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/ranges.h"

#define MAX_FRAMES	64

/* ------------------------------------------------------ discriminators */

/*
 * LLVM's prefix encoding of discriminator components
 * (DILocation::getUnsignedFromPrefixEncoding): bit 0 set means 0; else the
 * value follows in 5 bits, or in 12 bits (5 + 7, after bit 6 = 1).
 */
static uint32_t prefix_decode(uint32_t u)
{
	if (u & 1)
		return 0;
	u >>= 1;
	return (u & 0x20) ? (((u >> 1) & 0xfe0) | (u & 0x1f)) : (u & 0x1f);
}

/* The next component (DILocation::getNextComponentInDiscriminator). */
static uint32_t next_component(uint32_t d)
{
	if ((d & 1) == 0)
		return d >> ((d & 0x40) ? 14 : 7);
	return d >> 1;
}

uint32_t pg_base_discriminator(uint32_t d)
{
	return prefix_decode(d);
}

uint32_t pg_duplication_factor(uint32_t d)
{
	uint32_t f = prefix_decode(next_component(d));

	return f ? f : 1;
}

/* The location a frame's line has in its function's profile. */
static struct sp_loc frame_loc(const struct dwarf_frame *f)
{
	return (struct sp_loc){ (f->line - f->func_line) & 0xffff,
				pg_base_discriminator(f->discriminator) };
}

/*
 * The profile of the innermost frame: the top-level function of frames[0]
 * and an inlinee per further frame, each at the location of the call in its
 * caller. With total, that count is added to every level.
 */
static struct sp_func *leaf_profile(struct sample_profile *p, const struct dwarf_frame *frames,
				    size_t n, uint64_t total)
{
	struct sp_func *f = sample_profile_func(p, frames[0].func);

	for (size_t i = 0; f; i++) {
		f->total = sp_add(f->total, total);
		if (i + 1 == n)
			break;
		f = sp_func_inlinee(p, f, frame_loc(&frames[i]), frames[i + 1].func);
	}
	return f;
}

/* ------------------------------------------------------------ IP-only */

/* Counts of several inputs, merged by vaddr. */
struct vcount {
	uint64_t a, b, n;
};

static bool vcount_is(const void *entry, const void *key)
{
	const struct vcount *x = entry, *y = key;

	return x->a == y->a && x->b == y->b;
}

struct vcounts {
	struct hashmap map;
	struct vcount *all;		/* every entry, one allocation */
	size_t nr, cap;
};

static int vcounts_add(struct vcounts *v, uint64_t a, uint64_t b, uint64_t n)
{
	struct vcount key = { a, b, 0 }, *e;
	uint64_t h = hash_u64(hash_combine(a, b));

	e = hashmap_get(&v->map, h, vcount_is, &key);
	if (e) {
		e->n += n;
		return 0;
	}
	if (v->nr == v->cap) {
		/* entries move: the map is rebuilt from the array */
		size_t cap = v->cap ? 2 * v->cap : 4096;
		struct vcount *all = realloc(v->all, cap * sizeof(*all));

		if (!all)
			return -ENOMEM;
		v->all = all;
		v->cap = cap;
		hashmap_release(&v->map);
		for (size_t i = 0; i < v->nr; i++)
			if (hashmap_put(&v->map, hash_u64(hash_combine(all[i].a, all[i].b)), &all[i]))
				return -ENOMEM;
	}
	v->all[v->nr] = (struct vcount){ a, b, n };
	if (hashmap_put(&v->map, h, &v->all[v->nr]))
		return -ENOMEM;
	v->nr++;
	return 0;
}

static void vcounts_release(struct vcounts *v)
{
	hashmap_release(&v->map);
	free(v->all);
}

static int cmp_vcount(const void *x, const void *y)
{
	const struct vcount *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

static int cmp_count(const void *x, const void *y)
{
	const struct pg_count *a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/*
 * The IP counts of every input, by vaddr, sorted, in *out (to be freed):
 * taken from the DSOs (they have none after) and turned into addresses in
 * place, so that the biggest array of the run is never copied.
 */
static int merge_ips(struct pg_count **out, size_t *nr_out, struct pg_dso *const *d, size_t nr,
		     const struct binary *b)
{
	struct pg_count *all = NULL;
	bool sorted = true;
	size_t k = 0, nr_all = 0;

	for (size_t i = 0; i < nr; i++) {
		size_t n;
		struct pg_count *c = pg_dso_take_ips(d[i], &n);

		if (!c && n) {
			free(all);
			return -ENOMEM;
		}
		if (!c)
			continue;
		if (!all) {
			all = c;
		} else {
			struct pg_count *v = realloc(all, (nr_all + n) * sizeof(*v));

			if (!v) {
				free(c);
				free(all);
				return -ENOMEM;
			}
			all = v;
			memcpy(all + nr_all, c, n * sizeof(*c));
			free(c);
		}
		for (size_t j = nr_all; j < nr_all + n; j++) {
			all[j].a = binary_offset_to_vaddr(b, all[j].a);
			sorted &= !j || all[j].a >= all[j - 1].a;
		}
		nr_all += n;
	}
	/* several inputs (or segments out of order): sorted, equal ones added up */
	if (!sorted)
		qsort(all, nr_all, sizeof(*all), cmp_count);
	for (size_t i = 0; i < nr_all; i++) {
		if (k && all[k - 1].a == all[i].a)
			all[k - 1].n += all[i].n;
		else
			all[k++] = all[i];
	}
	*out = all;
	*nr_out = k;
	return 0;
}

/*
 * The frames of vaddr, or 0 with the reason in *why (PG_NO_FUNCTION,
 * PG_NO_LINE); with span, the addresses around vaddr where the answer is
 * the same (dwarf_info_frames_span).
 */
static size_t frames_span(const struct binary *b, uint64_t vaddr, struct dwarf_frame *frames,
			  enum pg_reason *why, uint64_t span[2])
{
	size_t n;

	if (span) {
		span[0] = vaddr;
		span[1] = vaddr + 1;
	}
	if (vaddr == UINT64_MAX || !dwarf_info_function_at(b->dwarf, vaddr)) {
		*why = PG_NO_FUNCTION;
		return 0;
	}
	n = span ? dwarf_info_frames_span(b->dwarf, vaddr, frames, MAX_FRAMES, span)
		 : dwarf_info_frames(b->dwarf, vaddr, frames, MAX_FRAMES);
	if (!n || !frames[n - 1].line) {
		*why = PG_NO_LINE;
		return 0;
	}
	return n;
}

static size_t frames_at(const struct binary *b, uint64_t vaddr, struct dwarf_frame *frames,
			enum pg_reason *why)
{
	return frames_span(b, vaddr, frames, why, NULL);
}

/* Without DWARF: the symbol as the function, one body line at offset 0. */
static const struct symbol *symbol_at(const struct binary *b, uint64_t vaddr)
{
	return vaddr == UINT64_MAX ? NULL : symtab_find(b->symtab, vaddr);
}

static void count_missing(struct pg_generate_stats *st, enum pg_reason why, uint64_t n)
{
	if (why == PG_NO_LINE)
		st->no_line += n;
	else
		st->no_function += n;
}

/*
 * The profile entries of one span of addresses with equal frames: every
 * level's function (each gets a count in its total) and the innermost
 * line's body (which keeps the maximum). Addresses that come sorted mostly
 * fall in the span of the one before, and then cost no lookup.
 */
struct span_cache {
	uint64_t addr[2];		/* [lo, hi) */
	size_t nf;			/* 0: no frames (why) */
	enum pg_reason why;
	struct sp_func *levels[MAX_FRAMES];
	struct sp_body *body;
	uint32_t dup;			/* the line's duplication factor */
	bool no_decl_line;		/* a level's function has no DW_AT_decl_line */
	bool discriminator;		/* a level's line has a discriminator */
	const char *top_name;		/* levels[0]'s frame name, as the frames give it */
};

#define SPAN_CACHE_EMPTY	{ .addr = { 1, 0 } }

static bool span_has(const struct span_cache *c, uint64_t addr)
{
	return addr >= c->addr[0] && addr < c->addr[1];
}

/* The entries for frames (nf of them, nf > 0); -ENOMEM when memory ran out. */
static int span_fill(struct span_cache *c, struct sample_profile *p,
		     const struct dwarf_frame *frames, size_t nf)
{
	/* the function of the span before, as a rule: its name need not be hashed again */
	struct sp_func *f = c->top_name == frames[0].func && c->levels[0]
				    ? c->levels[0] : sample_profile_func(p, frames[0].func);

	c->nf = nf;
	c->levels[0] = f;
	c->top_name = frames[0].func;
	for (size_t k = 1; f && k < nf; k++)
		c->levels[k] = f = sp_func_inlinee(p, f, frame_loc(&frames[k - 1]), frames[k].func);
	c->body = f ? sp_func_body(p, f, frame_loc(&frames[nf - 1])) : NULL;
	c->dup = pg_duplication_factor(frames[nf - 1].discriminator);
	c->no_decl_line = c->discriminator = false;
	for (size_t k = 0; k < nf; k++) {
		c->no_decl_line |= !frames[k].func_line;
		c->discriminator |= frames[k].discriminator != 0;
	}
	return c->body ? 0 : -ENOMEM;
}

/* total to every level, max(n times the duplication factor) to the line */
static void span_count(const struct span_cache *c, uint64_t total, uint64_t n)
{
	for (size_t k = 0; k < c->nf; k++)
		c->levels[k]->total = sp_add(c->levels[k]->total, total);
	if (sp_mul(n, c->dup) > c->body->count)
		c->body->count = sp_mul(n, c->dup);
}

/* The count of address a in ips (sorted by address), 0 when it has none. */
static uint64_t ip_count(const struct pg_count *ips, size_t nr, uint64_t a)
{
	size_t i = RANGES_FIND_LAST_LE(ips, nr, a, a);

	return i < nr && ips[i].a == a ? ips[i].n : 0;
}

#define ENTRY_BLOCK_MAX	64	/* instructions looked at for an entry block */

/*
 * An IP-only profile has no calls to count, so its head counts are
 * estimated: the most samples an instruction of the function's entry block
 * took (from entry to the first jump, return or trap, calls included, at
 * most ENTRY_BLOCK_MAX instructions). Each of
 * them runs once a call, and a line's count is the most samples one of its
 * instructions took, so this is the calls in the units of the body counts.
 * Without it clang takes the head count plus one, 1, for the entry count of
 * every function, and the block counts it derives from that are all cold.
 * cs must have details on.
 */
static uint64_t entry_block_count(csh cs, cs_insn *in, const struct binary *b, uint64_t entry,
				  uint64_t end, const struct pg_count *ips, size_t nr)
{
	uint64_t a = entry, most = 0;

	for (unsigned k = 0; k < ENTRY_BLOCK_MAX && a < end; k++) {
		size_t avail, left;
		const uint8_t *code = binary_code(b, a, &avail);
		uint64_t n = ip_count(ips, nr, a);

		if (n > most)
			most = n;
		if (!code)
			break;
		left = avail < end - a ? avail : end - a;
		if (!cs_disasm_iter(cs, &code, &left, &a, in) ||
		    cs_insn_group(cs, in, CS_GRP_JUMP) || cs_insn_group(cs, in, CS_GRP_RET) ||
		    cs_insn_group(cs, in, CS_GRP_INT) || in->id == X86_INS_UD2 ||
		    in->id == X86_INS_HLT)
			break;
	}
	return most;
}

/* What the walk of a function's rows needs besides the profile: the samples, a disassembler. */
struct ip_walk {
	const struct pg_count *ips;	/* sorted by address */
	size_t nr;
	csh cs;				/* with details on */
	cs_insn *in;
	struct hashmap heads;		/* struct dwarf_func, by entry: heads counted */
	struct bb_insn *insns;		/* function_blocks()'s, reused */
	size_t cap_insns;
	struct bb_block *blocks;
	size_t cap_blocks;
};

static bool func_entry_is(const void *entry, const void *key)
{
	return ((const struct dwarf_func *)entry)->entry == *(const uint64_t *)key;
}

/*
 * The samples of one function range, w->ips[*i] on (the first in fn): the
 * range's rows are walked from its start, so that every line of it gets a
 * body record, 0 when it took no sample, as llvm-profgen gives every line
 * of a function its ranges touch (clang takes a missing line for unknown
 * and infers its weight from its neighbours', but a 0 for cold), and the
 * samples of each row count for its line on the way. A function entry on
 * the way (fn's, or that of a function nested in its range) gets its head.
 */
static int function_ips(struct sample_profile *p, const struct binary *b,
			const struct dwarf_func *fn, struct ip_walk *w, size_t *i,
			struct pg_generate_stats *st)
{
	struct dwarf_frame frames[MAX_FRAMES];
	struct span_cache span = SPAN_CACHE_EMPTY;

	for (uint64_t a = fn->start; a < fn->end; a = span.addr[1]) {
		/* frames_span() without its function lookup: a is in fn */
		size_t nf = dwarf_info_frames_span(b->dwarf, a, frames, MAX_FRAMES, span.addr);

		span.nf = nf && frames[nf - 1].line ? nf : 0;
		span.why = PG_NO_LINE;
		if (span.nf && span_fill(&span, p, frames, span.nf))
			return -ENOMEM;
		if (nf) {
			const struct dwarf_func *f = frames[0].func == fn->name
						     ? fn : dwarf_info_function_at(b->dwarf, a);

			/* once a function: a nested one's range may be walked on its own first */
			if (f && f->entry >= a && f->entry < span.addr[1] &&
			    !hashmap_get(&w->heads, hash_u64(f->entry), func_entry_is, &f->entry)) {
				struct sp_func *top = sample_profile_func(p, f->name);

				if (!top || hashmap_put(&w->heads, hash_u64(f->entry), (void *)f))
					return -ENOMEM;
				top->head = sp_add(top->head,
						   entry_block_count(w->cs, w->in, b, f->entry,
								     f->end, w->ips, w->nr));
			}
		} else {
			/* no rows here at all: nothing to fill up to the next sample */
			uint64_t next = *i < w->nr && w->ips[*i].a < fn->end ? w->ips[*i].a : fn->end;

			span.addr[1] = next;
		}
		/* a row that runs past the function's end is its to the end only */
		if (span.addr[1] <= a)
			span.addr[1] = a + 1;
		else if (span.addr[1] > fn->end)
			span.addr[1] = fn->end;
		for (; *i < w->nr && w->ips[*i].a < span.addr[1]; ++*i) {
			const struct pg_count *c = &w->ips[*i];

			if (!span.nf) {
				count_missing(st, span.why, c->n);
				continue;
			}
			/* the count is the total of every level; the line's count, the maximum */
			span_count(&span, c->n, c->n);
			st->samples += c->n;
			if (span.no_decl_line)
				st->no_decl_line += c->n;
			if (span.discriminator)
				st->with_discriminator += c->n;
		}
	}
	return 0;
}

/*
 * Block counts of IP samples. A timer's sample lands on the instruction
 * after the one that ran (skid), often on an instruction of line 0 that the
 * compiler put between lines, so a line's own samples say little about how
 * often it ran. Every instruction of a basic block runs as often as the
 * block does: the block's samples, its instructions' together, over its
 * number of instructions, are its count, and each line gets the most of the
 * blocks it has code in. Samples on line 0 count for their block; a skid
 * within a block changes nothing. A block without a sample is given an
 * explicit 0 (cold) only where no block that jumps or falls into it has
 * samples: a small block in a hot loop (a latch whose samples skid onto the
 * loop's head) is left out instead, for clang to infer from its neighbours,
 * as AutoFDO leaves out every unsampled line. The head of a function is the
 * count of its entry block, in the units of its body counts.
 */
struct bb_insn {
	uint64_t a;
	uint64_t n;			/* samples at the instruction */
	uint64_t target;		/* a direct jump's target, or UINT64_MAX */
	uint32_t block;
	uint8_t end;			/* BB_*: how it ends its block; 0: it does not */
	bool leader;
};

enum { BB_FALLS = 1, BB_STOPS };	/* falls through too (a jcc) / does not (jmp, ret, ud2) */

struct bb_block {
	uint64_t sum, count;		/* its samples; its count */
	uint32_t ninsn;
	bool known_pred, hot_pred;	/* a jump or fall-through into it; one from a sampled block */
	bool has_line;			/* an instruction of it has a line */
};

#define BB_MAX_RANGE	(1u << 20)	/* a longer function range: per-line maxima */

/* How in ends a basic block, and its direct target. */
static uint8_t insn_end(csh cs, const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x = &in->detail->x86;

	*target = UINT64_MAX;
	if (cs_insn_group(cs, in, CS_GRP_RET) || in->id == X86_INS_UD2 ||
	    in->id == X86_INS_HLT || in->id == X86_INS_INT3)
		return BB_STOPS;
	if (!cs_insn_group(cs, in, CS_GRP_JUMP))
		return 0;
	if (x->op_count >= 1 && x->operands[0].type == X86_OP_IMM)
		*target = (uint64_t)x->operands[0].imm;
	return in->id == X86_INS_JMP || in->id == X86_INS_LJMP ? BB_STOPS : BB_FALLS;
}

/* The instruction at or before a (insns sorted), or 0. */
static size_t insn_index(const struct bb_insn *insns, size_t nr, uint64_t a)
{
	size_t k = RANGES_FIND_LAST_LE(insns, nr, a, a);

	return k < nr ? k : 0;
}

/* Disassemble [start, end) into w->insns; their number, or -ENOMEM. */
static ssize_t bb_disassemble(struct ip_walk *w, const struct binary *b, uint64_t start,
			      uint64_t end)
{
	size_t nr = 0;

	for (uint64_t a = start; a < end;) {
		size_t avail, left;
		const uint8_t *code = binary_code(b, a, &avail);
		uint64_t next = a;
		struct bb_insn *x;

		if (array_reserve(&w->insns, &w->cap_insns, nr + 1, sizeof(*w->insns)))
			return -ENOMEM;
		x = &w->insns[nr++];
		*x = (struct bb_insn){ .a = a, .target = UINT64_MAX };
		left = code ? (avail < end - a ? avail : end - a) : 0;
		if (!code || !cs_disasm_iter(w->cs, &code, &left, &next, w->in)) {
			/* not code capstone knows: a block of its own, one byte long */
			x->end = BB_STOPS;
			a++;
			continue;
		}
		x->end = insn_end(w->cs, w->in, &x->target);
		a = next;
	}
	return (ssize_t)nr;
}

/* Frames of one span of addresses, and the profile levels they name, made on first use. */
struct bb_span {
	uint64_t addr[2];
	size_t nf;
	struct dwarf_frame frames[MAX_FRAMES];
	struct sp_func *levels[MAX_FRAMES];
	bool filled;
	uint32_t dup;
	bool no_decl_line, discriminator;
};

static int bb_levels(struct sample_profile *p, struct bb_span *sp)
{
	struct sp_func *f;

	if (sp->filled)
		return 0;
	f = sample_profile_func(p, sp->frames[0].func);
	sp->levels[0] = f;
	for (size_t k = 1; f && k < sp->nf; k++)
		sp->levels[k] = f = sp_func_inlinee(p, f, frame_loc(&sp->frames[k - 1]),
						   sp->frames[k].func);
	if (!f)
		return -ENOMEM;
	sp->filled = true;
	return 0;
}

/*
 * The samples of one function range (w->ips[*i] on, the first in fn) by
 * block counts, as above.
 */
static int function_blocks(struct sample_profile *p, const struct binary *b,
			   const struct dwarf_func *fn, struct ip_walk *w, size_t *i,
			   struct pg_generate_stats *st)
{
	ssize_t got = bb_disassemble(w, b, fn->start, fn->end);
	struct bb_insn *in = w->insns;
	struct bb_span sp = { .addr = { 1, 0 } };
	size_t nr, nb = 0;

	if (got < 0)
		return -ENOMEM;
	nr = (size_t)got;
	if (!nr)
		return 0;
	/* the samples, each at the instruction that holds its address */
	for (; *i < w->nr && w->ips[*i].a < fn->end; ++*i)
		in[insn_index(in, nr, w->ips[*i].a)].n += w->ips[*i].n;
	/* leaders: the first, each after an end, each direct target in the range */
	in[0].leader = true;
	for (size_t k = 0; k < nr; k++) {
		if (in[k].end && k + 1 < nr)
			in[k + 1].leader = true;
		if (in[k].target >= fn->start && in[k].target < fn->end) {
			size_t t = insn_index(in, nr, in[k].target);

			if (in[t].a == in[k].target)
				in[t].leader = true;
		}
	}
	for (size_t k = 0; k < nr; k++) {
		nb += in[k].leader;
		in[k].block = (uint32_t)(nb - 1);
	}
	if (array_reserve(&w->blocks, &w->cap_blocks, nb, sizeof(*w->blocks)))
		return -ENOMEM;
	memset(w->blocks, 0, nb * sizeof(*w->blocks));
	for (size_t k = 0; k < nr; k++) {
		struct bb_block *bl = &w->blocks[in[k].block];

		bl->sum = sp_add(bl->sum, in[k].n);
		bl->ninsn++;
	}
	/* the edges: fall-through and direct jumps, from each block's last instruction */
	for (size_t k = 0; k < nr; k++) {
		const struct bb_block *from = &w->blocks[in[k].block];
		bool last = k + 1 == nr || in[k + 1].leader;

		if (!last)
			continue;
		if (in[k].end != BB_STOPS && k + 1 < nr) {
			w->blocks[in[k + 1].block].known_pred = true;
			w->blocks[in[k + 1].block].hot_pred |= from->sum > 0;
		}
		if (in[k].target >= fn->start && in[k].target < fn->end) {
			size_t t = insn_index(in, nr, in[k].target);

			if (in[t].a == in[k].target) {
				w->blocks[in[t].block].known_pred = true;
				w->blocks[in[t].block].hot_pred |= from->sum > 0;
			}
		}
	}
	for (size_t k = 0; k < nb; k++) {
		struct bb_block *bl = &w->blocks[k];

		bl->count = bl->sum ? (bl->sum + bl->ninsn / 2) / bl->ninsn : 0;
		if (bl->sum && !bl->count)
			bl->count = 1;
	}
	/* heads: the entry block of fn, and of a function nested in its range */
	for (size_t k = 0; k < nr; k++) {
		const struct dwarf_func *f;

		if (!in[k].leader)
			continue;
		f = in[k].a == fn->entry ? fn : NULL;
		if (!f && in[k].a != fn->start) {
			f = dwarf_info_function_at(b->dwarf, in[k].a);
			if (f && f->entry != in[k].a)
				f = NULL;
		}
		if (!f)
			continue;
		w->blocks[in[k].block].known_pred = true;	/* its callers */
		if (!hashmap_get(&w->heads, hash_u64(f->entry), func_entry_is, &f->entry)) {
			struct sp_func *top = sample_profile_func(p, f->name);

			if (!top || hashmap_put(&w->heads, hash_u64(f->entry), (void *)f))
				return -ENOMEM;
			top->head = sp_add(top->head, w->blocks[in[k].block].count);
		}
	}
	/* which blocks have a line: a block of line 0 only counts in no line */
	for (size_t k = 0; k < nr; k++) {
		struct dwarf_frame f[MAX_FRAMES];
		uint64_t span[2];
		size_t nf;

		if (w->blocks[in[k].block].has_line || !w->blocks[in[k].block].sum)
			continue;
		nf = dwarf_info_frames_span(b->dwarf, in[k].a, f, MAX_FRAMES, span);
		w->blocks[in[k].block].has_line = nf && f[nf - 1].line;
	}
	/* each instruction: its samples to the totals, its block's count to its line */
	for (size_t k = 0; k < nr; k++) {
		const struct bb_block *bl = &w->blocks[in[k].block];
		bool zero = !bl->sum && bl->known_pred && !bl->hot_pred;
		const struct dwarf_frame *leaf;

		if (!(in[k].a >= sp.addr[0] && in[k].a < sp.addr[1])) {
			sp.nf = dwarf_info_frames_span(b->dwarf, in[k].a, sp.frames, MAX_FRAMES,
						       sp.addr);
			if (sp.addr[1] <= in[k].a)
				sp.addr[1] = in[k].a + 1;
			sp.filled = false;
			sp.no_decl_line = sp.discriminator = false;
			for (size_t l = 0; l < sp.nf; l++) {
				sp.no_decl_line |= !sp.frames[l].func_line;
				sp.discriminator |= sp.frames[l].discriminator != 0;
			}
			sp.dup = sp.nf ? pg_duplication_factor(sp.frames[sp.nf - 1].discriminator) : 1;
		}
		if (!sp.nf) {
			count_missing(st, PG_NO_LINE, in[k].n);
			continue;
		}
		leaf = &sp.frames[sp.nf - 1];
		if (!bl->has_line)
			st->lineless_blocks += in[k].n;
		if (!in[k].n && !(leaf->line && (bl->count || zero)))
			continue;	/* nothing to write for it */
		if (bb_levels(p, &sp))
			return -ENOMEM;
		for (size_t l = 0; l < sp.nf; l++)
			sp.levels[l]->total = sp_add(sp.levels[l]->total, in[k].n);
		st->samples += in[k].n;
		if (sp.no_decl_line)
			st->no_decl_line += in[k].n;
		if (sp.discriminator && leaf->line)
			st->with_discriminator += in[k].n;
		if (leaf->line && (bl->count || zero)) {
			struct sp_body *body = sp_func_body(p, sp.levels[sp.nf - 1], frame_loc(leaf));

			if (!body)
				return -ENOMEM;
			if (sp_mul(bl->count, sp.dup) > body->count)
				body->count = sp_mul(bl->count, sp.dup);
		}
	}
	return 0;
}

static int generate_ip(struct sample_profile *p, const struct pg_count *ips, size_t nr,
		       const struct binary *b, struct pg_generate_stats *st)
{
	struct ip_walk w = { .ips = ips, .nr = nr, .heads = HASHMAP_INIT };
	const struct symbol *last = NULL;	/* the symbol with a head count, last */
	int err = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &w.cs) != CS_ERR_OK)
		return sbx_error(-EINVAL, "capstone cannot disassemble x86-64");
	cs_option(w.cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (!(w.in = cs_malloc(w.cs))) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nr && !err;) {
		const struct pg_count *c = &ips[i];
		uint64_t n = c->n;

		if (!b->dwarf) {
			const struct symbol *sym = symbol_at(b, c->a);
			struct sp_func *f;
			struct sp_body *body;

			i++;
			if (!sym) {
				st->no_function += n;
				continue;
			}
			f = sample_profile_func(p, sym->name);
			body = f ? sp_func_body(p, f, (struct sp_loc){ 0, 0 }) : NULL;
			if (!body) {
				err = -ENOMEM;
				break;
			}
			/* functions of one name (static ones) add up, as their totals do */
			if (sym != last) {
				uint64_t end = sym->size ? sym->start + sym->size : UINT64_MAX;

				last = sym;
				f->head = sp_add(f->head, entry_block_count(w.cs, w.in, b, sym->start,
									    end, ips, nr));
			}
			f->total = sp_add(f->total, n);
			if (n > body->count)
				body->count = n;
			st->samples += n;
		} else {
			const struct dwarf_func *fn = c->a == UINT64_MAX ? NULL
						    : dwarf_info_function_at(b->dwarf, c->a);

			if (fn && fn->end - fn->start <= BB_MAX_RANGE)
				err = function_blocks(p, b, fn, &w, &i, st);
			else if (fn)
				err = function_ips(p, b, fn, &w, &i, st);
			/* no function; or (never, as a guard) a range without the address */
			if (!err && &ips[i] == c) {
				st->no_function += n;
				i++;
			}
		}
	}
out:
	hashmap_release(&w.heads);
	free(w.insns);
	free(w.blocks);
	if (w.in)
		cs_free(w.in, 1);
	cs_close(&w.cs);
	return err == -ENOMEM ? sbx_error(err, "out of memory") : err;
}

/*
 * The function a call returning to ret called: a direct call (e8 rel32)
 * names it, even when it tail-called another, whose frame the stack shows;
 * else (an indirect call, or one into the PLT) the function of the frame
 * above, stack_callee.
 */
static const char *direct_callee(const struct binary *b, uint64_t ret, const char *stack_callee)
{
	size_t avail;
	const uint8_t *code = ret >= 5 ? binary_code(b, ret - 5, &avail) : NULL;
	const struct dwarf_func *f;
	int32_t rel;
	uint64_t target;

	if (!code || avail < 5 || code[0] != 0xe8)
		return stack_callee;
	memcpy(&rel, code + 1, 4);
	target = ret + (int64_t)rel;
	f = b->dwarf ? dwarf_info_function_at(b->dwarf, target) : NULL;
	if (f && f->entry == target)
		return f->name;
	return stack_callee;
}

/*
 * Does a call instruction end at ret? Capstone decodes the bytes before it,
 * at most 15, and a call must take them up to ret exactly. A frame-pointer
 * chain walked through code built without frame pointers gives return
 * addresses that follow no call: such a frame is no evidence of a call.
 * The binary's code must be there (a debug file has none): then every
 * return is taken.
 */
static bool call_ends_at(csh cs, cs_insn *in, const struct binary *b, uint64_t ret)
{
	size_t have;

	if (!binary_code(b, ret - 1, &have))
		return true;
	for (unsigned k = 2; k <= 15 && k <= ret; k++) {
		size_t avail, left = k;
		const uint8_t *code = binary_code(b, ret - k, &avail);
		uint64_t a = ret - k;

		if (code && avail >= k && cs_disasm_iter(cs, &code, &left, &a, in) && !left &&
		    (in->id == X86_INS_CALL || in->id == X86_INS_LCALL))
			return true;
	}
	return false;
}

/* Call chains: call targets at the call before each return address. */
static int generate_calls(struct sample_profile *p, struct pg_dso *const *d, size_t nr,
			  const struct binary *b, struct pg_generate_stats *st)
{
	struct dwarf_frame frames[MAX_FRAMES];
	size_t calls = 0;
	cs_insn *in;
	csh cs;
	int err = 0;

	for (size_t i = 0; i < nr; i++)
		calls += hashmap_nr(&d[i]->calls);
	if (!b->dwarf || !calls)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return sbx_error(-EINVAL, "capstone cannot disassemble x86-64");
	if (!(in = cs_malloc(cs))) {
		cs_close(&cs);
		return sbx_error(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nr && !err; i++) {
		struct pg_call *c;

		for (size_t k = 0; (c = hashmap_next(&d[i]->calls, &k));) {
			uint64_t ret = binary_offset_to_vaddr(b, c->ret);
			enum pg_reason why;
			struct sp_func *f;
			size_t nf;

			if (ret == UINT64_MAX || !ret)
				continue;
			st->returns += c->n;
			if (!call_ends_at(cs, in, b, ret)) {
				st->bad_returns += c->n;
				continue;
			}
			/* ret - 1 is inside the call instruction: its line is the call's */
			nf = frames_at(b, ret - 1, frames, &why);
			if (!nf)
				continue;
			f = leaf_profile(p, frames, nf, 0);
			if (!f || sp_func_add_target(p, f, frame_loc(&frames[nf - 1]),
						     direct_callee(b, ret, c->callee), c->n)) {
				err = sbx_error(-ENOMEM, "out of memory");
				break;
			}
		}
	}
	cs_free(in, 1);
	cs_close(&cs);
	return err;
}

/* ---------------------------------------------------------------- LBR */

/*
 * llvm-profgen's way, step by step (LLVM 19, ProfiledBinary, PerfReader,
 * ProfileGenerator): the binary is disassembled from each .symtab symbol to
 * the next; an address is "code" when an instruction starts there, and a
 * branch end that is not code is external. In each stack, entries external
 * at both ends are dropped; then every branch whose target is code counts,
 * and for i >= 1 the range [LBR[i].to, LBR[i-1].from] counts when both ends
 * are code, start <= end, and no call, return or direct jump lies in
 * [start, end).
 */

#define EXTERNAL	1	/* llvm-profgen's ExternalAddr */
#define MAX_BRANCH_ENTRIES	256

struct insn {
	uint64_t addr;
	uint16_t size;
	bool uncond;		/* a call, a return or a direct jump */
};

/* A function as llvm-profgen keeps it: by name, with all its ranges. */
struct bfunc {
	const char *name;
	uint64_t *starts, *ends;	/* its ranges: [start, end) */
	bool *entry;			/* per range: a function entry */
	size_t nr, cap_starts, cap_ends, cap_entry;
};

/* One range of a function, by address. */
struct frange {
	uint64_t start, end;
	struct bfunc *f;
	bool entry;
};

struct lbr {
	const struct binary *b;
	struct insn *insns;		/* the instructions of the regions disassembled, sorted */
	size_t nr_insns, cap_insns;
	bool *disassembled;		/* per code region of b (code_starts) */
	/* a bit per byte of [code_lo, code_lo + code_len): an instruction starts there */
	uint8_t *starts;
	uint64_t code_lo, code_len;
	struct bfunc *funcs;
	size_t nr_funcs;
	struct frange *franges;		/* sorted by start; for a start, the first wins */
	size_t nr_franges;
	struct vcounts ranges;		/* a = start, b = end (inclusive) */
	struct vcounts branches;	/* a = source (EXTERNAL), b = target */
};

static int cmp_insn(const void *a, const void *b)
{
	const struct insn *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static bool is_prefix(uint8_t b)
{
	return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
	       b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 ||
	       (b >= 0x40 && b <= 0x4f);	/* REX */
}

/*
 * A call, a return or a direct jump: what capstone's CALL and RET groups
 * and a JMP with an immediate operand are, told from the instruction's id
 * and opcode byte (e9 rel32, eb rel8) so that capstone need not fill in its
 * details, which doubles its time. (Checked against the groups on every
 * instruction of libc, perf and capstone itself.)
 */
static bool is_uncond(const cs_insn *in)
{
	size_t i = 0;

	switch (in->id) {
	case X86_INS_CALL:
	case X86_INS_LCALL:
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		return true;
	case X86_INS_JMP:
		while (i < in->size && is_prefix(in->bytes[i]))
			i++;
		return i < in->size && (in->bytes[i] == 0xe9 || in->bytes[i] == 0xeb);
	default:
		return false;
	}
}

/* Some code regions of a binary, disassembled by one thread with its own handle. */
struct dis_job {
	const struct binary *b;
	csh cs;
	const size_t *regions;		/* indices into code_starts */
	size_t nr;
	struct insn *insns;
	size_t nr_insns, cap_insns;
	int err;
};

static int job_add(struct dis_job *j, uint64_t addr, uint16_t size, bool uncond)
{
	if (j->nr_insns == j->cap_insns) {
		size_t cap = j->cap_insns ? 2 * j->cap_insns : 4096;
		struct insn *v = realloc(j->insns, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		j->insns = v;
		j->cap_insns = cap;
	}
	j->insns[j->nr_insns++] = (struct insn){ addr, size, uncond };
	return 0;
}

static void *dis_run(void *arg)
{
	struct dis_job *j = arg;
	const struct binary *b = j->b;
	cs_insn *in = cs_malloc(j->cs);

	if (!in) {
		j->err = -ENOMEM;
		return NULL;
	}
	for (size_t k = 0; k < j->nr && !j->err; k++) {
		uint64_t addr = b->code_starts[j->regions[k]], end = b->code_ends[j->regions[k]];
		size_t avail;
		const uint8_t *code = binary_code(b, addr, &avail);

		if (!code)
			continue;
		if (avail > end - addr)
			avail = (size_t)(end - addr);
		while (avail && !j->err) {
			const uint8_t *p = code;
			size_t left = avail;
			uint64_t a = addr;

			if (!cs_disasm_iter(j->cs, &p, &left, &a, in)) {
				code++;	/* not an instruction: on by one byte */
				avail--;
				addr++;
				continue;
			}
			j->err = job_add(j, addr, in->size, is_uncond(in));
			code = p;
			avail = left;
			addr = a;
		}
	}
	cs_free(in, 1);
	return NULL;
}

/* The most code from the first function to the end of the last (a bitmap of 128 MiB). */
#define CODE_SPAN_MAX	(1ULL << 30)

/* Bytes of code at least, for the second half to go to a thread of its own. */
#define DIS_PARALLEL_BYTES	(64 * 1024)

static unsigned max_threads = 2;

void pg_set_threads(unsigned n)
{
	max_threads = n ? n : 1;
}

/*
 * Disassemble the code regions of b (its functions, by .symtab) marked in
 * want and not yet done, then sort the instructions again. Only the
 * regions a profile touches are read: a large binary's other functions cost
 * nothing. Many regions are split in two halves by bytes, the second
 * disassembled by a second thread (capstone takes most of an LBR profile's
 * time, and handles are independent).
 */
static int disassemble(struct lbr *l, const bool *want)
{
	const struct binary *b = l->b;
	struct dis_job job[2];
	size_t *todo, nr = 0, half = 0;
	uint64_t bytes = 0, sum = 0;
	bool threaded = false;
	pthread_t thread;
	int err = 0;

	if (!l->disassembled && b->nr_code_starts) {
		uint64_t lo = b->code_starts[0], hi = b->code_ends[b->nr_code_starts - 1];

		/* a bit per byte of code: a damaged file may claim any span */
		if (hi > lo && hi - lo > CODE_SPAN_MAX)
			return sbx_error(-EINVAL, "%s: its code runs from %#" PRIx64 " to %#" PRIx64
					 ", more than %llu GiB: not a binary whose branches can be "
					 "followed", b->path, lo, hi, CODE_SPAN_MAX >> 30);
		l->disassembled = calloc(b->nr_code_starts, sizeof(*l->disassembled));
		l->starts = hi > lo ? calloc((size_t)((hi - lo + 7) / 8), 1) : NULL;
		if (!l->disassembled || (hi > lo && !l->starts))
			return -ENOMEM;
		l->code_lo = lo;
		l->code_len = l->starts ? hi - lo : 0;
	}
	todo = malloc((b->nr_code_starts ? b->nr_code_starts : 1) * sizeof(*todo));
	if (!todo)
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_code_starts; i++) {
		if ((want && !want[i]) || l->disassembled[i])
			continue;
		l->disassembled[i] = true;
		todo[nr++] = i;
		bytes += b->code_ends[i] - b->code_starts[i];
	}
	/* the first half by bytes here, the rest in a thread when it is worth one */
	for (; half < nr && sum < bytes / 2; half++)
		sum += b->code_ends[todo[half]] - b->code_starts[todo[half]];
	if (bytes < DIS_PARALLEL_BYTES || max_threads < 2)
		half = nr;
	job[0] = (struct dis_job){ .b = b, .regions = todo, .nr = half };
	job[1] = (struct dis_job){ .b = b, .regions = todo + half, .nr = nr - half };
	for (int k = 0; k < 2 && !err; k++)
		if ((job[k].nr || k == 0) && cs_open(CS_ARCH_X86, CS_MODE_64, &job[k].cs) != CS_ERR_OK)
			err = sbx_error(-EINVAL, "capstone cannot disassemble x86-64");
	if (!err && job[1].nr)
		threaded = !pthread_create(&thread, NULL, dis_run, &job[1]);
	if (!err) {
		dis_run(&job[0]);
		if (threaded)
			pthread_join(thread, NULL);
		else if (job[1].nr)
			dis_run(&job[1]);
	}
	for (int k = 0; k < 2; k++) {
		if (job[k].cs)
			cs_close(&job[k].cs);
		if (!err)
			err = job[k].err;
	}
	/* the instructions of both, and a bit for where each starts */
	if (!err && job[0].nr_insns + job[1].nr_insns) {
		size_t cap = l->nr_insns + job[0].nr_insns + job[1].nr_insns;
		struct insn *v = cap > l->cap_insns ? realloc(l->insns, cap * sizeof(*v)) : l->insns;

		if (!v)
			err = -ENOMEM;
		else if (cap > l->cap_insns) {
			l->insns = v;
			l->cap_insns = cap;
		}
	}
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; !err && i < job[k].nr_insns; i++) {
			const struct insn *in = &job[k].insns[i];

			l->insns[l->nr_insns++] = *in;
			if (in->addr - l->code_lo < l->code_len)
				l->starts[(in->addr - l->code_lo) / 8] |=
					(uint8_t)(1u << ((in->addr - l->code_lo) % 8));
		}
		free(job[k].insns);
	}
	free(todo);
	/* regions may hold no instruction at all (damaged, or data): nothing to sort */
	if (!err && job[0].nr_insns + job[1].nr_insns)
		qsort(l->insns, l->nr_insns, sizeof(*l->insns), cmp_insn);
	return err;
}

/* Mark the code regions that overlap [start, end]. */
static void mark_regions(const struct binary *b, bool *want, uint64_t start, uint64_t end)
{
	size_t i = ranges_find_last_le(b->code_starts, b->nr_code_starts, sizeof(*b->code_starts),
				       0, start);

	if (i == b->nr_code_starts)
		i = 0;
	for (; i < b->nr_code_starts && b->code_starts[i] <= end; i++)
		if (b->code_ends[i] > start)
			want[i] = true;
}

/* The first instruction at or after addr: its index, or nr_insns. */
static size_t insn_from(const struct lbr *l, uint64_t addr)
{
	size_t i = RANGES_FIND_LAST_LE(l->insns, l->nr_insns, addr, addr);

	if (i == l->nr_insns)
		return 0;
	return l->insns[i].addr == addr ? i : i + 1;
}

/* An instruction (of the regions disassembled) starts at addr. */
static bool is_code(const struct lbr *l, uint64_t addr)
{
	uint64_t o = addr - l->code_lo;

	return addr != EXTERNAL && o < l->code_len && (l->starts[o / 8] >> (o % 8) & 1);
}

/* A call, return or direct jump in [start, end) (ProfiledBinary::rangeCrossUncondBranch). */
static bool crosses_uncond(const struct lbr *l, uint64_t start, uint64_t end)
{
	if (start >= end)
		return false;
	for (size_t i = insn_from(l, start); i < l->nr_insns && l->insns[i].addr < end; i++)
		if (l->insns[i].uncond)
			return true;
	return false;
}

/* FunctionSamples::getCanonicalFnName with the "selected" policy: .llvm. and .part. go. */
static void canonical_name(const char *name, char *out, size_t size)
{
	static const char *const suffixes[] = { ".llvm.", ".part." };
	size_t len = strlen(name);

	if (len >= size)
		len = size - 1;
	memcpy(out, name, len);
	out[len] = 0;
	for (size_t k = 0; k < 2; k++) {
		char *pos = NULL, *p = out, *last = strrchr(out, '.');
		size_t sl = strlen(suffixes[k]);

		while ((p = strstr(p, suffixes[k]))) {
			pos = p;
			p++;
		}
		/* cut only when the suffix's own last dot is the name's last dot */
		if (pos && last == pos + sl - 1)
			*pos = 0;
	}
}

static int cmp_frange(const void *a, const void *b)
{
	const struct frange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool bfunc_named(const void *entry, const void *key)
{
	return ((const struct bfunc *)entry)->name == key;
}

/* Functions by name (DWARF's, else the symbols'), with which ranges are entries. */
static int load_functions(struct lbr *l)
{
	const struct binary *b = l->b;
	const struct dwarf_func *df = NULL;
	size_t nr = 0, nf = 0;
	struct hashmap by_name = HASHMAP_INIT;
	uint64_t pref = b->exec_base;
	int err = 0;

	if (b->dwarf)
		nr = dwarf_info_functions(b->dwarf, &df);
	else if (b->symtab)
		nr = b->symtab->nr;
	l->funcs = calloc(nr ? nr : 1, sizeof(*l->funcs));
	l->franges = calloc(nr ? nr : 1, sizeof(*l->franges));
	if (!l->funcs || !l->franges)
		return -ENOMEM;
	for (size_t i = 0; i < nr && !err; i++) {
		const char *name = b->dwarf ? df[i].name : b->symtab->syms[i].name;
		uint64_t start = b->dwarf ? df[i].start : b->symtab->syms[i].start;
		uint64_t end = b->dwarf ? df[i].end : start + b->symtab->syms[i].size;
		struct bfunc *f;

		if (end <= start || start < pref || !*name)
			continue;
		f = hashmap_get(&by_name, hash_str(name), bfunc_named, name);
		if (!f) {
			f = &l->funcs[nf++];
			f->name = name;
			if (hashmap_put(&by_name, hash_str(name), f)) {
				err = -ENOMEM;
				break;
			}
		}
		if (array_reserve(&f->starts, &f->cap_starts, f->nr + 1, sizeof(*f->starts)) ||
		    array_reserve(&f->ends, &f->cap_ends, f->nr + 1, sizeof(*f->ends)) ||
		    array_reserve(&f->entry, &f->cap_entry, f->nr + 1, sizeof(*f->entry))) {
			err = -ENOMEM;
			break;
		}
		f->starts[f->nr] = start;
		f->ends[f->nr] = end;
		f->entry[f->nr] = false;
		f->nr++;
	}
	hashmap_release(&by_name);
	l->nr_funcs = nf;
	if (err)
		return err;
	/* a one-range function is entered at its start; else where a symbol of its name is */
	for (size_t i = 0; i < nf; i++) {
		struct bfunc *f = &l->funcs[i];

		for (size_t r = 0; r < f->nr; r++) {
			const struct symbol *s = b->symtab ? symtab_find(b->symtab, f->starts[r]) : NULL;
			char canon[512];

			if (s && s->start == f->starts[r])
				canonical_name(s->name, canon, sizeof(canon));
			f->entry[r] = f->nr == 1 || (s && s->start == f->starts[r] &&
						    !strcmp(canon, f->name));
			l->franges[l->nr_franges++] = (struct frange){ f->starts[r], f->ends[r], f,
								       f->entry[r] };
		}
	}
	if (l->nr_franges)
		qsort(l->franges, l->nr_franges, sizeof(*l->franges), cmp_frange);
	return 0;
}

/* The function range holding addr (the greatest start <= addr), or NULL. */
static const struct frange *frange_at(const struct lbr *l, uint64_t addr)
{
	size_t i = RANGES_FIND_LAST_LE(l->franges, l->nr_franges, start, addr);

	/* of equal starts the first one is kept, as llvm-profgen's emplace() */
	while (i < l->nr_franges && i > 0 && l->franges[i - 1].start == l->franges[i].start)
		i--;
	if (i == l->nr_franges || addr >= l->franges[i].end)
		return NULL;
	return &l->franges[i];
}

/*
 * The frames of addr: DWARF's, or the symbol's name as the one frame; in
 * span (when not NULL) the addresses around it with the same answer.
 */
static size_t lbr_frames_span(const struct lbr *l, uint64_t addr, struct dwarf_frame *frames,
			      uint64_t span[2])
{
	const struct frange *fr;
	uint64_t one[2];

	if (!span)
		span = one;
	span[0] = addr;
	span[1] = addr + 1;
	if (l->b->dwarf) {
		if (!dwarf_info_function_at(l->b->dwarf, addr))
			return 0;
		return dwarf_info_frames_span(l->b->dwarf, addr, frames, MAX_FRAMES, span);
	}
	fr = frange_at(l, addr);
	if (!fr)
		return 0;
	frames[0] = (struct dwarf_frame){ fr->f->name, 0, 0, 0 };
	return 1;
}

static size_t lbr_frames(const struct lbr *l, uint64_t addr, struct dwarf_frame *frames)
{
	return lbr_frames_span(l, addr, frames, NULL);
}

/*
 * A stack's entries as vaddrs, oldest last, an end that is not an
 * instruction of the binary made EXTERNAL and entries with neither end in
 * it left out: computeCounterFromLBR's input. Returns how many.
 */
static size_t stack_entries(const struct lbr *l, const struct pg_stack *s, uint64_t *src,
			    uint64_t *dst)
{
	size_t n = 0;

	for (uint32_t e = 0; e < s->nr && n < MAX_BRANCH_ENTRIES; e++) {
		uint64_t a = s->ends[2 * e], b = s->ends[2 * e + 1];

		a = a == PG_EXTERNAL ? EXTERNAL : binary_offset_to_vaddr(l->b, a);
		b = b == PG_EXTERNAL ? EXTERNAL : binary_offset_to_vaddr(l->b, b);
		if (!is_code(l, a))
			a = EXTERNAL;
		if (!is_code(l, b))
			b = EXTERNAL;
		if (a == EXTERNAL && b == EXTERNAL)
			continue;
		src[n] = a;
		dst[n++] = b;
	}
	return n;
}

/*
 * Disassemble what the stacks need: first the regions of their ends (then
 * is_code is exact), then those the ranges between them cross.
 */
static int disassemble_stacks(struct lbr *l, struct pg_dso *const *d, size_t nr)
{
	const struct binary *b = l->b;
	uint64_t src[MAX_BRANCH_ENTRIES], dst[MAX_BRANCH_ENTRIES];
	bool *want;
	int err;

	if (!b->nr_code_starts)
		return 0;
	want = calloc(b->nr_code_starts, sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		struct pg_stack *s;

		for (size_t k = 0; (s = hashmap_next(&d[i]->stacks, &k));)
			for (uint32_t e = 0; e < 2 * s->nr; e++)
				if (s->ends[e] != PG_EXTERNAL) {
					uint64_t v = binary_offset_to_vaddr(b, s->ends[e]);

					mark_regions(b, want, v, v);
				}
	}
	err = disassemble(l, want);
	for (size_t i = 0; i < nr && !err; i++) {
		struct pg_stack *s;

		for (size_t k = 0; (s = hashmap_next(&d[i]->stacks, &k));) {
			size_t n = stack_entries(l, s, src, dst);

			for (size_t e = 1; e < n; e++)
				if (dst[e] != EXTERNAL && src[e - 1] != EXTERNAL && dst[e] <= src[e - 1])
					mark_regions(b, want, dst[e], src[e - 1]);
		}
	}
	if (!err)
		err = disassemble(l, want);
	free(want);
	return err;
}

/* computeCounterFromLBR on every stack of every input. */
static int count_stacks(struct lbr *l, struct pg_dso *const *d, size_t nr,
			struct pg_generate_stats *st)
{
	uint64_t src[MAX_BRANCH_ENTRIES], dst[MAX_BRANCH_ENTRIES];

	for (size_t i = 0; i < nr; i++) {
		struct pg_stack *s;

		for (size_t k = 0; (s = hashmap_next(&d[i]->stacks, &k));) {
			size_t n = stack_entries(l, s, src, dst);
			uint64_t end = 0;

			for (size_t e = 0; e < n; e++) {
				if (is_code(l, dst[e])) {
					if (vcounts_add(&l->branches, src[e], dst[e], s->n))
						return -ENOMEM;
					st->branches += s->n;
				}
				if (is_code(l, dst[e]) && is_code(l, end)) {
					if (dst[e] <= end && !crosses_uncond(l, dst[e], end)) {
						if (vcounts_add(&l->ranges, dst[e], end, s->n))
							return -ENOMEM;
						st->ranges += s->n;
					} else {
						st->bad_ranges += s->n;
					}
				}
				end = src[e];
			}
		}
	}
	if (l->ranges.nr)
		qsort(l->ranges.all, l->ranges.nr, sizeof(*l->ranges.all), cmp_vcount);
	if (l->branches.nr)
		qsort(l->branches.all, l->branches.nr, sizeof(*l->branches.all), cmp_vcount);
	hashmap_release(&l->ranges.map);
	hashmap_release(&l->branches.map);
	return 0;
}

/* A point of findDisjointRanges' sweep. */
struct bound {
	uint64_t addr;
	uint64_t begin, end;		/* counts; UINT64_MAX: none */
	bool zero_begin, zero_end;	/* a zero-fill range begins / ends here */
};

static int cmp_bound(const void *a, const void *b)
{
	const struct bound *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_count(uint64_t *slot, uint64_t n)
{
	if (*slot == UINT64_MAX)
		*slot = 0;
	*slot += n;
}

/*
 * preprocessRangeCounter + findDisjointRanges: the sampled ranges and, with
 * a count of 0, every range of each function a sampled range starts in;
 * then split into disjoint pieces whose counts add up. *out gets (start, end
 * inclusive, count) triples in address order.
 */
static int disjoint_ranges(const struct lbr *l, struct vcounts *out)
{
	struct vcounts all;
	struct bound *pts = NULL;
	size_t np = 0;
	int err = 0;

	memset(&all, 0, sizeof(all));
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < l->ranges.nr && !err; i++)
		err = vcounts_add(&all, l->ranges.all[i].a, l->ranges.all[i].b,
				  l->ranges.all[i].n);
	for (size_t i = 0; i < l->ranges.nr && !err; i++) {
		const struct frange *fr = frange_at(l, l->ranges.all[i].a);

		for (size_t r = 0; fr && r < fr->f->nr && !err; r++)
			err = vcounts_add(&all, fr->f->starts[r], fr->f->ends[r] - 1, 0);
	}
	if (err)
		goto out;
	/* the boundary map: one point per address */
	pts = malloc((2 * all.nr + 1) * sizeof(*pts));
	if (!pts) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < all.nr; i++) {
		const struct vcount *r = &all.all[i];

		pts[np++] = (struct bound){ r->a, r->n, UINT64_MAX, r->n == 0, false };
		pts[np++] = (struct bound){ r->b, UINT64_MAX, r->n, false, r->n == 0 };
	}
	qsort(pts, np, sizeof(*pts), cmp_bound);
	{
		size_t k = 0;

		for (size_t i = 0; i < np; i++) {
			if (k && pts[k - 1].addr == pts[i].addr) {
				struct bound *p = &pts[k - 1];

				if (pts[i].begin != UINT64_MAX)
					add_count(&p->begin, pts[i].begin);
				if (pts[i].end != UINT64_MAX)
					add_count(&p->end, pts[i].end);
				p->zero_begin |= pts[i].zero_begin;
				p->zero_end |= pts[i].zero_end;
			} else {
				pts[k++] = pts[i];
			}
		}
		np = k;
	}
	{
		uint64_t begin = UINT64_MAX, count = 0;
		int depth = 0;

		for (size_t i = 0; i < np && !err; i++) {
			const struct bound *p = &pts[i];

			if (p->begin != UINT64_MAX) {
				if (begin != UINT64_MAX && begin <= p->addr - 1)
					err = vcounts_add(out, begin, p->addr - 1, count);
				count += p->begin;
				begin = p->addr;
				depth += p->zero_begin;
			}
			if (p->end != UINT64_MAX && !err) {
				if (begin != UINT64_MAX && begin <= p->addr)
					err = vcounts_add(out, begin, p->addr, count);
				count -= p->end;
				begin = p->addr + 1;
				depth -= p->zero_end;
				if (count == 0 && depth == 0)
					begin = UINT64_MAX;
			}
		}
	}
	if (!err && out->nr)
		qsort(out->all, out->nr, sizeof(*out->all), cmp_vcount);
	hashmap_release(&out->map);
out:
	free(pts);
	vcounts_release(&all);
	return err;
}

static bool filtered_name(const char *name)
{
	return !strncmp(name, "__cxx_global_var_init", 21) || !strncmp(name, "__tls_init", 10);
}

/* filterAmbiguousProfile: nested inlinees of those names go too. */
static void filter_inlinees(struct sp_func *f)
{
	struct sp_callsite *c;
	struct sp_func *g;

	for (size_t i = 0; (c = hashmap_next(&f->callsites, &i));) {
		for (size_t k = 0; (g = hashmap_next(&c->callees, &k));) {
			if (filtered_name(g->name)) {
				hashmap_remove(&c->callees, hash_str(g->name), sp_func_named, g->name);
				sp_func_release(g);
				k = 0;	/* the table changed: start over */
				continue;
			}
			filter_inlinees(g);
		}
	}
}

static int lbr_profile(struct sample_profile *p, struct lbr *l, struct pg_generate_stats *st)
{
	struct dwarf_frame frames[MAX_FRAMES];
	struct span_cache span = SPAN_CACHE_EMPTY;
	struct vcounts dis;
	struct sp_func *const *funcs;
	int err = disjoint_ranges(l, &dis);

	if (err)
		return err;
	/* body samples: every instruction of every piece */
	for (size_t i = 0; i < dis.nr && !err; i++) {
		const struct vcount *r = &dis.all[i];

		for (size_t k = insn_from(l, r->a); k < l->nr_insns && l->insns[k].addr <= r->b;
		     k++) {
			const struct insn *in = &l->insns[k];

			if (!span_has(&span, in->addr)) {
				span.nf = lbr_frames_span(l, in->addr, frames, span.addr);
				if (span.nf && span_fill(&span, p, frames, span.nf)) {
					err = -ENOMEM;
					break;
				}
			}
			if (span.nf)
				span_count(&span, r->n * in->size, r->n);
		}
	}
	/* boundary samples: branches into function entries */
	for (size_t i = 0; i < l->branches.nr && !err; i++) {
		const struct vcount *br = &l->branches.all[i];
		const struct frange *fr = frange_at(l, br->b);
		char callee[512];
		struct sp_func *f;
		size_t nf;

		if (!fr || fr->start != br->b || !fr->entry)
			continue;
		canonical_name(fr->f->name, callee, sizeof(callee));
		nf = br->a == EXTERNAL ? 0 : lbr_frames(l, br->a, frames);
		if (nf) {
			f = leaf_profile(p, frames, nf, 0);
			if (!f || sp_func_add_target(p, f, frame_loc(&frames[nf - 1]), callee,
						     br->n)) {
				err = -ENOMEM;
				break;
			}
		}
		f = sample_profile_func(p, callee);
		if (!f) {
			err = -ENOMEM;
			break;
		}
		f->head = sp_add(f->head, br->n);
	}
	vcounts_release(&dis);
	if (err)
		return err;
	/* updateCallsiteSamples: top-level profiles only, then the filter */
	sample_profile_sorted(p, &funcs);
	for (size_t i = 0; i < sample_profile_nr(p); i++)
		sp_func_body_covers_calls(funcs[i]);
	sample_profile_remove_if(p, filtered_name);
	sample_profile_sorted(p, &funcs);
	for (size_t i = 0; i < sample_profile_nr(p); i++)
		filter_inlinees(funcs[i]);
	(void)st;
	return 0;
}

static void lbr_release(struct lbr *l)
{
	for (size_t i = 0; i < l->nr_funcs; i++) {
		free(l->funcs[i].starts);
		free(l->funcs[i].ends);
		free(l->funcs[i].entry);
	}
	free(l->funcs);
	free(l->franges);
	free(l->insns);
	free(l->disassembled);
	free(l->starts);
	vcounts_release(&l->ranges);
	vcounts_release(&l->branches);
}

static int lbr_init(struct lbr *l, struct pg_dso *const *d, size_t nr, const struct binary *b,
		    struct pg_generate_stats *st)
{
	int err;

	memset(l, 0, sizeof(*l));
	l->b = b;
	err = disassemble_stacks(l, d, nr);
	if (!err)
		err = load_functions(l);
	if (!err)
		err = count_stacks(l, d, nr, st);
	return err;
}

/* An offset outside every segment has no address (UINT64_MAX) to write. */
static bool has_offset(const struct binary *b, uint64_t vaddr)
{
	return vaddr != UINT64_MAX && vaddr >= b->exec_base;
}

/*
 * IP samples in llvm-profgen's unsymbolized profile: each sampled
 * instruction a range of its own (START-START: the range ends at its last
 * instruction), so that the instruction counts survive the format, and no
 * branches.
 */

static int write_ip_ranges(FILE *out, struct pg_dso *const *d, size_t nr, const struct binary *b,
			   uint64_t *outside)
{
	struct pg_count *ips = NULL;
	size_t nr_ips = 0, n = 0;

	if (merge_ips(&ips, &nr_ips, d, nr, b))
		return sbx_error(-ENOMEM, "out of memory");
	for (size_t i = 0; i < nr_ips; i++) {
		bool in = has_offset(b, ips[i].a);

		n += in;
		*outside += in ? 0 : ips[i].n;
	}
	fprintf(out, "%zu\n", n);
	for (size_t i = 0; i < nr_ips; i++)
		if (has_offset(b, ips[i].a))
			fprintf(out, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", ips[i].a - b->exec_base,
				ips[i].a - b->exec_base, ips[i].n);
	fprintf(out, "0\n");
	free(ips);
	return 0;
}

int pg_write_unsymbolized(FILE *out, struct pg_dso *const *d, size_t nr, const struct binary *b,
			  uint64_t *outside)
{
	struct pg_generate_stats st;
	struct lbr l;
	uint64_t base;
	bool lbr = false;
	int err;

	for (size_t i = 0; i < nr; i++)
		lbr |= pg_dso_has_branch_stacks(d[i]);
	*outside = 0;
	if (!lbr)
		return write_ip_ranges(out, d, nr, b, outside);
	err = lbr_init(&l, d, nr, b, &st);
	/* offsets from the preferred base: the first executable segment, page-aligned */
	base = b->exec_base;
	if (!err) {
		fprintf(out, "%zu\n", l.ranges.nr);
		for (size_t i = 0; i < l.ranges.nr; i++)
			fprintf(out, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", l.ranges.all[i].a - base,
				l.ranges.all[i].b - base, l.ranges.all[i].n);
		fprintf(out, "%zu\n", l.branches.nr);
		for (size_t i = 0; i < l.branches.nr; i++)
			fprintf(out, "%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n",
				l.branches.all[i].a - base, l.branches.all[i].b - base,
				l.branches.all[i].n);
	}
	lbr_release(&l);
	return err == -ENOMEM ? sbx_error(err, "out of memory") : err;
}

int pg_generate(struct sample_profile *p, struct pg_dso *const *d, size_t nr,
		const struct binary *bin, struct pg_generate_stats *st)
{
	struct binary nodwarf;
	const struct binary *b = bin;
	struct pg_count *ips = NULL;
	size_t nr_ips = 0;
	uint64_t covered = 0;
	int err;

	memset(st, 0, sizeof(*st));
	/* branch stacks where the recording has them: then they are the evidence */
	for (size_t i = 0; i < nr; i++)
		st->lbr |= pg_dso_has_branch_stacks(d[i]);
	err = merge_ips(&ips, &nr_ips, d, nr, b);
	if (err) {
		err = sbx_error(-ENOMEM, "out of memory");
		goto out;
	}
	/*
	 * DWARF that describes none of the sampled code (only the C runtime's
	 * start-up files had it, say) is no help: then the symbols name the
	 * functions.
	 */
	for (size_t i = 0; b->dwarf && i < nr_ips && !covered; i++)
		covered += ips[i].a != UINT64_MAX &&
			   dwarf_info_function_at(b->dwarf, ips[i].a) != NULL;
	if (b->dwarf && nr_ips && !covered) {
		nodwarf = *bin;
		nodwarf.dwarf = NULL;
		b = &nodwarf;
	}
	st->symbols_only = !b->dwarf;
	if (st->lbr) {
		struct lbr l;

		err = lbr_init(&l, d, nr, b, st);
		if (!err)
			err = lbr_profile(p, &l, st);
		lbr_release(&l);
		if (err == -ENOMEM)
			err = sbx_error(err, "out of memory");
		/* a sample is used when its IP is in a function of the binary */
		for (size_t i = 0; i < nr_ips; i++) {
			struct dwarf_frame f[MAX_FRAMES];
			enum pg_reason why = PG_NO_FUNCTION;

			if (b->dwarf ? frames_at(b, ips[i].a, f, &why) != 0
				     : symbol_at(b, ips[i].a) != NULL)
				st->samples += ips[i].n;
			else
				count_missing(st, why, ips[i].n);
		}
	} else {
		err = generate_ip(p, ips, nr_ips, b, st);
		if (!err)
			err = generate_calls(p, d, nr, b, st);
	}
out:
	free(ips);
	return err;
}

/* One "A-B:N" or "A->B:N" line of an unsymbolized profile. */
static bool unsym_line(const char *line, const char *sep, uint64_t *a, uint64_t *b, uint64_t *n)
{
	char *end;
	const char *p;

	errno = 0;
	*a = strtoull(line, &end, 16);
	if (end == line || strncmp(end, sep, strlen(sep)))
		return false;
	p = end + strlen(sep);
	*b = strtoull(p, &end, 16);
	if (end == p || *end != ':')
		return false;
	p = end + 1;
	*n = strtoull(p, &end, 10);
	return end != p && (*end == '\n' || !*end) && !errno;
}

int pg_generate_unsymbolized(struct sample_profile *p, FILE *f, const char *name,
			     const struct binary *b, struct pg_generate_stats *st)
{
	struct lbr l;
	char *line = NULL;
	size_t cap = 0;
	uint64_t lineno = 0;
	int err;

	memset(st, 0, sizeof(*st));
	st->lbr = true;
	st->symbols_only = !b->dwarf;
	memset(&l, 0, sizeof(l));
	l.b = b;
	err = disassemble(&l, NULL);	/* the ranges are not known before they are read */
	if (!err)
		err = load_functions(&l);
	if (err) {
		lbr_release(&l);
		return err == -ENOMEM ? sbx_error(err, "out of memory") : err;
	}
	/* two sections: ranges, then branches, each "count" then its lines */
	for (int section = 0; section < 2 && !err; section++) {
		uint64_t count, a, bb, n;
		char *end;

		if (getline(&line, &cap, f) < 0) {
			err = sbx_error(-EINVAL, "%s: ends before its %s", name,
					section ? "branch counts" : "range counts");
			break;
		}
		lineno++;
		count = strtoull(line, &end, 10);
		if (end == line || (*end != '\n' && *end)) {
			err = sbx_error(-EINVAL, "%s:%" PRIu64 ": not a count: %s", name, lineno, line);
			break;
		}
		for (uint64_t i = 0; i < count && !err; i++) {
			if (getline(&line, &cap, f) < 0) {
				err = sbx_error(-EINVAL, "%s: ends inside its %s", name,
						section ? "branch counts" : "range counts");
				break;
			}
			lineno++;
			if (!unsym_line(line, section ? "->" : "-", &a, &bb, &n)) {
				line[strcspn(line, "\n")] = 0;
				err = sbx_error(-EINVAL, "%s:%" PRIu64 ": malformed line '%s'", name,
						lineno, line);
				break;
			}
			err = vcounts_add(section ? &l.branches : &l.ranges, a + b->exec_base,
					  bb + b->exec_base, n);
			if (err)
				err = sbx_error(-ENOMEM, "out of memory");
			if (section)
				st->branches += n;
			else
				st->ranges += n;
		}
	}
	free(line);
	if (!err) {
		if (l.ranges.nr)
			qsort(l.ranges.all, l.ranges.nr, sizeof(*l.ranges.all), cmp_vcount);
		if (l.branches.nr)
			qsort(l.branches.all, l.branches.nr, sizeof(*l.branches.all), cmp_vcount);
		hashmap_release(&l.ranges.map);
		hashmap_release(&l.branches.map);
		err = lbr_profile(p, &l, st);
		if (err)
			err = sbx_error(err, "out of memory");
	}
	lbr_release(&l);
	return err;
}
