// SPDX-License-Identifier: MIT
/* DWARF functions and inline stacks through libdw (see dwarf.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbol/buildid.h"
#include "symbol/dwarf.h"
#include "symbol/dwarf-lines.h"
#include "util/error.h"
#include "util/escape.h"
#include "util/input.h"
#include "util/hashmap.h"
#include "util/ranges.h"

/* LLVM and GCC put the discriminator of an inlined call here (not in elfutils' dwarf.h) */
#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

#define MAX_INLINE	256

/*
 * The inlined subroutines of a function, walked once (through lexical
 * blocks, not into nested functions): one node per range, with what a
 * frame needs. Frames for an address are then found without libdw.
 */
struct inl_node {
	uint64_t lo, hi;		/* [lo, hi) */
	int32_t parent;			/* a node of the enclosing inlined subroutine, -1: none */
	uint32_t depth;
	const char *name;		/* the inlined function */
	uint32_t decl_line;
	uint32_t call_line, call_disc;	/* the call in the enclosing function */
};

struct inl_tree {
	uint64_t die;
	struct inl_node *nodes;
	size_t nr, cap;
	bool failed;
	/*
	 * The nodes' ends, sorted and distinct; between bound[i] and
	 * bound[i + 1] the innermost node is inner[i] (-1: none), so a lookup
	 * is a binary search, not a walk over every node of a big function.
	 */
	uint64_t *bound;
	int32_t *inner;
	size_t nr_bound;
};


struct dwarf_info {
	char *file;
	int fd;
	Elf *elf;
	Dwarf *dbg;
	/* .debug_line, for sbx's reader; NULL: libdw reads it (compressed, big-endian) */
	const uint8_t *line_sec;
	size_t line_size;
	struct dwarf_func *funcs;	/* sorted by start */
	size_t nr_funcs, cap_funcs;
	struct hashmap names;		/* interned strings */
	struct hashmap trees;		/* struct inl_tree, by the function's DIE offset */
	/*
	 * Address ranges of the CUs: clang writes no .debug_aranges, which
	 * dwarf_addrdie() needs, so the CU of an address is found here.
	 */
	struct cu_range {
		uint64_t start, end;
		Dwarf_Off die;		/* offset of the CU's DIE */
		bool known;		/* rows looked up (NULL: no lines), dead when absent */
		bool dead;		/* its DIE cannot be read */
		const struct cu_rows *rows;
	} *cus;
	size_t nr_cus, cap_cus;
	struct hashmap rows;		/* struct cu_rows, by the CU's DIE offset */
	/*
	 * The last answers of the lookups of a span: readers of sorted
	 * addresses ask for the same or the next (first_above() hints)
	 */
	size_t last_above;		/* the row */
	size_t last_func;		/* func_index() */
	struct inl_tree *last_tree;	/* inline_tree() */
	size_t last_bound;		/* the inline tree's bound */
};

/*
 * A CU's line-table rows in libdw's order (sorted by address, an end of
 * sequence before the rows at its address), for spans and for the row of
 * an address without asking libdw each time.
 */
struct cu_rows {
	Dwarf_Off die;
	uint64_t *addr;
	struct dwarf_row *info;
	size_t nr;
};

static bool name_is(const void *entry, const void *key)
{
	return !strcmp(entry, key);
}

/* s kept in d (the same pointer for the same string), or "" when memory ran out */
static const char *intern(struct dwarf_info *d, const char *s)
{
	uint64_t h;

	s = escape_str(s);	/* a jitted function's name, a file's: printed as text */
	h = hash_str(s);
	char *n = hashmap_get(&d->names, h, name_is, s);

	if (n)
		return n;
	n = strdup(s);
	if (!n || hashmap_put(&d->names, h, n)) {
		free(n);
		return "";
	}
	return n;
}

/* The linkage name of a function DIE (through abstract_origin/specification), else its name. */
static const char *die_name(struct dwarf_info *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (!s)
		s = dwarf_diename(die);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return intern(d, s ? s : "");
}

