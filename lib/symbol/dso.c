// SPDX-License-Identifier: MIT
/* DSOs by path, build-id cache lookup, lazy symbols (see dso.h). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/buildid.h"
#include "symbol/buildid-cache.h"
#include "symbol/dso.h"
#include "util/error.h"
#include "util/escape.h"
#include "util/input.h"
#include "util/hashmap.h"

struct dso_cache {
	struct dso **dsos;	/* in creation order */
	size_t nr, cap;
	struct hashmap by_path;	/* struct dso, by path */
	char *debug_dir, *debuginfod_dir, *kallsyms;
	const char *system_debug_dir;	/* separate debug files: /usr/lib/debug */
	struct symtab *kallsyms_tab;	/* shared by the kernel and its modules */
	bool kallsyms_tried;
};

static bool dso_has_path(const void *entry, const void *path)
{
	return !strcmp(((const struct dso *)entry)->path, path);
}

struct dso_cache *dso_cache_new(void)
{
	struct dso_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->system_debug_dir = "/usr/lib/debug";
	if (dso_cache_set_paths(c, NULL, NULL, NULL)) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

static void dso_free(struct dso *d)
{
	free(d->path);
	free(d->short_buf);
	free(d->shown_buf);
	free(d->file);
	/* kernel DSOs share the cache's kallsyms table */
	if (d->kind != DSO_KERNEL)
		symtab_free(d->symtab);
	free(d->loads);
	free(d);
}

void dso_cache_free(struct dso_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		dso_free(c->dsos[i]);
	free(c->dsos);
	hashmap_release(&c->by_path);
	free(c->debug_dir);
	free(c->debuginfod_dir);
	free(c->kallsyms);
	symtab_free(c->kallsyms_tab);
	free(c);
}

int dso_cache_set_paths(struct dso_cache *c, const char *debug_dir, const char *debuginfod_dir,
			const char *kallsyms)
{
	const char *home = getenv("HOME");
	char *a = NULL, *b = NULL, *k;

	if (!home)
		home = "/";
	if (debug_dir)
		a = strdup(debug_dir);
	else if (!(a = buildid_cache_dir()))	/* ~/.debug */
		a = strdup("/.debug");		/* no HOME */
	if (debuginfod_dir)
		b = strdup(debuginfod_dir);
	else if (getenv("DEBUGINFOD_CACHE_PATH"))
		b = strdup(getenv("DEBUGINFOD_CACHE_PATH"));
	else if (asprintf(&b, "%s/.cache/debuginfod_client", home) < 0)
		b = NULL;
	k = strdup(kallsyms ? kallsyms : "/proc/kallsyms");
	if (!a || !b || !k) {
		free(a);
		free(b);
		free(k);
		return sbx_error(-ENOMEM, "out of memory");
	}
	free(c->debug_dir);
	free(c->debuginfod_dir);
	free(c->kallsyms);
	c->debug_dir = a;
	c->debuginfod_dir = b;
	c->kallsyms = k;
	return 0;
}

/*
 * The name reports show: the base name, the path of "[kernel.kallsyms]"
 * names, and perf's "[JIT] tid N" for /tmp/perf-N.map, the DSO of a
 * process's anonymous code whether or not that file exists (its
 * dso__set_basename()); that one is made in d->short_buf.
 */
static const char *short_name(struct dso *d)
{
	const char *path = d->shown_path, *slash = strrchr(path, '/');
	char *end;
	long tid;

	if (!strncmp(path, "/tmp/perf-", 10)) {
		tid = strtol(path + 10, &end, 10);
		if (end != path + 10 && !strcmp(end, ".map") &&
		    asprintf(&d->short_buf, "[JIT] tid %ld", tid) > 0)
			return d->short_buf;
		d->short_buf = NULL;
	}
	if (path[0] == '[' || !slash)
		return path;
	return slash + 1;
}

struct dso *dso_cache_get(struct dso_cache *c, const char *path, enum dso_kind kind)
{
	uint64_t hash = hash_str(path);
	struct dso *d = hashmap_get(&c->by_path, hash, dso_has_path, path);

	if (d)
		return d;
	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct dso **v = realloc(c->dsos, cap * sizeof(*v));

