/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_SHA1_H
#define SBX_UTIL_SHA1_H

/*
 * SHA-1 (FIPS 180-4), for the GNU build-id notes of the ELF images that
 * jit-inject writes: the build-id perf and sbx find a file by. It is an
 * identity here, not a security measure.
 *
 *	struct sha1 s;
 *	sha1_init(&s); sha1_update(&s, p, n); …; sha1_final(&s, digest);
 */

#include <stddef.h>
#include <stdint.h>

#define SHA1_DIGEST_SIZE 20

struct sha1 {
	uint32_t h[5];
	uint64_t len;		/* bytes hashed so far */
	uint8_t block[64];	/* the partial block */
};

void sha1_init(struct sha1 *s);
/* Hash n more bytes of p (p may be NULL when n is 0). */
void sha1_update(struct sha1 *s, const void *p, size_t n);
/* Finish and write the 20-byte digest; s must be initialized again before reuse. */
void sha1_final(struct sha1 *s, uint8_t digest[SHA1_DIGEST_SIZE]);

#endif
