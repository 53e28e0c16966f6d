/*
 * A call tree for --call-graph dwarf (tests/40-record.bats builds it -O2 -g
 * -fomit-frame-pointer): main -> top -> mid_a | mid_b -> leaf, where the
 * work is sum_squares, inlined into leaf.
 */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

static inline __attribute__((always_inline)) long sum_squares(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i * i;
	return s;
}

__attribute__((noinline)) long leaf(long n)
{
	return sum_squares(n) + 1;
}

__attribute__((noinline)) long mid_a(long n)
{
	long r = leaf(n);

	sink += r;
	return r + 1;
}

__attribute__((noinline)) long mid_b(long n)
{
	long r = leaf(2 * n);

	sink += r;
	return r + 2;
}

__attribute__((noinline)) long top(long n, int k)
{
	return k ? mid_a(n) : mid_b(n);
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;

	for (long i = 0; i < ms * 40; i++)
		sink += top(20000, i & 1);
	printf("%ld\n", (long)sink & 1);
	return 0;
}
