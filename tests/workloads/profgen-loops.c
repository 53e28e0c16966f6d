// SPDX-License-Identifier: MIT
/*
 * profgen-loops MODE [N]: the subject of sbx profgen's tests, built with
 * clang -O2 -g -fdebug-info-for-profiling (the flags sample PGO wants).
 *
 *  - MODE 1 / 2: loop1 or loop2 alone, N (default 100) million iterations
 *    of a dependent multiply (3 cycles each, any x86-64 core): two
 *    processes of this one PIE run at once have a known split of samples.
 *  - MODE calls: work(N) (default 3000) iterations, each calling leaf()
 *    (not inlined), every third one also tail() (which tail-calls leaf()),
 *    with mix() inlined at two places: loops, calls, an inlined callee and a
 *    tail call for the branch-stack tests.
 *  - MODE inlined: outer(N) (default 3000) iterations of via(), inlined,
 *    which calls leaf() twice on one line: call sites inside an inlined
 *    function. (After main, so that the functions above keep their code.)
 */
#include <stdlib.h>
#include <string.h>

#define CHAIN(n) \
	do { \
		unsigned long x_ = 3; \
		for (unsigned long i_ = 0; i_ < (n); i_++) \
			__asm__ volatile("imul %0, %0" : "+r"(x_)); \
	} while (0)

__attribute__((noinline)) void loop1(unsigned long n)
{
	CHAIN(n);
}

__attribute__((noinline)) void loop2(unsigned long n)
{
	CHAIN(n);
}

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	return (x ^ (x >> 3)) * 0x9e37u;
}

__attribute__((noinline)) unsigned long leaf(unsigned long x)
{
	if (x & 4)
		return x + 1;
	return mix(x);
}

__attribute__((noinline)) unsigned long tail(unsigned long x)
{
	return leaf(x * 3);
}

__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		s += leaf(i);
		if (i % 3 == 0)
			s ^= tail(i);
		s += mix(s);
	}
	return s;
}

unsigned long outer(unsigned long n);

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "1";

	if (!strcmp(mode, "inlined"))
		return (int)(outer(argc > 2 ? strtoul(argv[2], NULL, 0) : 3000) & 1);
	if (!strcmp(mode, "calls"))
		return (int)(work(argc > 2 ? strtoul(argv[2], NULL, 0) : 3000) & 1);
	if (!strcmp(mode, "2"))
		loop2((argc > 2 ? strtoul(argv[2], NULL, 0) : 100) * 1000000UL);
	else
		loop1((argc > 2 ? strtoul(argv[2], NULL, 0) : 100) * 1000000UL);
	return 0;
}

static inline __attribute__((always_inline)) unsigned long via(unsigned long x)
{
	unsigned long y = x ^ (x >> 2);

	return leaf(y) + leaf(y + 1);
}

__attribute__((noinline)) unsigned long outer(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++)
		s += via(i);
	return s;
}
