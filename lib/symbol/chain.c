// SPDX-License-Identifier: MIT
/* A sample's call chain, resolved, unwound and expanded into inline frames (see chain.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/chain.h"
#include "symbol/demangle.h"
#include "symbol/dso.h"
#include "symbol/dwarf.h"
#include "symbol/unwind.h"
#include "util/error.h"
#include "util/hashmap.h"

#define MAX_INLINE_DEPTH 64

/* The DWARF of a DSO, opened on first use (NULL: it has none). */
struct dso_dwarf {
	struct dso *dso;
	struct dwarf_info *dwarf;
};

/* A function inlined into base: the symbol chain frames name it by. */
struct inline_sym {
	struct symbol sym;		/* name: "NAME (inlined)", start and size of base's */
	const struct symbol *base;
	char *name;
};

/* What a frame at (dso, addr) becomes: its inline stack, innermost first. */
struct inline_entry {
	struct dso *dso;
	uint64_t addr;
	size_t nr;			/* 0: the frame stays as it is */
	const struct symbol **syms;
	bool *inlined;
};

/* A srcline: its string (interned), by (dso, addr). */
struct srcline_entry {
	struct dso *dso;
	uint64_t addr;
	const char *text;
	bool line;		/* text is FILE:LINE: from DWARF, or addr2line's FILE:0 */
	bool dwarf;		/* from DWARF */
};

struct chain_resolver {
	struct machine *m;
	struct hashmap srclines;	/* struct srcline_entry, by (dso, addr) */
	struct hashmap strings;		/* the srcline strings, by content */
	struct unwinder *unwinder;
	enum chain_inlines inlines;
	bool demangle;
	struct hashmap dwarfs;		/* struct dso_dwarf, by dso */
	struct hashmap syms;		/* struct inline_sym, by (base, name) */
	struct hashmap entries;		/* struct inline_entry, by (dso, addr) */
	struct chain_frame *frames, *expanded;
	size_t cap, cap_expanded;
	uint64_t *ips;
};

struct chain_resolver *chain_resolver_new(struct machine *m)
{
	struct chain_resolver *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->m = m;
	return c;
}

void chain_resolver_free(struct chain_resolver *c)
{
	void *e;

	if (!c)
		return;
	for (size_t i = 0; (e = hashmap_next(&c->dwarfs, &i));) {
		dwarf_info_free(((struct dso_dwarf *)e)->dwarf);
		free(e);
	}
	for (size_t i = 0; (e = hashmap_next(&c->syms, &i));) {
		free(((struct inline_sym *)e)->name);
		free((char *)((struct inline_sym *)e)->sym.name);
		free(e);
	}
	for (size_t i = 0; (e = hashmap_next(&c->entries, &i));) {
		free(((struct inline_entry *)e)->syms);
		free(((struct inline_entry *)e)->inlined);
		free(e);
	}
	for (size_t i = 0; (e = hashmap_next(&c->srclines, &i));)
		free(e);
	for (size_t i = 0; (e = hashmap_next(&c->strings, &i));)
		free(e);
	hashmap_release(&c->srclines);
	hashmap_release(&c->strings);
	hashmap_release(&c->dwarfs);
	hashmap_release(&c->syms);
	hashmap_release(&c->entries);
	unwinder_free(c->unwinder);
	free(c->frames);
	free(c->expanded);
	free(c->ips);
	free(c);
}

void chain_resolver_set_inlines(struct chain_resolver *c, enum chain_inlines which,
				bool demangle)
{
	c->inlines = which;
	c->demangle = demangle;
}

const char *chain_frame_function(const struct chain_frame *f, bool demangle)
{
	if (!f->al.sym)
		return NULL;
	if (f->inlined)	/* one of ours: struct inline_sym starts with its symbol */
		return ((const struct inline_sym *)(const void *)f->al.sym)->name;
	return f->al.dso ? dso_symbol_name(f->al.dso, f->al.sym, demangle) : f->al.sym->name;
}

