/* SPDX-License-Identifier: MIT */
#ifndef SBX_PERF_CURSOR_H
#define SBX_PERF_CURSOR_H

/*
 * Bounds helpers for the parsers of this layer: a cursor over the bytes of
 * a record or a section, and reads that fail (return -1, NULL) instead of
 * going past its end. With swap, values are byte-swapped in place as they
 * are read, so a record of the other byte order is read once and is native
 * afterwards.
 */

#include <byteswap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	uint8_t *p, *end;
};

/* n bytes from the cursor, or NULL when fewer remain */
static inline void *cur_take(struct cursor *c, size_t n)
{
	void *p = c->p;

	if ((size_t)(c->end - c->p) < n)
		return NULL;
	c->p += n;
	return p;
}

static inline int cur_u64(struct cursor *c, uint64_t *v, bool swap)
{
	uint8_t *p = cur_take(c, 8);

	if (!p)
		return -1;
	memcpy(v, p, 8);
	if (swap) {
		*v = bswap_64(*v);
		memcpy(p, v, 8);
	}
	return 0;
}

static inline int cur_u16(struct cursor *c, uint16_t *v, bool swap)
{
	uint8_t *p = cur_take(c, 2);

	if (!p)
		return -1;
	memcpy(v, p, 2);
	if (swap) {
		*v = bswap_16(*v);
		memcpy(p, v, 2);
	}
	return 0;
}

static inline int cur_u32(struct cursor *c, uint32_t *v, bool swap)
{
	uint8_t *p = cur_take(c, 4);

	if (!p)
		return -1;
	memcpy(v, p, 4);
	if (swap) {
		*v = bswap_32(*v);
		memcpy(p, v, 4);
	}
	return 0;
}

static inline int cur_u32x2(struct cursor *c, uint32_t *a, uint32_t *b, bool swap)
{
	if ((size_t)(c->end - c->p) < 8)
		return -1;
	cur_u32(c, a, swap);
	cur_u32(c, b, swap);
	return 0;
}

/* nr u64s handed out in place: they must be 8-aligned (they are, unless corrupt) */
static inline int cur_u64s(struct cursor *c, size_t nr, const uint64_t **out, bool swap)
{
	uint64_t *p;

	if (nr > (size_t)(c->end - c->p) / 8 || (uintptr_t)c->p % 8)
		return -1;
	p = cur_take(c, nr * 8);
	if (swap)
		for (size_t i = 0; i < nr; i++)
			p[i] = bswap_64(p[i]);
	*out = p;
	return 0;
}

/* A NUL-terminated string that ends before the cursor's end, or NULL; taken whole. */
static inline const char *cur_string(struct cursor *c)
{
	const char *s = (const char *)c->p;
	const void *nul = c->p < c->end ? memchr(c->p, 0, c->end - c->p) : NULL;

	if (!nul)
		return NULL;
	c->p = c->end;
	return s;
}

#endif