static uint32_t die_decl_line(Dwarf_Die *die)
{
	int line = 0;

	return dwarf_decl_line(die, &line) == 0 && line > 0 ? (uint32_t)line : 0;
}

static uint32_t die_udata(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	Dwarf_Word v = 0;

	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &v))
		return 0;
	return (uint32_t)v;
}

static int add_func(struct dwarf_info *d, const struct dwarf_func *f)
{
	if (d->nr_funcs == d->cap_funcs) {
		size_t cap = d->cap_funcs ? 2 * d->cap_funcs : 1024;
		struct dwarf_func *v = realloc(d->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->funcs = v;
		d->cap_funcs = cap;
	}
	d->funcs[d->nr_funcs++] = *f;
	return 0;
}

static int on_func(Dwarf_Die *die, void *arg)
{
	struct dwarf_info *d = arg;
	struct dwarf_func f = { 0 };
	Dwarf_Addr base, start, end, low;
	ptrdiff_t off = 0;
	bool first = true;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		if (first) {
			f.name = die_name(d, die);
			f.decl_line = die_decl_line(die);
			f.entry = dwarf_lowpc(die, &low) == 0 ? low : start;
			f.die = dwarf_dieoffset(die);
			first = false;
		}
		f.start = start;
		f.end = end;
		if (add_func(d, &f))
			return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

static int add_cu_ranges(struct dwarf_info *d, Dwarf_Die *cu)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		if (d->nr_cus == d->cap_cus) {
			size_t cap = d->cap_cus ? 2 * d->cap_cus : 64;
			struct cu_range *v = realloc(d->cus, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			d->cus = v;
			d->cap_cus = cap;
		}
		d->cus[d->nr_cus++] = (struct cu_range){ start, end, dwarf_dieoffset(cu), false, false,
						 NULL };
	}
	return 0;
}

static int cmp_cu(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The CU range that holds addr (of the last few that start at or before it), or NULL. */
static struct cu_range *cu_range_of(struct dwarf_info *d, uint64_t addr)
{
	size_t i = RANGES_FIND_LAST_LE(d->cus, d->nr_cus, start, addr);

	for (size_t k = 0; i < d->nr_cus && k < 8; k++, i--) {
		if (addr < d->cus[i].end)
			return &d->cus[i];
		if (!i)
			break;
	}
	return NULL;
}

/* The CU DIE whose ranges hold addr. */
static bool cu_of(struct dwarf_info *d, uint64_t addr, Dwarf_Die *cu)
{
	const struct cu_range *c = cu_range_of(d, addr);

	if (c)
		return dwarf_offdie(d->dbg, c->die, cu) != NULL;
	return dwarf_addrdie(d->dbg, addr, cu) != NULL;
}

static int cmp_func(const void *a, const void *b)
{
	const struct dwarf_func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static bool has_debug_info(Elf *elf)
{
	GElf_Shdr sh;

	return (sbx_elf_section(elf, ".debug_info", &sh) && sh.sh_type != SHT_NOBITS) ||
	       (sbx_elf_section(elf, ".zdebug_info", &sh) && sh.sh_type != SHT_NOBITS);
}

/*
 * The .debug_line section as the program reader takes it: little-endian,
 * not compressed (libdw decompresses a section in place when it opens the
 * file, so this is asked after dwarf_begin_elf()).
 */
static void find_debug_line(struct dwarf_info *d)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	Elf_Data *data;

	if (!gelf_getehdr(d->elf, &eh) || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !(scn = sbx_elf_section(d->elf, ".debug_line", &sh)) || sh.sh_type != SHT_PROGBITS ||
	    (sh.sh_flags & SHF_COMPRESSED) || !(data = elf_getdata(scn, NULL)) ||
	    !data->d_buf || !data->d_size)
		return;
	d->line_sec = data->d_buf;
	d->line_size = data->d_size;
}

struct dwarf_info *dwarf_info_open(const char *path, const char *debug_path)
{
	const char *file = debug_path ? debug_path : path;
	struct dwarf_info *d;
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!sbx_elf_ready()) {
		sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->fd = -1;
	if (!d || !(d->file = strdup(file))) {
		free(d);
		sbx_error(-ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	d->fd = -1;
	d->fd = input_open(file, 0, 0, NULL);
	if (d->fd < 0) {
		int e = -d->fd;

		d->fd = -1;
		dwarf_info_free(d);
		errno = e;
		return NULL;
	}
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		sbx_error(-EINVAL, "'%s' is not an ELF file", file);
		dwarf_info_free(d);
		errno = EINVAL;
		return NULL;
	}
	if (!has_debug_info(d->elf) || !(d->dbg = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL))) {
		sbx_error(-ENOENT, "'%s' has no DWARF (build with -g, -gline-tables-only or "
			  "-fdebug-info-for-profiling, or give its debug file)", file);
		dwarf_info_free(d);
		errno = ENOENT;
		return NULL;
	}
	find_debug_line(d);
	while (dwarf_nextcu(d->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dbg, off + hsize, &cu) &&
		    (add_cu_ranges(d, &cu) ||
		     (dwarf_getfuncs(&cu, on_func, d, 0) < 0 && d->nr_funcs == d->cap_funcs))) {
			sbx_error(-ENOMEM, "out of memory");
			dwarf_info_free(d);
			errno = ENOMEM;
			return NULL;
		}
		off = next;
	}
	if (d->nr_funcs)
		qsort(d->funcs, d->nr_funcs, sizeof(*d->funcs), cmp_func);
	if (d->nr_cus)
		qsort(d->cus, d->nr_cus, sizeof(*d->cus), cmp_cu);
	return d;
}

void dwarf_info_free(struct dwarf_info *d)
{
	char *s;

	if (!d)
		return;
	if (d->dbg)
		dwarf_end(d->dbg);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	for (size_t i = 0; (s = hashmap_next(&d->names, &i));)
		free(s);
	hashmap_release(&d->names);
	{
		struct inl_tree *t;

		for (size_t i = 0; (t = hashmap_next(&d->trees, &i));) {
			free(t->nodes);
			free(t->bound);
			free(t->inner);
			free(t);
		}
		hashmap_release(&d->trees);
	}
	{
		struct cu_rows *r;

		for (size_t i = 0; (r = hashmap_next(&d->rows, &i));) {
			free(r->addr);
			free(r->info);
			free(r);
		}
		hashmap_release(&d->rows);
	}
	free(d->funcs);
	free(d->cus);
	free(d->file);
	free(d);
}

const char *dwarf_info_file(const struct dwarf_info *d)
{
	return d->file;
}

size_t dwarf_info_functions(struct dwarf_info *d, const struct dwarf_func **funcs)
{
	*funcs = d->funcs;
	return d->nr_funcs;
}

/* Is i the last function (by start) that starts at or below addr? */
static bool is_func_index(const struct dwarf_info *d, size_t i, uint64_t addr)
{
	return i < d->nr_funcs && d->funcs[i].start <= addr &&
	       (i + 1 == d->nr_funcs || d->funcs[i + 1].start > addr);
}

/*
 * RANGES_FIND_LAST_LE over the functions (nr_funcs when none starts at or
 * below addr), trying the last answer and the next one first.
 */
static size_t func_index(struct dwarf_info *d, uint64_t addr)
{
	if (is_func_index(d, d->last_func, addr))
		return d->last_func;
	if (is_func_index(d, d->last_func + 1, addr))
		return ++d->last_func;
	d->last_func = RANGES_FIND_LAST_LE(d->funcs, d->nr_funcs, start, addr);
	return d->last_func;
}

const struct dwarf_func *dwarf_info_function_at(struct dwarf_info *d, uint64_t addr)
{
	size_t i = func_index(d, addr);

	/* ranges may nest (a function inside another's range): look back a little */
	for (size_t k = 0; i < d->nr_funcs && k < 8; k++, i--) {
		if (addr < d->funcs[i].end)
			return &d->funcs[i];
		if (!i)
			break;
	}
	return NULL;
}

static bool tree_of(const void *entry, const void *key)
{
	return ((const struct inl_tree *)entry)->die == *(const uint64_t *)key;
}

static void walk_inlines(struct dwarf_info *d, struct inl_tree *t, Dwarf_Die *scope,
			 int32_t parent, uint32_t depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		int32_t first = -1;

		if (tag == DW_TAG_lexical_block) {
			walk_inlines(d, t, &child, parent, depth);
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
			struct inl_node *n;

			if (hi <= lo)
				continue;
			if (t->nr == t->cap) {
				size_t cap = t->cap ? 2 * t->cap : 16;
				struct inl_node *v = realloc(t->nodes, cap * sizeof(*v));

				if (!v) {
					t->failed = true;
					return;
				}
				t->nodes = v;
				t->cap = cap;
			}
			n = &t->nodes[t->nr];
			*n = (struct inl_node){ lo, hi, parent, depth + 1, NULL, 0,
						die_udata(&child, DW_AT_call_line),
						die_udata(&child, DW_AT_GNU_discriminator) };
			if (first < 0) {
				n->name = die_name(d, &child);
				n->decl_line = die_decl_line(&child);
				first = (int32_t)t->nr;
			} else {
				n->name = t->nodes[first].name;
				n->decl_line = t->nodes[first].decl_line;
			}
			t->nr++;
		}
		if (first >= 0)
			walk_inlines(d, t, &child, first, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The index of the first of v[0..n) (sorted) above key; n when none is. */
static size_t sorted_above(const uint64_t *v, size_t n, uint64_t key)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (v[m] <= key)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * sorted_above(), trying *hint and the one after it first; *hint becomes
 * the answer. A hint is checked against v before it is taken, so one left
 * from another array costs only the search.
 */
static size_t first_above(const uint64_t *v, size_t n, uint64_t key, size_t *hint)
{
	for (size_t k = *hint; k <= *hint + 1; k++)
		if (k <= n && (k == 0 || v[k - 1] <= key) && (k == n || v[k] > key))
			return *hint = k;
	return *hint = sorted_above(v, n, key);
}

/*
 * The segments of t: every node's ends, and the innermost node of each
 * stretch between two (the first of the deepest, as a walk in node order
 * finds it). Without memory for them, t->failed.
 */
static void inline_segments(struct inl_tree *t)
{
	size_t n = 0;

	if (!t->nr)
		return;
	t->bound = malloc(2 * t->nr * sizeof(*t->bound));
	t->inner = malloc(2 * t->nr * sizeof(*t->inner));
	if (!t->bound || !t->inner) {
		t->failed = true;
		return;
	}
	for (size_t i = 0; i < t->nr; i++) {
		t->bound[n++] = t->nodes[i].lo;
		t->bound[n++] = t->nodes[i].hi;
	}
	qsort(t->bound, n, sizeof(*t->bound), cmp_u64);
	t->nr_bound = 0;
	for (size_t i = 0; i < n; i++)
		if (!t->nr_bound || t->bound[t->nr_bound - 1] != t->bound[i])
			t->bound[t->nr_bound++] = t->bound[i];
	for (size_t i = 0; i < t->nr_bound; i++)
		t->inner[i] = -1;
	for (size_t i = 0; i < t->nr; i++) {
		const struct inl_node *node = &t->nodes[i];

		for (size_t k = sorted_above(t->bound, t->nr_bound, node->lo) - 1; k < t->nr_bound &&
		     t->bound[k] < node->hi; k++)
			if (t->inner[k] < 0 || node->depth > t->nodes[t->inner[k]].depth)
				t->inner[k] = (int32_t)i;
	}
}

/* The inline tree of the function whose DIE is at off, walked on first use. */
static struct inl_tree *inline_tree(struct dwarf_info *d, uint64_t off)
{
	struct inl_tree *t = d->last_tree && d->last_tree->die == off
				     ? d->last_tree : hashmap_get(&d->trees, hash_u64(off), tree_of, &off);
	Dwarf_Die die;

	if (t) {
		d->last_tree = t;
		return t->failed ? NULL : t;
	}
	t = calloc(1, sizeof(*t));
	if (!t || hashmap_put(&d->trees, hash_u64(off), t)) {
		free(t);
		return NULL;
	}
	t->die = off;
	if (dwarf_offdie(d->dbg, off, &die))
		walk_inlines(d, t, &die, -1, 0);
	inline_segments(t);
	d->last_tree = t;
	return t->failed ? NULL : t;
}

static bool rows_of(const void *entry, const void *key)
{
	return ((const struct cu_rows *)entry)->die == *(const Dwarf_Off *)key;
}

/* The rows of cu's line program, read by libdw (its order, its values). */
static int libdw_rows(Dwarf_Die *cu, struct cu_rows *r)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) || !n)
		return 0;
	r->addr = malloc(n * sizeof(*r->addr));
	r->info = malloc(n * sizeof(*r->info));
	if (!r->addr || !r->info)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a = 0;
		unsigned disc = 0;
		bool end = false;
		int line = 0;

		dwarf_lineaddr(l, &a);
		if (dwarf_lineno(l, &line) || line < 0)
			line = 0;
		dwarf_linediscriminator(l, &disc);
		dwarf_lineendsequence(l, &end);
		r->addr[i] = a;
		r->info[i] = (struct dwarf_row){ (uint32_t)line & 0x7fffffff, end, disc };
	}
	r->nr = n;
	return 0;
}