		if (!v) {
			errno = ENOMEM;
			return NULL;
		}
		c->dsos = v;
		c->cap = cap;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->path = strdup(path)) || hashmap_put(&c->by_path, hash, d)) {
		if (d)
			free(d->path);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	/* a recording names files: a name must not forge a line of what is printed */
	d->shown_path = d->path;
	if (escape_needed(path, strlen(path))) {
		d->shown_buf = strdup(escape_str(path));
		if (!d->shown_buf) {
			dso_free(d);
			errno = ENOMEM;
			return NULL;
		}
		d->shown_path = d->shown_buf;
	}
	d->short_name = short_name(d);
	d->kind = kind;
	d->cache = c;
	d->seq = c->nr;
	c->dsos[c->nr++] = d;
	return d;
}

size_t dso_cache_nr(const struct dso_cache *c)
{
	return c->nr;
}

struct dso *dso_cache_at(const struct dso_cache *c, size_t i)
{
	return i < c->nr ? c->dsos[i] : NULL;
}

void dso_set_build_id(struct dso *d, const uint8_t *id, size_t size)
{
	if (size > DSO_BUILD_ID_MAX)
		size = DSO_BUILD_ID_MAX;
	memcpy(d->build_id, id, size);
	d->build_id_size = size;
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The path fmt makes, when it names a regular file (a new string), else NULL. */
__attribute__((format(printf, 1, 2)))
static char *file_at(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if (is_file(p))
		return p;
	free(p);
	return NULL;
}

/* The file to read for an ELF DSO: build-id caches first, then the path. */
static char *find_file(struct dso *d)
{
	struct dso_cache *c = d->cache;
	char hex[2 * DSO_BUILD_ID_MAX + 1], *p = NULL;

	if (d->build_id_size) {
		buildid_hex(d->build_id, d->build_id_size, hex);
		if ((p = file_at("%s/.build-id/%.2s/%s/elf", c->debug_dir, hex, hex + 2)) ||
		    (p = file_at("%s/.build-id/%.2s/%s", c->debug_dir, hex, hex + 2)) ||
		    (p = file_at("%s/%s/executable", c->debuginfod_dir, hex)) ||
		    (p = file_at("%s/%s/debuginfo", c->debuginfod_dir, hex)))
			return p;
	}
	if (d->path[0] == '/' && is_file(d->path)) {
		/* a file whose build-id differs from the recorded one is not it */
		if (d->build_id_size) {
			uint8_t id[DSO_BUILD_ID_MAX];
			size_t size = 0;
			int err = buildid_read(d->path, id, sizeof(id), &size);

			/* none now, or not ELF (an empty or half-linked file): not the recorded build */
			if (err == -ENOENT || err == -EINVAL) {
				sbx_error_clear();
				size = 0;
			}
			if ((!err || err == -ENOENT || err == -EINVAL) &&
			    !buildid_equal(id, size, d->build_id, d->build_id_size)) {
				d->path_differs = true;
				memcpy(d->path_build_id, id, size);
				d->path_build_id_size = size;
				return NULL;
			}
		}
		return strdup(d->path);
	}
	return NULL;
}

static void load_segments(struct dso *d)
{
	int fd = input_open(d->file, 0, 0, NULL);
	Elf *elf;
	size_t phnum;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &phnum) && phnum) {
		d->loads = calloc(phnum, sizeof(*d->loads));
		for (size_t i = 0; d->loads && i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
				d->loads[d->nr_loads++] = (struct dso_load){
					ph.p_offset, ph.p_vaddr, ph.p_filesz };
		}
	}
	elf_end(elf);
	close(fd);
}

char *dso_debug_file(struct dso *d)
{
	struct dso_cache *c = d->cache;
	char hex[2 * DSO_BUILD_ID_MAX + 1], *p;
	uint8_t id[DSO_BUILD_ID_MAX];
	size_t size = d->build_id_size;
	const char *file;

	if (size)
		memcpy(id, d->build_id, size);
	else if (!(file = dso_file(d)) || buildid_read(file, id, sizeof(id), &size))
		return NULL;
	if (!size)
		return NULL;
	buildid_hex(id, size, hex);
	/* perf's cache (buildid-cache adds "debug"), debuginfod's, the system's */
	if ((p = file_at("%s/.build-id/%.2s/%s/debug", c->debug_dir, hex, hex + 2)) ||
	    (p = file_at("%s/%s/debuginfo", c->debuginfod_dir, hex)) ||
	    (p = file_at("%s/.build-id/%.2s/%s.debug", c->system_debug_dir, hex, hex + 2)))
		return p;
	return NULL;
}

