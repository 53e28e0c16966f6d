// SPDX-License-Identifier: MIT
/* Symbol tables: ELF (libelf), perf-PID.map, kallsyms (see symtab.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/escape.h"
#include "util/input.h"
#include "util/ranges.h"
#include "symbol/buildid.h"
#include "symbol/demangle.h"
#include "symbol/symtab.h"

/* ------------------------------------------------------------- tables */

struct bsym {
	struct symbol sym;	/* name is an offset into strings until the end */
	int binding;		/* 0 global, 1 weak, 2 local: which alias wins */
	bool last_alias;	/* kallsyms: the last of its address in the file */
	size_t seq;		/* place in the file: the first of equal aliases wins */
};

struct builder {
	struct bsym *syms;
	size_t nr, cap;
	char *strings;
	size_t len, strcap;
};

static void builder_release(struct builder *b)
{
	free(b->syms);
	free(b->strings);
}

/* A copy of s in the builder's strings: its offset, or (size_t)-1 when out of memory. */
static size_t builder_string(struct builder *b, const char *s)
{
	size_t n, at = b->len;

	/* names from a jitdump, a perf map or any ELF: no control character gets printed */
	s = escape_str(s);
	n = strlen(s) + 1;

	if (b->len + n > b->strcap) {
		size_t cap = b->strcap ? 2 * b->strcap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->strings, cap);
		if (!p)
			return (size_t)-1;
		b->strings = p;
		b->strcap = cap;
	}
	memcpy(b->strings + b->len, s, n);
	b->len += n;
	return at;
}

/* file: 1 + the offset of its name in the strings, or 0 for none */
static int builder_add_file(struct builder *b, uint64_t start, uint64_t size, const char *name,
			    int binding, size_t file)
{
	size_t at;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct bsym *s = realloc(b->syms, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		b->syms = s;
		b->cap = cap;
	}
	at = builder_string(b, name);
	if (at == (size_t)-1)
		return -ENOMEM;
	b->syms[b->nr].sym = (struct symbol){ start, size, (const char *)(uintptr_t)at,
					      (const char *)(uintptr_t)file };
	b->syms[b->nr].binding = binding;
	b->syms[b->nr].last_alias = false;
	b->syms[b->nr].seq = b->nr;
	b->nr++;
	return 0;
}

