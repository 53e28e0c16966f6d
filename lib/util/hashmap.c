// SPDX-License-Identifier: MIT
/* Open-addressing hash table of entry pointers (see hashmap.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"

#define MIN_SIZE	8

static void place(struct hashmap_slot *slots, size_t size, uint64_t hash, void *entry)
{
	size_t i = hash & (size - 1);

	while (slots[i].entry)
		i = (i + 1) & (size - 1);
	slots[i].hash = hash;
	slots[i].entry = entry;
}

static int grow(struct hashmap *m)
{
	size_t size = m->size ? 2 * m->size : MIN_SIZE;
	struct hashmap_slot *slots;

	if (size < m->size || size > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(size, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->size; i++)
		if (m->slots[i].entry)
			place(slots, size, m->slots[i].hash, m->slots[i].entry);
	free(m->slots);
	m->slots = slots;
	m->size = size;
	return 0;
}

int hashmap_put(struct hashmap *m, uint64_t hash, void *entry)
{
	/* at most half full: probes stay short */
	if ((m->nr + 1) * 2 > m->size && grow(m))
		return -ENOMEM;
	place(m->slots, m->size, hash, entry);
	m->nr++;
	return 0;
}

void *hashmap_remove(struct hashmap *m, uint64_t hash, hashmap_eq_fn eq, const void *key)
{
	size_t mask = m->size - 1, i, j;
	void *entry;

	if (!m->size)
		return NULL;
	for (i = hash & mask; m->slots[i].entry; i = (i + 1) & mask)
		if (m->slots[i].hash == hash && eq(m->slots[i].entry, key))
			break;
	entry = m->slots[i].entry;
	if (!entry)
		return NULL;
	/*
	 * Backward-shift deletion: move up every later entry of the run that
	 * the hole would cut off from its home slot, so no tombstone is needed.
	 */
	for (j = (i + 1) & mask; m->slots[j].entry; j = (j + 1) & mask) {
		size_t home = m->slots[j].hash & mask;

		/* j's entry may move to i when its home is not in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].entry = NULL;
	m->nr--;
	return entry;
}

void *hashmap_next(const struct hashmap *m, size_t *pos)
{
	while (*pos < m->size) {
		void *e = m->slots[(*pos)++].entry;

		if (e)
			return e;
	}
	return NULL;
}

void hashmap_release(struct hashmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->size = m->nr = 0;
}

/* One lane's step: the word mixed in by a multiply-xorshift. */
static inline uint64_t lane(uint64_t h, const unsigned char *c)
{
	uint64_t w;

	memcpy(&w, c, 8);
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 29);
}

uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h0 = 0x9e3779b97f4a7c15ULL ^ len, h1 = 0xc2b2ae3d27d4eb4fULL,
		 h2 = 0x165667b19e3779f9ULL, h3 = 0x27d4eb2f165667c5ULL, t = 0;

	/*
	 * Four independent lanes of a multiply-xorshift per 8-byte word (branch
	 * stacks are hundreds of bytes: the multiplies overlap), then the tail.
	 * Scalar, each word loaded alone: keys are often written word by word
	 * just before, and a vector load across several such stores stalls (and
	 * SSE has no 64-bit multiply).
	 */
	for (; len >= 32; c += 32, len -= 32) {
		h0 = lane(h0, c);
		h1 = lane(h1, c + 8);
		h2 = lane(h2, c + 16);
		h3 = lane(h3, c + 24);
		__asm__("" : "+r"(h0), "+r"(h1), "+r"(h2), "+r"(h3));	/* no vectors */
	}
	for (; len >= 8; c += 8, len -= 8)
		h0 = lane(h0, c);
	memcpy(&t, c, len);
	return hash_u64(h0 ^ t ^ hash_u64(h1) ^ (hash_u64(h2) * 3) ^ (hash_u64(h3) * 5));
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}