static int grow(struct chain_frame **v, size_t *cap, size_t n)
{
	struct chain_frame *w;

	if (n <= *cap)
		return 0;
	w = realloc(*v, n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	*v = w;
	*cap = n;
	return 0;
}

/* ------------------------------------------------------------- inline frames */

static bool dwarf_is(const void *entry, const void *key)
{
	return ((const struct dso_dwarf *)entry)->dso == key;
}

/* The DWARF of d: its own, else its separate debug file by build-id; NULL when none. */
static struct dwarf_info *dso_dwarf(struct chain_resolver *c, struct dso *d)
{
	uint64_t h = hash_u64((uintptr_t)d);
	struct dso_dwarf *e = hashmap_get(&c->dwarfs, h, dwarf_is, d);
	const char *file;

	if (e)
		return e->dwarf;
	e = calloc(1, sizeof(*e));
	if (!e || hashmap_put(&c->dwarfs, h, e)) {
		free(e);
		return NULL;
	}
	e->dso = d;
	file = dso_file(d);
	if (file) {
		e->dwarf = dwarf_info_open(file, NULL);
		if (!e->dwarf) {
			char *debug = dso_debug_file(d);

			if (debug)
				e->dwarf = dwarf_info_open(file, debug);
			free(debug);
		}
	}
	sbx_error_clear();	/* no DWARF is no error: the frames stay as they are */
	return e->dwarf;
}

struct sym_key {
	const struct symbol *base;
	const char *name;
};

static bool sym_is(const void *entry, const void *key)
{
	const struct inline_sym *s = entry;
	const struct sym_key *k = key;

	return s->base == k->base && !strcmp(s->name, k->name);
}

/* The symbol of NAME inlined into base, made on first use; NULL when out of memory. */
static const struct symbol *inline_symbol(struct chain_resolver *c, const struct symbol *base,
					  const char *name)
{
	struct sym_key k = { base, name };
	uint64_t h = hash_u64(hash_combine((uintptr_t)base, hash_str(name)));
	struct inline_sym *s = hashmap_get(&c->syms, h, sym_is, &k);

	if (s)
		return &s->sym;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->name = strdup(name)) ||
	    asprintf((char **)&s->sym.name, "%s (inlined)", name) < 0) {
		if (s)
			free(s->name);
		free(s);
		return NULL;
	}
	if (hashmap_put(&c->syms, h, s)) {
		free((char *)s->sym.name);
		free(s->name);
		free(s);
		return NULL;
	}
	s->base = base;
	s->sym.start = base->start;
	s->sym.size = base->size;
	return &s->sym;
}

struct entry_key {
	struct dso *dso;
	uint64_t addr;
};

static bool entry_is(const void *entry, const void *key)
{
	const struct inline_entry *e = entry;
	const struct entry_key *k = key;

	return e->dso == k->dso && e->addr == k->addr;
}

/*
 * What the frame of sym at addr of d becomes, as perf's append_inlines():
 * each function of DWARF's inline stack there, innermost first, named by
 * DWARF; the one whose name is the symbol's own stays the symbol, the
 * others are inlined symbols. NULL when out of memory.
 */
static const struct inline_entry *inline_entry(struct chain_resolver *c, struct dso *d,
					       const struct symbol *sym, uint64_t addr)
{
	struct entry_key k = { d, addr };
	uint64_t h = hash_u64(hash_combine((uintptr_t)d, addr));
	struct inline_entry *e = hashmap_get(&c->entries, h, entry_is, &k);
	struct dwarf_frame frames[MAX_INLINE_DEPTH];
	struct dwarf_info *dw;
	const char *own;
	size_t n = 0;

	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e || hashmap_put(&c->entries, h, e)) {
		free(e);
		return NULL;
	}
	e->dso = d;
	e->addr = addr;
	dw = dso_dwarf(c, d);
	if (dw)
		n = dwarf_info_frames(dw, addr, frames, MAX_INLINE_DEPTH);
	if (!n)
		return e;
	e->syms = calloc(n, sizeof(*e->syms));
	e->inlined = calloc(n, sizeof(*e->inlined));
	if (!e->syms || !e->inlined)
		return NULL;
	own = dso_symbol_name(d, sym, c->demangle);
	for (size_t i = 0; i < n; i++) {
		const char *func = frames[n - 1 - i].func;	/* innermost first */
		char *dem = c->demangle ? demangle_symbol(func, 0) : NULL;
		const char *name = dem ? dem : func;

		if (!strcmp(name, own)) {
			e->syms[i] = sym;
		} else {
			e->syms[i] = inline_symbol(c, sym, name);
			e->inlined[i] = true;
		}
		free(dem);
		if (!e->syms[i])
			return NULL;
	}
	e->nr = n;
	return e;
}

