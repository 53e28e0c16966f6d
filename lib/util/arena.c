// SPDX-License-Identifier: MIT
/* Blocks that live and die together (see arena.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)	((void)(p), (void)(n))
#define UNPOISON(p, n)	((void)(p), (void)(n))
#endif

#define ALIGN		16
#define CHUNK		(256u << 10)	/* a chunk's usual size */

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;			/* of data[] */
	_Alignas(ALIGN) char data[];
};

static size_t round_up(size_t n)
{
	return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

void *arena_zalloc(struct arena *a, size_t size)
{
	struct arena_chunk *c;
	char *p;

	/* before the rounding, which a size near SIZE_MAX would wrap to 0 */
	if (size > SIZE_MAX - sizeof(*c) - CHUNK) {
		errno = ENOMEM;
		return NULL;
	}
	size = round_up(size ? size : 1);
	if (size <= (size_t)(a->end - a->next)) {
		p = a->next;
		a->next += size;
		return p;
	}
	/*
	 * calloc: a fresh chunk from the top of the heap needs no clearing, and
	 * the rest of the chunk is zero for the blocks that follow. A block of a
	 * quarter chunk or more gets a chunk of its own, behind the newest, so
	 * that what is left of the newest is not thrown away.
	 */
	if (size >= CHUNK / 4) {
		c = calloc(1, sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		if (a->chunks) {
			c->next = a->chunks->next;
			a->chunks->next = c;
		} else {
			a->chunks = c;
			a->next = a->end = c->data + size;
		}
		return c->data;
	}
	c = calloc(1, sizeof(*c) + CHUNK);
	if (!c)
		return NULL;
	c->size = CHUNK;
	c->next = a->chunks;
	a->chunks = c;
	a->next = c->data + size;
	a->end = c->data + CHUNK;
	return c->data;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_zalloc(a, n);

	return p ? memcpy(p, s, n) : NULL;
}

void arena_forget(void *p, size_t size)
{
	POISON(p, size);
}

void arena_release(struct arena *a)
{
	struct arena_chunk *c = a->chunks;

	while (c) {
		struct arena_chunk *next = c->next;

		UNPOISON(c->data, c->size);	/* free() must not find it poisoned */
		free(c);
		c = next;
	}
	a->chunks = NULL;
	a->next = a->end = NULL;
}
