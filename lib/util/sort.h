/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_SORT_H
#define SBX_UTIL_SORT_H

/* Sorting many integers fast: an LSD radix sort of u64 keys. */

#include <stddef.h>
#include <stdint.h>

/*
 * Sort v (n keys) in ascending order, in O(n) passes over memory (digits
 * of at most 11 bits, over only the bits that differ between keys). Returns 0,
 * or -ENOMEM (v is then unchanged) when no room for the n-key buffer.
 */
int sort_u64(uint64_t *v, size_t n);

#endif
