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

#include <stddef.h>

void heap_prepare_bulk(size_t reserve);

#endif
