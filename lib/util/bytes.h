/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_BYTES_H
#define SBX_UTIL_BYTES_H

/*
 * A growing byte buffer for the writers of binary formats (extbinary sample
 * profiles, ELF images and their DWARF). Numbers go in little-endian, as
 * LLVM's formats and the x86-64 and AArch64 ELF files sbx writes have them.
 * A failed allocation sets failed and makes every later put a no-op, so a
 * writer checks once, at the end.
 *
 *	struct bytes b = { 0 };
 *	bytes_put_u32(&b, 7); bytes_put_uleb(&b, n); …
 *	if (b.failed) …out of memory…
 *	…use b.p, b.len…; free(b.p);
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bytes {
	uint8_t *p;		/* owned: free() it */
	size_t len, cap;
	bool failed;		/* an allocation failed; the content is incomplete */
};

/* Append n bytes of p (p may be NULL when n is 0). */
void bytes_put(struct bytes *b, const void *p, size_t n);
/* Append n zero bytes. */
void bytes_put_zeros(struct bytes *b, size_t n);
void bytes_put_u8(struct bytes *b, uint8_t v);
void bytes_put_u16(struct bytes *b, uint16_t v);
void bytes_put_u32(struct bytes *b, uint32_t v);
void bytes_put_u64(struct bytes *b, uint64_t v);
/* A NUL-terminated string, with its NUL. */
void bytes_put_str(struct bytes *b, const char *s);
/* ULEB128 and SLEB128 (DWARF §7.6). */
void bytes_put_uleb(struct bytes *b, uint64_t v);
void bytes_put_sleb(struct bytes *b, int64_t v);
/* Overwrite the u32 at offset at (written before), little-endian. */
void bytes_patch_u32(struct bytes *b, size_t at, uint32_t v);

/* The value of the hex digit c (either case), or -1: for the readers of hex text. */
int bytes_hex_digit(int c);

#endif
