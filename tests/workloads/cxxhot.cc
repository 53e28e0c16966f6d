// SPDX-License-Identifier: MIT
/*
 * cxxhot [MILLIONS]: C++ functions with known shares of the CPU time, for
 * demangling: shapes::Square::area() const runs 2*N/3 million loop
 * iterations, the two overloads shapes::spin(unsigned long, int) and
 * shapes::spin(unsigned long, long) and the template function
 * shapes::twice<long>(unsigned long) N/3 million each (default N = 100).
 * Every iteration is one multiply that depends on the previous one (3
 * cycles of latency on any x86-64 core), so the shares hold whatever the
 * loops' alignment: a profile has area ≈ 2/5 and ≈ 1/5 for each of the
 * others; perf report shows the overloads as two rows named "shapes::spin".
 */
#include <cstdlib>

#define NOINLINE __attribute__((noinline, noipa))

/* n iterations of a dependent multiply: 3 cycles each */
#define CHAIN(n) \
	do { \
		unsigned long x_ = 3; \
		for (unsigned long i_ = 0; i_ < (n); i_++) \
			__asm__ volatile("imul %0, %0" : "+r"(x_)); \
	} while (0)

namespace shapes {

struct Square {
	unsigned long side;
	NOINLINE unsigned long area(unsigned long n) const;
};

unsigned long Square::area(unsigned long n) const
{
	CHAIN(n);
	return side * side;
}

NOINLINE void spin(unsigned long n, int)
{
	CHAIN(n);
}

NOINLINE void spin(unsigned long n, long)
{
	CHAIN(n);
}

template <typename T> NOINLINE T twice(unsigned long n)
{
	CHAIN(n);
	return T(2);
}

}	// namespace shapes

int main(int argc, char **argv)
{
	unsigned long n = (argc > 1 ? strtoul(argv[1], NULL, 0) : 100) * 1000000UL / 3;
	shapes::Square sq = { 3 };
	unsigned long sink = 0;

	/* interleaved, so that a short profile still sees every function */
	for (int round = 0; round < 10; round++) {
		sink += sq.area(2 * n / 10);
		shapes::spin(n / 10, 1);
		shapes::spin(n / 10, 1L);
		sink += shapes::twice<long>(n / 10);
	}
	return sink == 0;
}
