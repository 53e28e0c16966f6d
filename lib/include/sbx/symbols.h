/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOLS_H
#define SBX_SYMBOLS_H

/*
 * Symbol tables of ELF files (.symtab, else .dynsym, through libelf),
 * /proc/kallsyms and /tmp/perf-PID.map files, and ELF build-ids.
 * A symtab is sorted by address; lookups are binary searches.
 */

#include <stddef.h>
#include <stdint.h>

struct symbol {
	uint64_t start;		/* address (ELF st_value; kernel or map address) */
	uint64_t size;		/* 0 when unknown: then it ends at the next symbol */
	const char *name;	/* as in the file (C++ names mangled); owned by the symtab */
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

/* symbols_demangle() flags */
#define SYMBOLS_DEMANGLE_PARAMS	1u	/* the full signature, as perf -v shows it */

/*
 * The demangled form of a mangled symbol name, as perf shows it by default:
 * C++ (Itanium ABI, "_Z…", through libstdc++'s __cxa_demangle) without the
 * parameters, function qualifiers, return type or clone suffix
 * ("_ZNK2ns1S1fEi.cold" -> "ns::S::f"), or the full signature with
 * SYMBOLS_DEMANGLE_PARAMS ("ns::S::f(int) const [clone .cold]"); Rust legacy
 * names ("_ZN4core3fmt5write17h0123456789abcdefE" -> "core::fmt::write")
 * without their hash. "TARGET@plt" gives the demangled target with "@plt".
 * Returns a new string (the caller frees it), or NULL with errno EINVAL when
 * name is not a mangled name or cannot be demangled, ENOMEM when memory ran
 * out. Rust v0 ("_R…") names are not demangled.
 */
char *symbols_demangle(const char *name, unsigned flags);

/*
 * Read the build-id note (NT_GNU_BUILD_ID) of the ELF file at path into
 * id (room for max bytes; 20 is enough for every linker's sha1) and set
 * *size. Returns 0, -ENOENT when the file has no build-id note, or another
 * negative errno with a message (cannot open, not ELF).
 */
int symbols_read_build_id(const char *path, uint8_t *id, size_t max, size_t *size);

/* Same, for an ELF image in memory. */
int symbols_build_id_mem(const void *buf, size_t len, uint8_t *id, size_t max, size_t *size);

/* Write the build-id as lowercase hex into out (room for 2*size+1). Returns out. */
char *symbols_build_id_hex(const uint8_t *id, size_t size, char *out);

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

/*
 * Load "ADDR SIZE NAME" lines of a /tmp/perf-PID.map file. NULL with errno
 * when it cannot be read; malformed lines are skipped.
 */
struct symtab *symtab_from_perf_map(const char *path);

/*
 * Load text symbols (t/T/w/W) of a kallsyms file (/proc/kallsyms). NULL
 * with errno when unreadable or when every address is 0 (kptr_restrict).
 */
struct symtab *symtab_from_kallsyms(const char *path);

/* The symbol that contains addr, or NULL. */
const struct symbol *symtab_find(const struct symtab *t, uint64_t addr);

/*
 * The name of sym (a symbol of t) demangled by symbols_demangle(name, 0),
 * computed on first use and kept in t; sym->name itself when it is not
 * mangled, cannot be demangled, or memory ran out. Owned by t.
 */
const char *symtab_demangled_name(struct symtab *t, const struct symbol *sym);

void symtab_free(struct symtab *t);

#endif
