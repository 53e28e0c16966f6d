/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_SYMTAB_H
#define SBX_SYMBOL_SYMTAB_H

/*
 * Symbol tables of ELF files (.symtab, else .dynsym, through libelf),
 * /proc/kallsyms and /tmp/perf-PID.map files. A symtab is sorted by
 * address; lookups go through a bucket index, else a binary search.
 */

#include <stddef.h>
#include <stdint.h>

struct symbol {
	uint64_t start;		/* address (ELF st_value; kernel or map address) */
	uint64_t size;		/* 0 when unknown: then it ends at the next symbol */
	const char *name;	/* as in the file (C++ names mangled); owned by the symtab */
	/*
	 * The source file that binutils gives a symbol without DWARF: the
	 * STT_FILE before a local one in .symtab (its elf_find_function());
	 * NULL for the others. Owned by the symtab.
	 */
	const char *file;
};

struct symtab {
	struct symbol *syms;	/* sorted by start */
	size_t nr;
	char *strings;		/* the names */
	size_t strings_size;
	/* lookup index: bucket[(addr - base) >> shift] = first symbol to look at */
	uint32_t *bucket;
	size_t nr_buckets;
	unsigned shift;
	uint64_t base;
	/* symtab_demangled_name()'s cache, by symbol index; NULL until first used */
	char **demangled;
};

/*
 * Load the function symbols (and labels in code) of the ELF file at path
 * (.symtab, or .dynsym when it is stripped) into a new symtab (free with
 * symtab_free()). Returns NULL with errno and a message on failure.
 */
struct symtab *symtab_from_elf(const char *path);

/*
 * Symbols of the ELF file at path, plus names for the PLT entries of the
 * file at plt_path ("target@plt", as perf shows them; plt_path may be path,
 * or the stripped file whose separate debug file is path, or NULL for none).
 * symtab_from_elf(path) is symtab_from_elf_plt(path, path).
 */
struct symtab *symtab_from_elf_plt(const char *path, const char *plt_path);

/* Symbols of an ELF image in memory (len bytes at buf, read only during the call). */
struct symtab *symtab_from_elf_mem(const void *buf, size_t len);

/* the largest perf map read (node's for a big application: tens of MB) */
#define PERF_MAP_MAX_SIZE (1ull << 30)

/*
 * Load "ADDR SIZE NAME" lines of a /tmp/perf-PID.map file. NULL with errno
 * and a message when it cannot be read: also when it is a symbolic link,
 * not a regular file (a FIFO), or larger than PERF_MAP_MAX_SIZE (see
 * util/input.h). Malformed lines are skipped.
 */
struct symtab *symtab_from_perf_map(const char *path);

/*
 * Load text symbols (t/T/w/W) of a kallsyms file (/proc/kallsyms). NULL
 * with errno when unreadable or when every address is 0 (kptr_restrict).
 */
struct symtab *symtab_from_kallsyms(const char *path);

/*
 * The last symbol at or below addr, whatever its size: the function that
 * addr2line names for addr from the symbols alone (it takes the nearest
 * one before), and its file. NULL when there is none, or when it is one of
 * the PLT's made-up "@plt" names (addr2line has no symbol there).
 */
const struct symbol *symtab_nearest(const struct symtab *t, uint64_t addr);

/* The symbol that contains addr, or NULL. */
const struct symbol *symtab_find(const struct symtab *t, uint64_t addr);

/*
 * The name of sym (a symbol of t) demangled by demangle_symbol(name, 0),
 * computed on first use and kept in t; sym->name itself when it is not
 * mangled, cannot be demangled, or memory ran out. Owned by t.
 */
const char *symtab_demangled_name(struct symtab *t, const struct symbol *sym);

void symtab_free(struct symtab *t);

#endif
