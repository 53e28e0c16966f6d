// SPDX-License-Identifier: MIT
/* LSD radix sort of u64 keys (see sort.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

/* The widest digit of a pass */
#define RADIX_BITS 11

int sort_u64(uint64_t *v, size_t n)
{
	uint64_t *tmp, *src = v, *dst, all_or = 0, all_and = ~0ULL;

	if (n < 2)
		return 0;
	if (n < 256) {
		/* insertion sort: no buffer for a handful */
		for (size_t i = 1; i < n; i++) {
			uint64_t k = v[i];
			size_t j = i;

			for (; j > 0 && v[j - 1] > k; j--)
				v[j] = v[j - 1];
			v[j] = k;
		}
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (size_t i = 0; i < n; i++) {
		all_or |= v[i];
		all_and &= v[i];
	}
	/*
	 * Only the bits that differ between keys move anything: as few passes
	 * of at most 11 bits as cover them (2048 buckets stay in L1), so the
	 * offsets of a program of a few MiB take two passes, not three.
	 */
	if (all_or != all_and) {
		uint64_t diff = all_or ^ all_and;
		unsigned lo = (unsigned)__builtin_ctzll(diff), hi = 64 - (unsigned)__builtin_clzll(diff);
		unsigned passes = (hi - lo + RADIX_BITS - 1) / RADIX_BITS;
		unsigned bits = (hi - lo + passes - 1) / passes;
		uint64_t mask = (1ULL << bits) - 1;
		size_t *count = malloc(((size_t)1 << bits) * sizeof(*count));

		if (!count) {
			free(tmp);
			return -ENOMEM;
		}
		for (unsigned shift = lo; shift < hi; shift += bits) {
			size_t pos = 0;
			uint64_t *t;

			memset(count, 0, ((size_t)1 << bits) * sizeof(*count));
			for (size_t i = 0; i < n; i++)
				count[(src[i] >> shift) & mask]++;
			for (size_t b = 0; b <= mask; b++) {
				size_t c = count[b];

				count[b] = pos;
				pos += c;
			}
			for (size_t i = 0; i < n; i++)
				dst[count[(src[i] >> shift) & mask]++] = src[i];
			t = src;
			src = dst;
			dst = t;
		}
		free(count);
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}