static int builder_add(struct builder *b, uint64_t start, uint64_t size, const char *name,
		       int binding)
{
	return builder_add_file(b, start, size, name, binding, 0);
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's x86 tie rule: the kernel's old SyS_ aliases lose */
static bool sys_alias(const char *s)
{
	return !strncmp(s, "SyS", 3) || !strncmp(s, "compat_SyS", 10);
}

/*
 * By address; among aliases at one address, the one perf shows (its
 * choose_best_symbol): a sized one, a non-weak one, a global one, the one
 * with fewer leading underscores, the longer name, not a SyS_ alias, and of
 * names still equal the first in the file (perf keeps the first of its
 * address-ordered tree, where an equal address is inserted after): so glibc's
 * pthread_sigmask@GLIBC_2.2.5 over the pthread_sigmask@@GLIBC_2.32 after it.
 */
static int cmp_bsym(const void *x, const void *y, void *strings)
{
	const struct bsym *a = x, *b = y;
	const char *na, *nb;
	size_t ua, ub, la, lb;

	if (a->sym.start != b->sym.start)
		return a->sym.start < b->sym.start ? -1 : 1;
	/*
	 * perf gives kallsyms symbols their ends (the next one's start) before
	 * it picks among aliases: the last alias in the file is the one with a
	 * size, and the sized one wins (__pi_memset over memset)
	 */
	if (a->last_alias != b->last_alias)
		return a->last_alias ? -1 : 1;
	if ((a->sym.size == 0) != (b->sym.size == 0))
		return a->sym.size ? -1 : 1;
	if ((a->binding == 1) != (b->binding == 1))
		return a->binding == 1 ? 1 : -1;
	if ((a->binding == 0) != (b->binding == 0))
		return a->binding == 0 ? -1 : 1;
	na = (const char *)strings + (uintptr_t)a->sym.name;
	nb = (const char *)strings + (uintptr_t)b->sym.name;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la > lb ? -1 : 1;
	if (sys_alias(na) != sys_alias(nb))
		return sys_alias(na) ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * A bucket index over the address range, at most ~4 buckets per symbol, so
 * that a lookup is one array access and a short scan instead of a binary
 * search over the whole table. Without memory for it, lookups still work.
 */
static void build_index(struct symtab *t)
{
	uint64_t range;
	unsigned shift = 4;
	size_t n, k = 0;

	if (t->nr < 16)
		return;
	t->base = t->syms[0].start;
	range = t->syms[t->nr - 1].start - t->base + 1;
	while (shift < 63 && (range >> shift) > 4 * t->nr)
		shift++;
	n = (range >> shift) + 1;
	t->bucket = malloc(n * sizeof(*t->bucket));
	if (!t->bucket)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t start = t->base + ((uint64_t)i << shift);

		/* the last symbol that starts at or before the bucket */
		while (k + 1 < t->nr && t->syms[k + 1].start <= start)
			k++;
		t->bucket[i] = k;
	}
	t->nr_buckets = n;
	t->shift = shift;
}

/* Sort, drop aliases, resolve names, size unsized symbols; frees the builder. */
static struct symtab *builder_finish(struct builder *b)
{
	struct symtab *t = calloc(1, sizeof(*t));
	struct symbol *syms = malloc((b->nr ? b->nr : 1) * sizeof(*syms));
	size_t out = 0;

	if (!t || !syms) {
		free(t);
		free(syms);
		builder_release(b);
		sbx_error(-ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (b->nr)
		qsort_r(b->syms, b->nr, sizeof(*b->syms), cmp_bsym, b->strings);
	for (size_t i = 0; i < b->nr; i++) {
		if (out && syms[out - 1].start == b->syms[i].sym.start)
			continue;
		syms[out] = b->syms[i].sym;
		syms[out].name = b->strings + (uintptr_t)syms[out].name;
		if (syms[out].file)
			syms[out].file = b->strings + (uintptr_t)syms[out].file - 1;
		out++;
	}
	for (size_t i = 0; i + 1 < out; i++)
		if (!syms[i].size)
			syms[i].size = syms[i + 1].start - syms[i].start;
	free(b->syms);
	t->syms = syms;
	t->nr = out;
	t->strings = b->strings;
	t->strings_size = b->len;
	build_index(t);
	return t;
}

static int load_symtab_section(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct builder *b)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t nr, file = 0;	/* the STT_FILE in force: 1 + its offset in the strings */
	const char *file_name = NULL;
	/* binutils' states: a global symbol after a later STT_FILE has no file */
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;

	if (!data || !sh->sh_entsize)
		return 0;
	nr = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < nr; i++) {	/* 0: the null symbol, as binutils skips it */
		GElf_Sym sym;
		const char *name;
		int type, bind;
		bool has_file;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type == STT_FILE) {
			file_name = elf_strptr(elf, sh->sh_link, sym.st_name);
			file = 0;	/* copied when a symbol uses it */
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || !sym.st_value)
			continue;
		/* functions, and labels in code (_start is one), as perf takes them */
		if (type == STT_NOTYPE) {
			Elf_Scn *sec = elf_getscn(elf, sym.st_shndx);
			GElf_Shdr ssh;

			if (!sec || !gelf_getshdr(sec, &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
				continue;
		} else if (type != STT_FUNC && type != STT_GNU_IFUNC) {
			continue;
		}
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		has_file = file_name && *file_name &&
			   (bind == STB_LOCAL || state != FILE_AFTER_SYMBOL);
		if (has_file && !file) {
			size_t at = builder_string(b, file_name);

			if (at == (size_t)-1)
				return -ENOMEM;
			file = at + 1;
		}
		if (builder_add_file(b, sym.st_value, sym.st_size, name,
				     bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2,
				     has_file ? file : 0))
			return -ENOMEM;
	}
	return 0;
}

static Elf *elf_open(const char *path, int *fd)
{
	Elf *elf;

	if (!sbx_elf_ready()) {
		sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	*fd = input_open(path, 0, 0, NULL);
	if (*fd < 0) {
		errno = -*fd;
		return NULL;
	}
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(*fd);
		sbx_error(-EINVAL, "'%s' is not an ELF file", path);
		errno = EINVAL;
		return NULL;
	}
	return elf;
}

/*
 * Names for the PLT entries, "target@plt", as perf makes them: the n-th
 * relocation of .rela.plt is the (n+1)-th entry of .plt (the first one is
 * the lazy-binding stub). Relocations without a symbol (IRELATIVE) give
 * "@plt".
 */
static int add_plt_symbols(Elf *elf, struct builder *b)
{
	GElf_Shdr plt, rela, dynsym;
	Elf_Scn *plt_scn = sbx_elf_section(elf, ".plt", &plt);
	Elf_Scn *rela_scn = sbx_elf_section(elf, ".rela.plt", &rela);
	Elf_Scn *sym_scn;
	Elf_Data *rdata, *sdata;
	uint64_t entsize;
	char name[512];

	if (!plt_scn || !rela_scn || plt.sh_type != SHT_PROGBITS || rela.sh_type != SHT_RELA ||
	    !rela.sh_entsize)
		return 0;
	sym_scn = elf_getscn(elf, rela.sh_link);
	if (!sym_scn || !gelf_getshdr(sym_scn, &dynsym))
		return 0;
	rdata = elf_getdata(rela_scn, NULL);
	sdata = elf_getdata(sym_scn, NULL);
	entsize = plt.sh_entsize ? plt.sh_entsize : 16;
	if (!rdata || !sdata)
		return 0;
	for (size_t i = 0; i < rela.sh_size / rela.sh_entsize; i++) {
		uint64_t addr = plt.sh_addr + entsize * (i + 1);
		const char *target = "";
		GElf_Rela r;
		GElf_Sym sym;

		if (addr + entsize > plt.sh_addr + plt.sh_size)
			break;
		if (!gelf_getrela(rdata, i, &r))
			continue;
		if (GELF_R_SYM(r.r_info) && gelf_getsym(sdata, GELF_R_SYM(r.r_info), &sym))
			target = elf_strptr(elf, dynsym.sh_link, sym.st_name) ?: "";
		snprintf(name, sizeof(name), "%s@plt", target);
		if (builder_add(b, addr, entsize, name, 0))
			return -ENOMEM;
	}
	return 0;
}

/* .symtab, else .dynsym, of an open ELF into b */
static int load_elf_symbols(Elf *elf, struct builder *b)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh;
	int err = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	if (symtab && gelf_getshdr(symtab, &sh))
		err = load_symtab_section(elf, symtab, &sh, b);
	if (!err && !b->nr && dynsym && gelf_getshdr(dynsym, &sh))
		err = load_symtab_section(elf, dynsym, &sh, b);
	return err;
}

static struct symtab *finish_or_fail(struct builder *b, int err)
{
	if (err) {
		builder_release(b);
		sbx_error(-ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	return builder_finish(b);
}

struct symtab *symtab_from_elf_plt(const char *path, const char *plt_path)
{
	struct builder b = { 0 };
	int fd, err;
	Elf *elf = elf_open(path, &fd);

	if (!elf)
		return NULL;
	err = load_elf_symbols(elf, &b);
	if (!err && plt_path && !strcmp(plt_path, path))
		err = add_plt_symbols(elf, &b);
	elf_end(elf);
	close(fd);
	if (!err && plt_path && strcmp(plt_path, path)) {
		elf = elf_open(plt_path, &fd);
		if (elf) {
			err = add_plt_symbols(elf, &b);
			elf_end(elf);
			close(fd);
		}
	}
	return finish_or_fail(&b, err);
}

struct symtab *symtab_from_elf_mem(const void *buf, size_t len)
{
	struct builder b = { 0 };
	Elf *elf;
	int err;

	if (!sbx_elf_ready()) {
		sbx_error(-EINVAL, "libelf: %s", elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	elf = elf_memory((char *)buf, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		sbx_error(-EINVAL, "not an ELF image");
		errno = EINVAL;
		return NULL;
	}
	err = load_elf_symbols(elf, &b);
	elf_end(elf);
	return finish_or_fail(&b, err);
}

struct symtab *symtab_from_elf(const char *path)
{
	return symtab_from_elf_plt(path, path);
}

struct symtab *symtab_from_perf_map(const char *path)
{
	struct builder b = { 0 };
	/* in /tmp, where anyone may put a link, a FIFO or a huge file at that name */
	int fd = input_open(path, INPUT_NOFOLLOW, PERF_MAP_MAX_SIZE, NULL);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f) {
		int e = fd < 0 ? -fd : errno;

		if (fd >= 0) {
			sbx_error_errno(-e, "cannot open '%s'", path);
			close(fd);
		}
		errno = e;
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, size;
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx %llx %n", &start, &size, &n) < 2 || !n || !line[n])
			continue;
		if (builder_add(&b, start, size, line + n, 0))
			break;
	}
	free(line);
	fclose(f);
	return builder_finish(&b);
}

struct seq {
	uint64_t start;
	size_t i;
};

static int cmp_seq(const void *x, const void *y)
{
	const struct seq *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Mark, at each address, the symbol the file names last (b->syms is in file order). */
static void mark_last_aliases(struct builder *b)
{
	struct seq *v = malloc((b->nr ? b->nr : 1) * sizeof(*v));

	if (!v)
		return;		/* the other rules decide */
	for (size_t i = 0; i < b->nr; i++)
		v[i] = (struct seq){ b->syms[i].sym.start, i };
	qsort(v, b->nr, sizeof(*v), cmp_seq);
	for (size_t k = 0; k < b->nr; k++)
		b->syms[v[k].i].last_alias = k + 1 == b->nr || v[k + 1].start != v[k].start;
	free(v);
}

struct symtab *symtab_from_kallsyms(const char *path)
{
	struct builder b = { 0 };
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	bool nonzero = false;

	if (!f) {
		sbx_error_errno(-errno, "cannot open '%s'", path);
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		unsigned long long addr;
		char type, name[512];

		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (addr)
			nonzero = true;
		if (builder_add(&b, addr, 0, name, type == 'T' ? 0 : type == 'W' ? 1 : 2))
			break;
	}
	free(line);
	fclose(f);
	mark_last_aliases(&b);
	if (!nonzero) {
		builder_release(&b);
		sbx_error(-EACCES, "'%s' shows no addresses (kernel.kptr_restrict)", path);
		errno = EACCES;
		return NULL;
	}
	return builder_finish(&b);
}

/* The index of the last symbol that starts at or below addr, or t->nr (t has symbols or not). */
static size_t last_at_or_below(const struct symtab *t, uint64_t addr)
{
	size_t lo;

	if (!t->nr)
		return 0;
	if (t->bucket && addr >= t->base && (addr - t->base) >> t->shift < t->nr_buckets) {
		/* scan forward from the bucket's first candidate */
		lo = t->bucket[(addr - t->base) >> t->shift];
		while (lo + 1 < t->nr && t->syms[lo + 1].start <= addr)
			lo++;
		return lo;
	}
	return RANGES_FIND_LAST_LE(t->syms, t->nr, start, addr);
}

const struct symbol *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo;

	if (!t || (lo = last_at_or_below(t, addr)) == t->nr)
		return NULL;
	if (t->syms[lo].size && addr >= t->syms[lo].start + t->syms[lo].size)
		return NULL;
	return &t->syms[lo];
}

const struct symbol *symtab_nearest(const struct symtab *t, uint64_t addr)
{
	size_t i, len;

	if (!t || (i = last_at_or_below(t, addr)) == t->nr)
		return NULL;
	/* the PLT's names are made up: the file has no symbol there */
	len = strlen(t->syms[i].name);
	if (len >= 4 && !strcmp(t->syms[i].name + len - 4, "@plt"))
		return NULL;
	return &t->syms[i];
}

const char *symtab_demangled_name(struct symtab *t, const struct symbol *sym)
{
	size_t i;
	char *d;

	if (!t || sym < t->syms || sym >= t->syms + t->nr || strncmp(sym->name, "_Z", 2))
		return sym->name;
	i = (size_t)(sym - t->syms);
	if (!t->demangled && !(t->demangled = calloc(t->nr, sizeof(*t->demangled))))
		return sym->name;
	if (t->demangled[i])
		return t->demangled[i];
	d = demangle_symbol(sym->name, 0);
	if (!d) {
		if (errno == ENOMEM)
			return sym->name;	/* not cached: tried again next time */
		/* not demangled: the name itself, marked as such */
		return t->demangled[i] = (char *)sym->name;
	}
	return t->demangled[i] = d;
}

void symtab_free(struct symtab *t)
{
	if (!t)
		return;
	if (t->demangled) {
		for (size_t i = 0; i < t->nr; i++)
			if (t->demangled[i] != t->syms[i].name)
				free(t->demangled[i]);
		free(t->demangled);
	}
	free(t->syms);
	free(t->strings);
	free(t->bucket);
	free(t);
}
