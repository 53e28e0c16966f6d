// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "util/bytes.h"

/* Room for n more bytes: 0, or -1 (then b->failed is set). */
static int reserve(struct bytes *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->failed)
		return -1;
	if (b->len + n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void bytes_put(struct bytes *b, const void *p, size_t n)
{
	if (!n || reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void bytes_put_zeros(struct bytes *b, size_t n)
{
	if (!n || reserve(b, n))
		return;
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static void put_le(struct bytes *b, uint64_t v, size_t n)
{
	uint8_t le[8];

	for (size_t i = 0; i < n; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	bytes_put(b, le, n);
}

void bytes_put_u8(struct bytes *b, uint8_t v)
{
	bytes_put(b, &v, 1);
}

void bytes_put_u16(struct bytes *b, uint16_t v)
{
	put_le(b, v, 2);
}

void bytes_put_u32(struct bytes *b, uint32_t v)
{
	put_le(b, v, 4);
}

void bytes_put_u64(struct bytes *b, uint64_t v)
{
	put_le(b, v, 8);
}

void bytes_put_str(struct bytes *b, const char *s)
{
	bytes_put(b, s, strlen(s) + 1);
}

void bytes_put_uleb(struct bytes *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n] = v & 0x7f;
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	bytes_put(b, buf, n);
}

void bytes_put_sleb(struct bytes *b, int64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	for (;;) {
		uint8_t c = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			buf[n++] = c;
			break;
		}
		buf[n++] = c | 0x80;
	}
	bytes_put(b, buf, n);
}

void bytes_patch_u32(struct bytes *b, size_t at, uint32_t v)
{
	if (b->failed || at + 4 > b->len)
		return;
	for (int i = 0; i < 4; i++)
		b->p[at + i] = (uint8_t)(v >> (8 * i));
}

int bytes_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
