// SPDX-License-Identifier: MIT
/* LSD radix sort of u64 keys (see sort.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/sort.h"

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
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 }, pos = 0;
		uint64_t *t;

		/* a byte that every key has alike moves nothing */
		if (!(((all_or ^ all_and) >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xff]++;
		for (size_t b = 0; b < 256; b++) {
			size_t c = count[b];

			count[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
	return 0;
}