/*
 * The rows of cu, read once; NULL when it has no lines or memory ran out.
 * sbx's reader reads the program (16 bytes a row, nothing kept by libdw);
 * one it refuses (malformed, VLIW) goes to libdw, which says the same.
 */
static const struct cu_rows *cu_rows(struct dwarf_info *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	uint64_t h = hash_u64(off);
	struct cu_rows *r = hashmap_get(&d->rows, h, rows_of, &off);
	Dwarf_Attribute attr;
	Dwarf_Word stmt;
	int err = -EINVAL;

	if (r)
		return r->nr ? r : NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->die = off;
	if (d->line_sec && dwarf_attr(cu, DW_AT_stmt_list, &attr) &&
	    !dwarf_formudata(&attr, &stmt))
		err = dwarf_lines_read(d->line_sec, d->line_size, stmt, &r->addr, &r->info, &r->nr);
	if (err == -EINVAL)
		err = libdw_rows(cu, r);
	if (err || !r->nr) {
		free(r->addr);
		free(r->info);
		r->addr = NULL;
		r->info = NULL;
		r->nr = 0;
	}
	if (hashmap_put(&d->rows, h, r)) {
		free(r->addr);
		free(r->info);
		free(r);
		return NULL;
	}
	return r->nr ? r : NULL;
}

