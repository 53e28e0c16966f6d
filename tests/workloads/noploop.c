// SPDX-License-Identifier: MIT
/*
 * noploop [MILLIONS]: spins in two named functions, hot_a twice as long as
 * hot_b (2*N and N million loop iterations; default N = 300), so that a
 * CPU-time profile has a known answer: hot_a ≈ 2/3, hot_b ≈ 1/3.
 */
#include <stdlib.h>

__attribute__((noinline, noipa)) void hot_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("nop; nop" ::: "memory");
}

__attribute__((noinline, noipa)) void hot_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("nop; nop; nop" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned long n = (argc > 1 ? strtoul(argv[1], NULL, 0) : 300) * 1000000UL;

	/* interleaved, so that a short profile still sees both */
	for (int round = 0; round < 10; round++) {
		hot_a(2 * n / 10);
		hot_b(n / 10);
	}
	return 0;
}
