/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_RANGES_H
#define SBX_UTIL_RANGES_H

/*
 * The one sorted-range lookup: in an array sorted by a u64 start address
 * (maps of an address space, symbols of a table, functions of a binary),
 * the last element that starts at or before an address. Whether the address
 * is inside that element (its end or size) is the caller's test.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * base holds nr elements of elem_size bytes, sorted by the uint64_t at
 * key_offset in each. Returns the index of the last element whose key is
 * <= key, or nr when every key is above it (or nr is 0).
 */
static inline size_t ranges_find_last_le(const void *base, size_t nr, size_t elem_size,
					 size_t key_offset, uint64_t key)
{
	const unsigned char *b;
	size_t lo = 0, hi = nr;

	if (!nr)
		return 0;	/* base may be NULL then */
	b = (const unsigned char *)base + key_offset;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * elem_size, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : nr;
}

/* ranges_find_last_le() over an array of structs with a uint64_t member. */
#define RANGES_FIND_LAST_LE(array, nr, member, key) \
	ranges_find_last_le((array), (nr), sizeof(*(array)), \
			    offsetof(__typeof__(*(array)), member), (key))

#endif
