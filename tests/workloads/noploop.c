// SPDX-License-Identifier: MIT
/*
 * noploop [MILLIONS]: spins in two named functions, hot_a twice as long as
 * hot_b, so that a CPU-time profile has a known answer on any x86-64 core:
 * hot_a ≈ 2/3, hot_b ≈ 1/3. Each loop iteration is one multiply that
 * depends on the previous one (3 cycles of latency on every x86-64 core of
 * the last fifteen years), so an iteration costs the same in both functions
 * whatever the loops' alignment or the front end. hot_a runs 2*N/3 million
 * iterations and hot_b N/3 million (N = MILLIONS, default 300): about 3*N
 * million cycles in all, 0.3 s for N = 300 at 3 GHz.
 */
#include <stdlib.h>

__attribute__((noinline, noipa)) void hot_a(unsigned long n)
{
	unsigned long x = 3;

	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("imul %0, %0" : "+r"(x));
}

__attribute__((noinline, noipa)) void hot_b(unsigned long n)
{
	unsigned long x = 3;

	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("imul %0, %0" : "+r"(x));
}

int main(int argc, char **argv)
{
	unsigned long n = (argc > 1 ? strtoul(argv[1], NULL, 0) : 300) * 1000000UL;

	/* interleaved, so that a short profile still sees both */
	for (int round = 0; round < 10; round++) {
		hot_a(2 * n / 30);
		hot_b(n / 30);
	}
	return 0;
}
