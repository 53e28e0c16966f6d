// SPDX-License-Identifier: MIT
/* malloc set up for big inputs (see heap.h). */
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/heap.h"

#define HUGE_PAGE	(2UL << 20)

void heap_prepare_bulk(size_t reserve)
{
	static bool done;
	uintptr_t start, end;
	void *p;

	if (done)
		return;
	done = true;
	/*
	 * every block from the heap, none from a mmap() of its own (glibc's
	 * threshold, 128 KiB growing to 32 MiB, would give each big buffer fresh
	 * pages); freed memory stays for the next (no trimming); one arena
	 */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_ARENA_MAX, 1);
	/* the heap grows by what is asked for plus M_TOP_PAD: ask once for all of it */
	mallopt(M_TOP_PAD, (int)(reserve < (1UL << 30) ? reserve : 1UL << 30));
	start = (uintptr_t)sbrk(0);
	p = malloc(1 << 20);	/* more than the heap's first free block */
	__asm__ volatile("" : : "r"(p) : "memory");	/* a malloc the compiler keeps */
	end = (uintptr_t)sbrk(0);
	free(p);
	mallopt(M_TOP_PAD, 16 << 20);
	if (start == (uintptr_t)-1 || end <= start)
		return;
	start = (start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	end &= ~(HUGE_PAGE - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}
