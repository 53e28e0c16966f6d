/* SPDX-License-Identifier: MIT */
#ifndef SBX_UTIL_HEAP_H
#define SBX_UTIL_HEAP_H

/*
 * The heap of a command that reads a big input into memory (profgen,
 * report): tens to hundreds of MB touched for the first time, in buffers
 * that grow and are freed. Each first touch of a 4 KiB page is a page fault,
 * and in a VM a fault costs microseconds (4-5 us measured here: a quarter of
 * sbx profgen's time on a million samples went to them).
 *
 * heap_prepare_bulk() sets malloc up for that once, before the work starts:
 * big blocks come from the heap rather than from a fresh mmap() each
 * (M_MMAP_THRESHOLD), freed memory stays for the next block (M_TRIM_THRESHOLD),
 * one thread arena serves every thread (M_ARENA_MAX), and the first
 * `reserve` bytes of heap are reserved at once and marked for transparent
 * huge pages (MADV_HUGEPAGE): one fault per 2 MiB instead of 512. Nothing is
 * touched here, so the resident size does not grow; where the kernel has no
 * THP, or madvise fails, only the malloc settings apply. Idempotent.
 */

#include <stdbool.h>
#include <stddef.h>

void heap_prepare_bulk(size_t reserve);

/*
 * Whether a command that ends the process frees what it built first. Such
 * a heap is some hundred thousand blocks (a profile's lines, the DWARF
 * tables), and freeing them one by one, each a cache miss, took 8% of sbx
 * profgen's run on a million samples, where the kernel takes the whole heap
 * back at once when the process ends (clang's -disable-free does the same).
 * So the optimized build does not; the sanitizer build does, so that
 * LeakSanitizer still checks that every block has an owner that frees it,
 * and so do builds with -DSBX_FREE_AT_END (for valgrind).
 */
static inline bool heap_free_at_end(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(SBX_FREE_AT_END)
	return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return true;
#else
	return false;
#endif
#else
	return false;
#endif
}

#endif