/*
 * Replace the frames of c->frames[0..n) from the first-th on by their
 * inline stacks, into c->expanded.
 */
static long expand_inlines(struct chain_resolver *c, size_t n, size_t first)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct chain_frame *f = &c->frames[i];
		const struct inline_entry *e = NULL;
		size_t nr = 1;

		if (i >= first && f->al.sym && f->al.dso && f->al.dso->kind == DSO_ELF) {
			e = inline_entry(c, f->al.dso, f->al.sym, f->al.addr);
			if (!e)
				return sbx_error(-ENOMEM, "out of memory");
			nr = e->nr ? e->nr : 1;
		}
		if (grow(&c->expanded, &c->cap_expanded, k + nr))
			return sbx_error(-ENOMEM, "out of memory");
		if (!e || !e->nr) {
			c->expanded[k++] = *f;
			continue;
		}
		for (size_t j = 0; j < e->nr; j++) {
			c->expanded[k] = *f;
			c->expanded[k].al.sym = e->syms[j];
			c->expanded[k++].inlined = e->inlined[j];
		}
	}
	return (long)k;
}

/* ------------------------------------------------------------- srclines */

static bool string_is(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

/* The one copy of text (which the caller frees); NULL when out of memory. */
static const char *intern(struct chain_resolver *c, char *text)
{
	uint64_t h;
	char *s;

	if (!text)
		return NULL;
	h = hash_str(text);
	s = hashmap_get(&c->strings, h, string_is, text);
	if (!s && (s = strdup(text)) && hashmap_put(&c->strings, h, s)) {
		free(s);
		s = NULL;
	}
	free(text);
	return s;
}

static bool srcline_is(const void *entry, const void *key)
{
	const struct srcline_entry *e = entry;
	const struct entry_key *k = key;

	return e->dso == k->dso && e->addr == k->addr;
}

/*
 * perf's __get_srcline() with binutils' addr2line: the line from DWARF
 * (*line set); else "FILE:0" or "??:0" where addr2line names a function
 * but no line (a file that is here, with a symbol at or before the
 * address; FILE is a local symbol's STT_FILE): perf takes that answer as a
 * line; else, as perf does when addr2line finds nothing, the symbol and
 * offset, else the DSO and address
 */
static char *make_srcline(struct chain_resolver *c, const struct addr_location *al,
			  bool *is_line, bool *dwarf)
{
	struct dwarf_info *dw = al->dso->kind == DSO_ELF ? dso_dwarf(c, al->dso) : NULL;
	const struct symbol *near;
	const char *file, *base;
	char *text = NULL;
	int line;

	if (dw && dwarf_info_line(dw, al->addr, &file, &line) >= 0) {
		base = strrchr(file, '/');
		if (asprintf(&text, "%s:%d", base ? base + 1 : file, line) < 0)
			return NULL;
		*is_line = *dwarf = true;
		return text;
	}
	if (al->dso->kind == DSO_ELF && dso_file(al->dso) &&
	    (near = dso_nearest_symbol(al->dso, al->addr))) {
		/* addr2line's file of a local symbol (STT_FILE), line 0 */
		base = near->file ? strrchr(near->file, '/') : NULL;
		if (asprintf(&text, "%s:0", base ? base + 1 : near->file ? near->file : "??") < 0)
			return NULL;
		*is_line = true;
		return text;
	}
	if (al->sym) {
		if (asprintf(&text, "%s+%" PRIu64, dso_symbol_name(al->dso, al->sym, c->demangle),
			     al->addr - al->sym->start) < 0)
			return NULL;
	} else if (asprintf(&text, "%s[%" PRIx64 "]", al->dso->short_name, al->addr) < 0) {
		return NULL;
	}
	return text;
}

/* The srcline entry of al (which has a DSO), made on first use; NULL out of memory. */
static struct srcline_entry *srcline_entry(struct chain_resolver *c,
					   const struct addr_location *al)
{
	struct entry_key k = { al->dso, al->addr };
	uint64_t h = hash_u64(hash_combine((uintptr_t)al->dso, al->addr));
	struct srcline_entry *e = hashmap_get(&c->srclines, h, srcline_is, &k);

	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->dso = al->dso;
	e->addr = al->addr;
	e->text = intern(c, make_srcline(c, al, &e->line, &e->dwarf));
	sbx_error_clear();
	if (!e->text || hashmap_put(&c->srclines, h, e)) {
		free(e);
		return NULL;
	}
	return e;
}

const char *chain_srcline(struct chain_resolver *c, const struct addr_location *al)
{
	struct srcline_entry *e;

	if (!al->dso)
		return intern(c, strdup("[unknown]"));
	e = srcline_entry(c, al);
	return e ? e->text : NULL;
}

const char *chain_callchain_srcline(struct chain_resolver *c, const struct addr_location *al,
				    bool addr, bool *oom)
{
	struct srcline_entry *e;
	char *text;

	*oom = false;
	if (!al->dso || !al->sym)
		return NULL;
	if (!(e = srcline_entry(c, al)))
		goto oom;
	/* frames: DWARF's lines only (addr2line's FILE:0 is for the rows) */
	if (e->dwarf || !addr)
		return e->dwarf ? e->text : NULL;
	/* perf's get_srcline() with show_addr and without show_sym */
	if (asprintf(&text, "+%" PRIu64, al->addr - al->sym->start) < 0)
		goto oom;
	{
		const char *s = intern(c, text);

		if (s)
			return s;
	}
oom:
	*oom = true;
	return NULL;
}

/* ------------------------------------------------------------- the chain */

long chain_resolve(struct chain_resolver *c, const struct perf_sample *s, uint64_t regs_mask,
		   const struct chain_frame **frames)
{
	size_t nr_user = s->stack_user && s->regs_user ? UNWIND_MAX_FRAMES : 0;
	size_t max = (s->callchain ? s->callchain_nr : 0) + nr_user, n = 0, unwound;
	uint8_t mode = s->cpumode;

	*frames = NULL;
	if (!max)
		return 0;
	if (grow(&c->frames, &c->cap, max))
		return sbx_error(-ENOMEM, "out of memory");
	for (uint64_t i = 0; s->callchain && i < s->callchain_nr; i++) {
		struct chain_frame *f = &c->frames[n];

		/* a context marker: where the next frames are */
		if (perf_callchain_context(s->callchain[i], &mode))
			continue;
		f->ip = s->callchain[i];
		f->inlined = false;
		machine_resolve(c->m, s->pid, s->tid, mode, f->ip, &f->al);
		n++;
	}
	/* --call-graph dwarf: the user stack, unwound, after the kernel's chain */
	unwound = n;
	if (nr_user) {
		size_t k;

		if (!c->unwinder && !(c->unwinder = unwinder_new(c->m)))
			return sbx_error(-ENOMEM, "out of memory");
		if (!c->ips && !(c->ips = malloc(UNWIND_MAX_FRAMES * sizeof(*c->ips))))
			return sbx_error(-ENOMEM, "out of memory");
		k = unwind_user_stack(c->unwinder, s, regs_mask, c->ips, UNWIND_MAX_FRAMES);
		for (size_t i = 0; i < k; i++) {
			struct chain_frame *f = &c->frames[n++];

			f->ip = c->ips[i];
			f->inlined = false;
			machine_resolve(c->m, s->pid, s->tid, PERF_RECORD_MISC_USER, f->ip, &f->al);
		}
	}
	if (c->inlines == CHAIN_INLINES_NONE || (c->inlines == CHAIN_INLINES_UNWOUND && unwound == n)) {
		*frames = c->frames;
		return (long)n;
	}
	{
		long k = expand_inlines(c, n, c->inlines == CHAIN_INLINES_ALL ? 0 : unwound);

		*frames = k < 0 ? NULL : c->expanded;
		return k;
	}
}