/*
 * The rows of the CU holding addr, looked up once per CU (no libdw call on
 * the way): *found is false when no CU holds it; NULL rows when the CU has
 * no line table.
 */
static const struct cu_rows *rows_at(struct dwarf_info *d, uint64_t addr, bool *found)
{
	struct cu_range *c = cu_range_of(d, addr);
	Dwarf_Die cu;

	*found = true;
	if (c) {
		if (!c->known) {
			c->known = true;
			c->dead = !dwarf_offdie(d->dbg, c->die, &cu);
			c->rows = c->dead ? NULL : cu_rows(d, &cu);
		}
		*found = !c->dead;
		return c->rows;
	}
	if (!dwarf_addrdie(d->dbg, addr, &cu)) {
		*found = false;
		return NULL;
	}
	return cu_rows(d, &cu);
}

void dwarf_info_preload(struct dwarf_info *d, const atomic_bool *stop)
{
	for (size_t i = 0; i < d->nr_cus && !atomic_load_explicit(stop, memory_order_relaxed); i++) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dbg, d->cus[i].die, &cu))
			cu_rows(d, &cu);
	}
	for (size_t i = 0; i < d->nr_funcs && !atomic_load_explicit(stop, memory_order_relaxed); i++)
		inline_tree(d, d->funcs[i].die);
}

