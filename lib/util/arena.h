/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_ARENA_H
#define SBX_UTIL_ARENA_H

/*
 * An arena: many small blocks that live and die together, such as the
 * functions, lines and names of a sample profile (a hundred thousand of
 * them from a million samples). Blocks are cut from big chunks, so one
 * costs a pointer bump instead of a malloc() and a free(), and releasing
 * the arena frees its chunks, a few calls in all. A block cannot be freed
 * on its own: its memory stays the arena's until arena_release().
 */

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *chunks;	/* the newest first */
	char *next, *end;		/* what is left of the newest */
};

#define ARENA_INIT	{ NULL, NULL, NULL }

/* size bytes, zeroed, aligned to 16; NULL (errno ENOMEM) when memory ran out. */
void *arena_zalloc(struct arena *a, size_t size);

/* A copy of s in the arena; NULL when memory ran out. */
char *arena_strdup(struct arena *a, const char *s);

/*
 * The caller is done with the block at p of size bytes. Its memory stays
 * the arena's; under AddressSanitizer any later use of it is reported, as
 * a use after free() would be.
 */
void arena_forget(void *p, size_t size);

/* Free every block at once; a is empty again. */
void arena_release(struct arena *a);

#endif
