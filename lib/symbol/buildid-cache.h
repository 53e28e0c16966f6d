/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_BUILDID_CACHE_H
#define SBX_SYMBOL_BUILDID_CACHE_H

/*
 * Writing perf's build-id cache, so that a recording can be read after its
 * binaries were rebuilt or removed, by sbx and by perf alike. The layout is
 * perf's (tools/perf/util/build-id.c, as perf 6.1 writes it):
 *
 *	DIR/PATH/HEX/elf		a copy of the file
 *	DIR/.build-id/HE/X…		a link to ../../PATH/HEX
 *
 * where DIR is the cache root, PATH the file's absolute path without its
 * leading '/', HEX its build-id in lowercase hex and HE/X… the same split
 * after two digits. dso.h reads DIR/.build-id/HE/X…/elf.
 */

#include <stddef.h>
#include <stdint.h>

/* The largest file copied into the cache (a bigger one is left out, said). */
#define BUILDID_CACHE_MAX_FILE	(1ULL << 30)

/*
 * The cache root perf uses by default: $HOME/.debug (perf's buildid.dir
 * setting, in ~/.perfconfig, is not read). A new string; NULL where HOME
 * is unset or empty (no cache) or memory ran out.
 */
char *buildid_cache_dir(void);

/*
 * Add the ELF file at path (absolute, as a recording names it), whose
 * build-id is id, to the cache under dir (made when missing). The file is
 * read only when it is reached without following a symbolic link at any
 * component (openat2's RESOLVE_NO_SYMLINKS; at its last one where the
 * kernel has no openat2), is a regular file (a FIFO is never opened) of at
 * most BUILDID_CACHE_MAX_FILE bytes. dir itself may be a link (the user's,
 * to a bigger disk, say); the folders under it are made and entered without
 * following links. The copy is written unnamed (O_TMPFILE, else under a
 * random name of ours), its build-id checked on the copy, which no one else
 * can change, and only then named elf, with the file's permission bits
 * (set-id bits cleared). A file refused leaves no folder of its build.
 * Returns 1 when added, 0 when the cache had it already, or a negative
 * errno with a message (-ESTALE: the file now has another build-id; -ELOOP:
 * reached through a link; -EINVAL: a path of no cacheable shape, such as
 * "/x/../y" or "[vdso]", or not a regular file).
 */
int buildid_cache_add(const char *dir, const char *path, const uint8_t *id, size_t size);

#endif
