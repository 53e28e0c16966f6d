/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_HASHMAP_H
#define SBX_UTIL_HASHMAP_H

/*
 * The one hash table of sbx: open addressing with linear probing, holding
 * pointers to the caller's entries. The table stores each entry's hash
 * beside its pointer and knows nothing of keys: a lookup gives the hash of
 * the key and an equality test, which is called only for slots whose full
 * 64-bit hash matches. So growing never rehashes an entry and a miss almost
 * never calls the test.
 *
 *	struct hashmap m = HASHMAP_INIT;
 *	struct row *r = hashmap_get(&m, hash_u64(pid), row_has_pid, &pid);
 *	if (!r && (r = row_new(pid)) && hashmap_put(&m, hash_u64(pid), r))
 *		…out of memory…
 *	for (size_t i = 0; (r = hashmap_next(&m, &i)); )
 *		…every entry, in no particular order…
 *	hashmap_release(&m);	// the table; the entries are the caller's
 *
 * Written here rather than taken from a header-only library (khash, uthash,
 * stb_ds) because sbx needs exactly this much: pointer entries, caller-made
 * hashes, deletion without tombstones, and no macros generating code per type.
 * Not thread-safe; a table is used by one thread at a time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap_slot {
	uint64_t hash;
	void *entry;		/* NULL: the slot is free */
};

struct hashmap {
	struct hashmap_slot *slots;	/* size slots, a power of 2; NULL while empty */
	size_t size, nr;
};

#define HASHMAP_INIT	{ NULL, 0, 0 }

/* Whether entry (an entry of the table) has the key the caller looks for. */
typedef bool (*hashmap_eq_fn)(const void *entry, const void *key);

/*
 * The entry with this hash for which eq(entry, key) holds, or NULL. Inline,
 * so that a lookup on a hot path (a row per sample) gets eq inlined too.
 */
static inline void *hashmap_get(const struct hashmap *m, uint64_t hash, hashmap_eq_fn eq,
				const void *key)
{
	size_t mask = m->size - 1;

	if (!m->size)
		return NULL;
	for (size_t i = hash & mask; m->slots[i].entry; i = (i + 1) & mask)
		if (m->slots[i].hash == hash && eq(m->slots[i].entry, key))
			return m->slots[i].entry;
	return NULL;
}

/*
 * Add entry (not NULL) under hash. The caller has made sure that no entry
 * with its key is there (a second one would be found after the first).
 * Returns 0, or -ENOMEM (then the table is unchanged).
 */
int hashmap_put(struct hashmap *m, uint64_t hash, void *entry);

/* Take out the entry that hashmap_get() would find and return it, or NULL. */
void *hashmap_remove(struct hashmap *m, uint64_t hash, hashmap_eq_fn eq, const void *key);

/* Number of entries. */
static inline size_t hashmap_nr(const struct hashmap *m)
{
	return m->nr;
}

/*
 * Iterate: start with *pos = 0; returns the next entry and advances *pos, or
 * NULL at the end. The table must not change during the iteration.
 */
void *hashmap_next(const struct hashmap *m, size_t *pos);

/* Free the table (not the entries) and make it empty again. */
void hashmap_release(struct hashmap *m);

/* ----------------------------------------------------------- hashes */

/* A 64-bit mix of v whose every bit depends on every bit of v (a finalizer). */
static inline uint64_t hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ULL;
	return v ^ (v >> 33);
}

/* h extended with v (combine field hashes, then finish with hash_u64). */
static inline uint64_t hash_combine(uint64_t h, uint64_t v)
{
	return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

/* The hash of len bytes (multiply-xorshift of 8-byte words, four lanes, then hash_u64). */
uint64_t hash_bytes(const void *p, size_t len);

/* The hash of a NUL-terminated string: hash_bytes() of its characters. */
uint64_t hash_str(const char *s);

#endif