size_t dwarf_info_frames(struct dwarf_info *d, uint64_t addr, struct dwarf_frame *frames,
			 size_t max)
{
	return dwarf_info_frames_span(d, addr, frames, max, NULL);
}

int dwarf_info_line(struct dwarf_info *d, uint64_t addr, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (!cu_of(d, addr, &cu))
		return -ENOENT;
	if (!(l = dwarf_getsrc_die(&cu, addr)) || !(*file = dwarf_linesrc(l, NULL, NULL))) {
		*file = "";
		*line = 0;
		return 1;
	}
	if (dwarf_lineno(l, line) || *line < 0)
		*line = 0;
	if (escape_needed(*file, strlen(*file)))
		*file = intern(d, *file);
	return 0;
}

size_t dwarf_info_frames_span(struct dwarf_info *d, uint64_t addr, struct dwarf_frame *frames,
			      size_t max, uint64_t span[2])
{
	const struct dwarf_func *fn = dwarf_info_function_at(d, addr);
	struct inl_tree *t;
	const struct inl_node *chain[MAX_INLINE], *inner = NULL;
	const struct cu_rows *rows;
	unsigned disc = 0;
	int lineno = 0;
	size_t nr_inl = 0, nr = 0, above;
	bool found;

	if (span) {
		span[0] = addr;
		span[1] = addr + 1;
	}
	if (!max || !fn || !(t = inline_tree(d, fn->die)))
		return 0;
	rows = rows_at(d, addr, &found);
	if (!found)
		return 0;
	above = rows ? first_above(rows->addr, rows->nr, addr, &d->last_above) : 0;
	if (span) {
		/* up to the next function's start: ranges may nest */
		size_t i = func_index(d, addr);

		span[0] = &d->funcs[i] == fn ? fn->start : addr;
		span[1] = fn->end;
		if (i + 1 < d->nr_funcs && d->funcs[i + 1].start < span[1])
			span[1] = d->funcs[i + 1].start;
		/*
		 * libdw's row for an address is the last one at or before it,
		 * the same up to the next row's address; no rows: this address
		 */
		if (!rows) {
			span[0] = addr;
			span[1] = addr + 1;
		} else {
			if (above > 0 && rows->addr[above - 1] > span[0])
				span[0] = rows->addr[above - 1];
			if (above < rows->nr && rows->addr[above] < span[1])
				span[1] = rows->addr[above];
		}
	}
	/*
	 * The row dwarf_getsrc_die() gives: the last at or before addr, unless
	 * it ends a sequence. No row, or line 0 (compiler-made code): the
	 * frames, with line 0.
	 */
	if (rows && above > 0 && !rows->info[above - 1].end) {
		lineno = (int)rows->info[above - 1].line;
		disc = rows->info[above - 1].disc;
	}
	/* the innermost inlined subroutine holding addr (then its parents), and its stretch */
	if (t->nr_bound) {
		size_t k = first_above(t->bound, t->nr_bound, addr, &d->last_bound);

		if (k > 0 && k < t->nr_bound && t->inner[k - 1] >= 0)
			inner = &t->nodes[t->inner[k - 1]];
		if (span && k > 0 && t->bound[k - 1] > span[0])
			span[0] = t->bound[k - 1];
		if (span && k < t->nr_bound && t->bound[k] < span[1])
			span[1] = t->bound[k];
	}
	for (const struct inl_node *n = inner; n && nr_inl < MAX_INLINE;
	     n = n->parent >= 0 ? &t->nodes[n->parent] : NULL)
		chain[nr_inl++] = n;
	/*
	 * Frame 0 is the function itself; then the inlined ones, outermost
	 * first. A frame's line is the call of the next one inside it; the
	 * innermost's, the address's own line.
	 */
	frames[nr].func = fn->name;
	frames[nr].func_line = fn->decl_line;
	nr++;
	for (size_t i = nr_inl; i-- > 0 && nr < max;) {
		frames[nr - 1].line = chain[i]->call_line;
		frames[nr - 1].discriminator = chain[i]->call_disc;
		frames[nr].func = chain[i]->name;
		frames[nr].func_line = chain[i]->decl_line;
		nr++;
	}
	if (nr == max && nr_inl + 1 > max)
		return nr;	/* deeper than max: the innermost frames are gone */
	frames[nr - 1].line = (uint32_t)lineno;
	frames[nr - 1].discriminator = disc;
	return nr;
}
