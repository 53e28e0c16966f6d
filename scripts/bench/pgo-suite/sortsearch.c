// SPDX-License-Identifier: MIT
/*
 * sortsearch [ROUNDS]: sorting and searching loops for scripts/bench/profgen-pgo.sh.
 * Each round fills arrays from a fixed xorshift sequence, sorts many small
 * arrays by insertion sort, sorts a large one by quicksort (median of three,
 * insertion sort below a cutoff), removes its duplicates, then looks keys up
 * in it by binary search and counts the keys of ranges. Every run does the
 * same work. Prints a checksum of the results.
 *
 * The hot functions are not static: clang keeps each of them, and inlines
 * it only where it judges that worth it, a judgement a profile changes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG (1 << 17)	/* the quicksorted array */
#define SMALL 24	/* the longest of the insertion-sorted ones */
#define CUTOFF 12	/* quicksort leaves runs this short to insertion sort */

static uint64_t state = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* n values below mask + 1: a small mask makes duplicates. */
void fill(int32_t *a, int n, uint32_t mask)
{
	for (int i = 0; i < n; i++)
		a[i] = (int32_t)(next() & mask);
}

void insertion_sort(int32_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		int32_t v = a[i];
		int j = i - 1;

		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static void swap(int32_t *a, int i, int j)
{
	int32_t t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/* Orders a[lo], a[mid], a[hi] and returns the middle one. */
static int32_t median3(int32_t *a, int lo, int hi)
{
	int mid = lo + (hi - lo) / 2;

	if (a[mid] < a[lo])
		swap(a, mid, lo);
	if (a[hi] < a[lo])
		swap(a, hi, lo);
	if (a[hi] < a[mid])
		swap(a, hi, mid);
	return a[mid];
}

/* Hoare's partition of a[lo..hi] around the median of three: returns its split point. */
int partition(int32_t *a, int lo, int hi)
{
	int32_t pivot = median3(a, lo, hi);
	int i = lo - 1, j = hi + 1;

	for (;;) {
		do
			i++;
		while (a[i] < pivot);
		do
			j--;
		while (a[j] > pivot);
		if (i >= j)
			return j;
		swap(a, i, j);
	}
}

void quicksort(int32_t *a, int lo, int hi)
{
	while (hi - lo >= CUTOFF) {
		int p = partition(a, lo, hi);

		/* recurse into the smaller side, loop on the larger */
		if (p - lo < hi - p) {
			quicksort(a, lo, p);
			lo = p + 1;
		} else {
			quicksort(a, p + 1, hi);
			hi = p;
		}
	}
	insertion_sort(a + lo, hi - lo + 1);
}

static int sorted(const int32_t *a, int n)
{
	for (int i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 0;
	return 1;
}

/* Removes the duplicates of sorted a: returns the count left. */
int dedup(int32_t *a, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (k == 0 || a[k - 1] != a[i])
			a[k++] = a[i];
	return k;
}

/* The index of the first element of sorted a not below key (n if none). */
int lower_bound(const int32_t *a, int n, int32_t key)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 + the index of key in sorted a, or 0 when it is not there. */
int find(const int32_t *a, int n, int32_t key)
{
	int i = lower_bound(a, n, key);

	return i < n && a[i] == key ? i + 1 : 0;
}

/* How many of sorted a lie in [lo, hi). */
int count_range(const int32_t *a, int n, int32_t lo, int32_t hi)
{
	return lower_bound(a, n, hi) - lower_bound(a, n, lo);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

uint64_t round_small(void)
{
	int32_t a[SMALL];
	uint64_t h = 0;

	for (int k = 0; k < 20000; k++) {
		int n = 2 + (int)(next() % (SMALL - 1));

		fill(a, n, k & 1 ? 0xff : 0xffff);
		insertion_sort(a, n);
		h = mix(h, (uint64_t)a[0] << 32 | (uint32_t)a[n - 1]);
		h = mix(h, (uint64_t)a[n / 2]);
	}
	return h;
}

uint64_t round_big(int32_t *a)
{
	uint64_t h = 0;
	int n;

	fill(a, BIG, 0xfffff);
	quicksort(a, 0, BIG - 1);
	if (!sorted(a, BIG)) {
		fprintf(stderr, "sortsearch: quicksort left the array unsorted\n");
		exit(1);
	}
	n = dedup(a, BIG);
	h = mix(h, (uint64_t)n);
	for (int k = 0; k < 200000; k++) {
		int32_t key = (int32_t)(next() & 0xfffff);

		h = mix(h, (uint64_t)find(a, n, key));
		if ((k & 7) == 0)
			h = mix(h, (uint64_t)count_range(a, n, key, key + (int32_t)(k & 0xfff)));
	}
	return h;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	int32_t *a = malloc(BIG * sizeof(*a));
	uint64_t h = 0;

	if (!a)
		return 1;
	for (int r = 0; r < rounds; r++) {
		h = mix(h, round_small());
		h = mix(h, round_big(a));
	}
	printf("%016llx\n", (unsigned long long)h);
	free(a);
	return 0;
}
