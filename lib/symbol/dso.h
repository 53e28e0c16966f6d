/* SPDX-License-Identifier: MIT */
#ifndef SBX_DSO_H
#define SBX_DSO_H

/*
 * DSOs: the files (and the kernel) that samples fall in, with their
 * build-ids, and their symbols loaded on first use. A DSO with a build-id
 * is read from the build-id cache (~/.debug/.build-id/xx/yyyy…/elf, then
 * the debuginfod client cache ~/.cache/debuginfod_client/ID/executable)
 * before its recorded path, so that a file rebuilt since the recording is
 * not used by mistake.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbol/symtab.h"

#define DSO_BUILD_ID_MAX	20	/* sha1, what every linker writes */

enum dso_kind {
	DSO_ELF,	/* a file mapped by a process; symbols by file vaddr */
	DSO_KERNEL,	/* the kernel or a module; symbols by address (kallsyms) */
	DSO_PERF_MAP,	/* /tmp/perf-PID.map for anonymous code; symbols by address */
	DSO_NONE,	/* [vdso], //anon without a map file, …: no symbols */
};

struct dso_load {		/* a PT_LOAD segment: file offset ↔ vaddr */
	uint64_t offset, vaddr, filesz;
};

struct dso {
	char *path;			/* as recorded ("/usr/bin/x", "[kernel.kallsyms]") */
	const char *short_name;		/* basename of path, or path for "[...]" names;
					   "[JIT] tid N" for /tmp/perf-N.map, as perf; control
					   characters escaped (util/escape) */
	char *short_buf;		/* short_name when made, not in path */
	const char *shown_path;		/* path as text shows it: path, or its escaped copy */
	char *shown_buf;		/* that copy, when made */
	enum dso_kind kind;
	uint8_t build_id[DSO_BUILD_ID_MAX];
	size_t build_id_size;		/* 0 when unknown */
	bool loaded;			/* symbols and segments were looked for */
	char *file;			/* the file read (cache hit or path), NULL if none */
	bool path_differs;		/* the file at path has another build-id than the
					   recorded one (rebuilt since): not read */
	uint8_t path_build_id[DSO_BUILD_ID_MAX];
	size_t path_build_id_size;	/* that file's build-id (0: it has none) */
	struct symtab *symtab;		/* NULL when none could be read */
	struct dso_load *loads;
	size_t nr_loads;
	struct dso_cache *cache;
	size_t seq;			/* its place in the cache's creation order */
};

struct dso_cache;

/* A new cache of DSOs by path (NULL with errno). Free with dso_cache_free(). */
struct dso_cache *dso_cache_new(void);
void dso_cache_free(struct dso_cache *c);

/*
 * Where to look: the build-id cache root (default $HOME/.debug), the
 * debuginfod cache (default $DEBUGINFOD_CACHE_PATH or
 * $HOME/.cache/debuginfod_client) and the kallsyms file (default
 * /proc/kallsyms). NULL restores the default; strings are copied.
 */
int dso_cache_set_paths(struct dso_cache *c, const char *debug_dir, const char *debuginfod_dir,
			const char *kallsyms);

/* The DSO for path, made on first use (owned by the cache), or NULL with errno. */
struct dso *dso_cache_get(struct dso_cache *c, const char *path, enum dso_kind kind);

/* All DSOs of the cache, in the order they were made. */
size_t dso_cache_nr(const struct dso_cache *c);
struct dso *dso_cache_at(const struct dso_cache *c, size_t i);

/*
 * The file read for d (loading it on first use): a build-id cache entry, or
 * the recorded path when its build-id matches (or is not known); NULL when
 * none was found (path_differs then says whether a file of another
 * build-id is at the path).
 */
const char *dso_file(struct dso *d);

/*
 * The separate debug file of d (its DWARF), found by build-id: perf's cache
 * (DEBUG_DIR/.build-id/xx/yyyy/debug), debuginfod's (DIR/HEX/debuginfo),
 * /usr/lib/debug/.build-id/xx/yyyy.debug. A new string (the caller frees
 * it), or NULL when there is none.
 */
char *dso_debug_file(struct dso *d);

/* Record the build-id of a DSO (from MMAP2 or the BUILD_ID feature). */
void dso_set_build_id(struct dso *d, const uint8_t *id, size_t size);

/*
 * The vaddr of a file offset in the DSO (through its PT_LOAD segments;
 * loads the DSO on first use). Offsets outside every segment map 1:1.
 */
uint64_t dso_offset_to_vaddr(struct dso *d, uint64_t offset);

/*
 * The symbol at addr: a file vaddr for DSO_ELF, an absolute address for
 * DSO_KERNEL and DSO_PERF_MAP. Loads symbols on first use; NULL when
 * there is none.
 */
const struct symbol *dso_find_symbol(struct dso *d, uint64_t addr);

/* The last symbol of d at or below addr whatever its size (symtab_nearest()), or NULL. */
const struct symbol *dso_nearest_symbol(struct dso *d, uint64_t addr);

/*
 * The name to show for sym, a symbol of d (from dso_find_symbol()): with
 * demangle, C++ and Rust names of ELF files demangled as perf shows them
 * by default (symtab_demangled_name()); kernel and perf-map names, like
 * perf's, stay as they are. Owned by d.
 */
const char *dso_symbol_name(struct dso *d, const struct symbol *sym, bool demangle);

#endif