/*
 * Separate debug info (Debian's -dbgsym packages): /usr/lib/debug/.build-id/
 * xx/yyyy.debug has the full .symtab of a stripped library.
 */
static struct symtab *symtab_from_debug_file(struct dso *d)
{
	uint8_t id[DSO_BUILD_ID_MAX];
	size_t size = d->build_id_size;
	char hex[2 * DSO_BUILD_ID_MAX + 1], *p;
	struct symtab *t = NULL;

	if (size)
		memcpy(id, d->build_id, size);
	else if (buildid_read(d->file, id, sizeof(id), &size))
		return NULL;
	buildid_hex(id, size, hex);
	if (asprintf(&p, "%s/.build-id/%.2s/%s.debug", d->cache->system_debug_dir, hex,
		     hex + 2) < 0)
		return NULL;
	if (is_file(p))
		t = symtab_from_elf_plt(p, d->file);
	free(p);
	if (t && !t->nr) {
		symtab_free(t);
		t = NULL;
	}
	return t;
}

/*
 * [vdso]: the kernel's image is the same in every process of one kernel,
 * so this process's own copy stands for the recorded one (perf does the
 * same); right when the report runs on the machine that recorded.
 */
static void load_vdso(struct dso *d)
{
	const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	size_t len;

	if (!img || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	/* the image ends with its section headers */
	len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (len > 1 << 20)
		return;
	d->symtab = symtab_from_elf_mem(img, len);
	d->loads = calloc(eh->e_phnum ? eh->e_phnum : 1, sizeof(*d->loads));
	for (size_t i = 0; d->loads && i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(img + eh->e_phoff +
							      i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD)
			d->loads[d->nr_loads++] = (struct dso_load){
				ph->p_offset, ph->p_vaddr, ph->p_filesz };
	}
}

static void dso_load(struct dso *d)
{
	struct dso_cache *c = d->cache;

	if (d->loaded)
		return;
	d->loaded = true;
	switch (d->kind) {
	case DSO_ELF:
		if (!sbx_elf_ready())
			return;
		if (!strcmp(d->path, "[vdso]")) {
			load_vdso(d);
			break;
		}
		d->file = find_file(d);
		if (!d->file)
			return;
		load_segments(d);
		d->symtab = symtab_from_debug_file(d);
		if (!d->symtab)
			d->symtab = symtab_from_elf(d->file);
		break;
	case DSO_KERNEL:
		if (!c->kallsyms_tried) {
			c->kallsyms_tried = true;
			c->kallsyms_tab = symtab_from_kallsyms(c->kallsyms);
		}
		d->symtab = c->kallsyms_tab;
		break;
	case DSO_PERF_MAP:
		d->symtab = symtab_from_perf_map(d->path);
		break;
	case DSO_NONE:
		break;
	}
}

const char *dso_file(struct dso *d)
{
	dso_load(d);
	return d->file;
}

uint64_t dso_offset_to_vaddr(struct dso *d, uint64_t offset)
{
	dso_load(d);
	for (size_t i = 0; i < d->nr_loads; i++) {
		const struct dso_load *l = &d->loads[i];

		if (offset >= l->offset && offset < l->offset + l->filesz)
			return offset - l->offset + l->vaddr;
	}
	return offset;
}

const struct symbol *dso_find_symbol(struct dso *d, uint64_t addr)
{
	dso_load(d);
	return symtab_find(d->symtab, addr);
}

const struct symbol *dso_nearest_symbol(struct dso *d, uint64_t addr)
{
	dso_load(d);
	return symtab_nearest(d->symtab, addr);
}

const char *dso_symbol_name(struct dso *d, const struct symbol *sym, bool demangle)
{
	if (!demangle || d->kind != DSO_ELF)
		return sym->name;
	return symtab_demangled_name(d->symtab, sym);
}
