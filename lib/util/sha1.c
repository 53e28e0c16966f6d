// SPDX-License-Identifier: MIT
#include <string.h>

#include "util/sha1.h"

static uint32_t rol(uint32_t v, int n)
{
	return v << n | v >> (32 - n);
}

static void sha1_block(struct sha1 *s, const uint8_t *b)
{
	uint32_t w[80], a = s->h[0], bb = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		       (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	for (int i = 0; i < 80; i++) {
		uint32_t f, k, t;

		if (i < 20) {
			f = (bb & c) | (~bb & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = bb ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (bb & c) | (bb & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = bb ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(bb, 30);
		bb = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += bb;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

void sha1_init(struct sha1 *s)
{
	static const uint32_t h0[5] = {
		0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
}

void sha1_update(struct sha1 *s, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t used = s->len % 64;

	if (!n)
		return;
	s->len += n;
	if (used) {
		size_t take = 64 - used < n ? 64 - used : n;

		memcpy(s->block + used, b, take);
		b += take;
		n -= take;
		if (used + take < 64)
			return;
		sha1_block(s, s->block);
	}
	for (; n >= 64; b += 64, n -= 64)
		sha1_block(s, b);
	if (n)
		memcpy(s->block, b, n);
}

void sha1_final(struct sha1 *s, uint8_t digest[SHA1_DIGEST_SIZE])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72] = { 0x80 };
	size_t used = s->len % 64, npad = (used < 56 ? 56 : 120) - used;

	for (int i = 0; i < 8; i++)
		pad[npad + i] = bits >> (56 - 8 * i);
	sha1_update(s, pad, npad + 8);
	for (int i = 0; i < 5; i++) {
		digest[4 * i] = s->h[i] >> 24;
		digest[4 * i + 1] = s->h[i] >> 16;
		digest[4 * i + 2] = s->h[i] >> 8;
		digest[4 * i + 3] = s->h[i];
	}
}
