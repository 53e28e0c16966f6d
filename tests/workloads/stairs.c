// SPDX-License-Identifier: MIT
/*
 * stairs [MILLIONS]: spins at the bottom of call chains of changing depth:
 * main calls step(d) for d = 1, 2, … 8 in turn, step recurses d times and
 * then calls spin(), which runs a dependent multiply (3 cycles an
 * iteration on any x86-64 core). So every depth gets an eighth of the CPU
 * time, and the samples of `perf record -g` differ in size from one to the
 * next (records of every length, at every offset of a ring buffer).
 * MILLIONS (default 300) million iterations in all, spread over 100 rounds.
 */
#include <stdlib.h>

__attribute__((noinline, noipa)) void spin(unsigned long n)
{
	unsigned long x = 3;

	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("imul %0, %0" : "+r"(x));
}

__attribute__((noinline, noipa)) void step(int depth, unsigned long n)
{
	if (depth > 1)
		step(depth - 1, n);
	else
		spin(n);
	/* not a tail call: every level keeps its frame */
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned long n = (argc > 1 ? strtoul(argv[1], NULL, 0) : 300) * 1000000UL;

	for (int round = 0; round < 100; round++)
		for (int depth = 1; depth <= 8; depth++)
			step(depth, n / 800);
	return 0;
}
