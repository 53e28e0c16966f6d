/* SPDX-License-Identifier: MIT */
#ifndef SBX_SYMBOL_BUILDID_H
#define SBX_SYMBOL_BUILDID_H

/*
 * Build-ids: the GNU build-id note (NT_GNU_BUILD_ID) of ELF files, in
 * section headers or PT_NOTE segments, and of the running kernel.
 */

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes of a build-id: a sha1, what every linker writes. */
#define BUILDID_MAX	20

/*
 * Initialise libelf (elf_version) once for every ELF reader of this layer.
 * False when libelf refuses this program's ELF version.
 */
bool sbx_elf_ready(void);

/* The first section of elf named name, its header in *sh; NULL when there is none. */
Elf_Scn *sbx_elf_section(Elf *elf, const char *name, GElf_Shdr *sh);

/*
 * Read the build-id note (NT_GNU_BUILD_ID) of the ELF file at path into
 * id (room for max bytes; 20 is enough for every linker's sha1) and set
 * *size. Returns 0, -ENOENT when the file has no build-id note, or another
 * negative errno with a message (cannot open, not ELF).
 */
int buildid_read(const char *path, uint8_t *id, size_t max, size_t *size);

/* Same, for an ELF image in memory. */
int buildid_read_mem(const void *buf, size_t len, uint8_t *id, size_t max, size_t *size);

/*
 * Equal build-ids; perf before 5.12 wrote every id as 20 bytes, so a shorter
 * one (md5: 16, xxHash: 8) may come padded with zeros. An empty id equals none.
 */
bool buildid_equal(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* Write the build-id as lowercase hex into out (room for 2*size+1). Returns out. */
char *buildid_hex(const uint8_t *id, size_t size, char *out);

/*
 * The running kernel's build-id, from the notes it exports in
 * /sys/kernel/notes. Returns 0, -ENOENT when there is none, or another
 * negative errno (unreadable).
 */
int buildid_kernel(uint8_t *id, size_t max, size_t *size);

/*
 * The separate debug file of a build-id (Debian's -dbgsym packages, or
 * perf's cache): $HOME/.debug/.build-id/xx/yyyy.debug, else
 * /usr/lib/debug/.build-id/xx/yyyy.debug. A new string (the caller frees
 * it), or NULL when there is none (or size is 0, or memory ran out).
 */
char *buildid_debug_file(const uint8_t *id, size_t size);

#endif
