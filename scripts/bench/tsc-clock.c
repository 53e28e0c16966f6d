// SPDX-License-Identifier: MIT
/*
 * How steady this machine's clock is for sbx run's TSC counter: a probe
 * that times, in the pattern of sbx run's measuring child, a chain of
 * one-cycle adds (the calibration) and chains of 3-cycle imuls and of L1
 * loads (the snippets), for a number of seconds, and reports
 *   - the clock states seen (TSC ticks per add) and how often they change;
 *   - per window of 30 repeats (one sbx run attempt), the imul and load
 *     latencies that sbx's method gives, and their spread over groups of
 *     10 consecutive windows (as of 10 invocations of sbx run);
 *   - the same for the windows whose calibration was steady.
 * Build and run with scripts/bench/tsc-clock.sh. x86-64 only.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define CAL_ADDS 20000L		/* as sbx: K adds, 5 calls per reading */
#define CAL_CALLS 5
#define SNIP_K 5000L		/* K copies of a 2-instruction snippet, 10 calls */
#define SNIP_CALLS 10
#define WINDOW 30		/* repeats per sbx attempt (--repeat default) */
#define GROUP 10		/* invocations per spread */

enum { C1, C2, I2, I1, L2, L1, NCOL };

static inline uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t tsc_end(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtscp; lfence" : "=a"(lo), "=d"(hi) : : "rcx", "memory");
	return (uint64_t)hi << 32 | lo;
}

/*
 * A function: lfence (as sbx's set-up, so that one call's chain does not
 * overlap the next); push rbx; movabs $init, %rax; nops to 64 bytes;
 * copies of insn; pop rbx; ret.
 */
static void *function(const uint8_t *insn, size_t len, long copies, uint64_t init)
{
	size_t size = 64 + (size_t)copies * len + 2;
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *e = p;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	*e++ = 0x0f;
	*e++ = 0xae;
	*e++ = 0xe8;
	*e++ = 0x53;
	*e++ = 0x48;
	*e++ = 0xb8;
	memcpy(e, &init, 8);
	e += 8;
	while ((uintptr_t)e & 63)
		*e++ = 0x90;
	for (long i = 0; i < copies; i++, e += len)
		memcpy(e, insn, len);
	*e++ = 0x5b;
	*e++ = 0xc3;
	if (mprotect(p, size, PROT_READ | PROT_EXEC) < 0) {
		perror("mprotect");
		exit(1);
	}
	return p;
}

static uint64_t reading(void *fn, int calls)
{
	uint64_t t0 = tsc_begin();

	for (int i = 0; i < calls; i++)
		((void (*)(void))fn)();
	return tsc_end() - t0;
}

/* the clock changed by more than 1% between repeats i - 1 and i */
static int stepped(const double *q, int i)
{
	return fabs(q[i] - q[i - 1]) > 0.01 * fmin(q[i], q[i - 1]);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* min over a window of column c */
static double wmin(uint64_t (*r)[NCOL], int n, int c)
{
	double m = INFINITY;

	for (int i = 0; i < n; i++)
		m = fmin(m, (double)r[i][c]);
	return m;
}

/* spreads (max - min) / median, in %, of consecutive groups of GROUP values */
static int spreads(const double *v, int n, double *out)
{
	int g = 0;

	for (int i = 0; i + GROUP <= n; i += GROUP, g++) {
		double t[GROUP];

		memcpy(t, v + i, sizeof(t));
		qsort(t, GROUP, sizeof(*t), cmp);
		out[g] = 100 * (t[GROUP - 1] - t[0]) / ((t[GROUP / 2 - 1] + t[GROUP / 2]) / 2);
	}
	return g;
}

static void report(const char *what, const double *imul, const double *load, int n)
{
	double *s = calloc((size_t)n / GROUP + 1, sizeof(*s));
	const double *v[2] = { imul, load };
	const char *name[2] = { "imul chain", "load chain" };

	for (int k = 0; k < 2; k++) {
		int g = spreads(v[k], n, s), ok = 0;

		for (int i = 0; i < g; i++)
			ok += s[i] <= 1.0;
		if (!g) {
			printf("| %s | %s | %d | - | - | - | - |\n", what, name[k], n);
			continue;
		}
		qsort(s, (size_t)g, sizeof(*s), cmp);
		printf("| %s | %s | %d | %.2f%% | %.2f%% | %.2f%% | %d of %d |\n", what, name[k], n,
		       s[g / 2], s[g * 9 / 10], s[g - 1], ok, g);
	}
	free(s);
}

int main(int argc, char **argv)
{
	static const uint8_t add[] = { 0x48, 0x01, 0xc0 };		/* add %rax,%rax */
	static const uint8_t imul[] = { 0x48, 0x0f, 0xaf, 0xc0 };	/* imul %rax,%rax */
	static const uint8_t load[] = { 0x48, 0x8b, 0x00 };		/* mov (%rax),%rax */
	double seconds = argc > 1 ? atof(argv[1]) : 20;
	uint64_t *chain = aligned_alloc(4096, 4096);
	void *c1, *c2, *i1, *i2, *l1, *l2;
	uint64_t (*r)[NCOL];
	int n = 0, cap = 1 << 16, nw, steps = 0;
	double *q, *wi, *wl, *si, *sl, *qs;
	int nsteady = 0, nstepped = 0, nuneven = 0;
	struct timespec t0, t;

	for (int i = 0; i < 512; i++)
		chain[i] = (uint64_t)chain;
	c1 = function(add, 3, CAL_ADDS, 1);
	c2 = function(add, 3, 2 * CAL_ADDS, 1);
	i1 = function(imul, 4, 2 * SNIP_K, 3);
	i2 = function(imul, 4, 4 * SNIP_K, 3);
	l1 = function(load, 3, 2 * SNIP_K, (uint64_t)chain);
	l2 = function(load, 3, 4 * SNIP_K, (uint64_t)chain);
	r = malloc(sizeof(*r) * (size_t)cap);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (n == cap)
			r = realloc(r, sizeof(*r) * (size_t)(cap *= 2));
		r[n][C1] = reading(c1, CAL_CALLS);
		r[n][C2] = reading(c2, CAL_CALLS);
		r[n][I2] = reading(i2, SNIP_CALLS);
		r[n][I1] = reading(i1, SNIP_CALLS);
		r[n][L2] = reading(l2, SNIP_CALLS);
		r[n][L1] = reading(l1, SNIP_CALLS);
		n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);

	/* clock states: each repeat's faster calibration reading, per add */
	q = malloc(sizeof(*q) * (size_t)n);
	qs = malloc(sizeof(*qs) * (size_t)n);
	for (int i = 0; i < n; i++)
		q[i] = fmin((double)r[i][C1], r[i][C2] / 2.0) / (CAL_ADDS * CAL_CALLS);
	for (int i = 1; i < n; i++)
		steps += stepped(q, i);
	nw = n / WINDOW;
	if (nw < 1) {
		fprintf(stderr, "tsc-clock: %d repeats: too few for a window of %d; run longer\n",
			n, WINDOW);
		return 1;
	}
	memcpy(qs, q, sizeof(*q) * (size_t)n);
	qsort(qs, (size_t)n, sizeof(*qs), cmp);
	printf("# TSC clock probe: %d repeats in %.0f s\n\n", n, seconds);
	printf("## Clock (TSC ticks per one-cycle add; 1%% bins holding 2%% of the repeats "
	       "or more; a reading taken while the clock changed falls between two "
	       "states)\n\n| ticks per cycle | share of repeats |\n|---|---|\n");
	for (int i = 0; i < n;) {
		int j = i;

		while (j < n && qs[j] <= qs[i] * 1.01)
			j++;
		if (j - i >= n / 50)
			printf("| %.4f | %.1f%% |\n", qs[(i + j) / 2], 100.0 * (j - i) / n);
		i = j;
	}
	printf("\nConsecutive repeats differed by more than 1%% %d times (%.0f per second).\n\n",
	       steps, steps / seconds);

	/* windows of WINDOW repeats: sbx's method (series minima, ratio of the minima) */
	wi = malloc(sizeof(*wi) * (size_t)nw);
	wl = malloc(sizeof(*wl) * (size_t)nw);
	si = malloc(sizeof(*si) * (size_t)nw);
	sl = malloc(sizeof(*sl) * (size_t)nw);
	for (int w = 0; w < nw; w++) {
		uint64_t (*x)[NCOL] = r + w * WINDOW;
		double ratio = (wmin(x, WINDOW, C2) - wmin(x, WINDOW, C1)) / (CAL_ADDS * CAL_CALLS);
		double dev[WINDOW], mid, unsteady;
		int wsteps = 0;

		if (!(ratio > 0)) {
			fprintf(stderr, "tsc-clock: the TSC did not advance\n");
			return 1;
		}
		wi[w] = (wmin(x, WINDOW, I2) - wmin(x, WINDOW, I1)) / ratio /
			(2.0 * SNIP_K * SNIP_CALLS);
		wl[w] = (wmin(x, WINDOW, L2) - wmin(x, WINDOW, L1)) / ratio /
			(2.0 * SNIP_K * SNIP_CALLS);
		/*
		 * steady: no clock step, and the repeats' K-against-2K calibration
		 * (K over half of 2K) as even as on a quiet machine: its median
		 * absolute deviation at most 0.03%
		 */
		for (int i = 0; i < WINDOW; i++) {
			dev[i] = x[i][C2] / (2.0 * x[i][C1]) - 1;
			wsteps += i && stepped(q, w * WINDOW + i);
		}
		mid = median(dev, WINDOW);
		for (int i = 0; i < WINDOW; i++)
			dev[i] = fabs(dev[i] - mid);
		unsteady = median(dev, WINDOW);
		nstepped += wsteps > 0;
		nuneven += unsteady > 3e-4;
		if (!wsteps && unsteady <= 3e-4) {
			si[nsteady] = wi[w];
			sl[nsteady++] = wl[w];
		}
	}
	{
		double mi[2];
		double *tmp = malloc(sizeof(*tmp) * (size_t)nw);

		memcpy(tmp, wi, sizeof(*tmp) * (size_t)nw);
		mi[0] = median(tmp, nw);
		memcpy(tmp, wl, sizeof(*tmp) * (size_t)nw);
		mi[1] = median(tmp, nw);
		free(tmp);
		printf("## sbx run's method, window by window (%d repeats each)\n\n"
		       "Median over all windows: imul chain %.4f, load chain %.4f cycles per "
		       "instruction. Of %d windows, %d (%.0f%%) had a clock step, %d (%.0f%%) an "
		       "uneven calibration (the median absolute deviation of K over half of "
		       "2K above 0.03%%), and %d (%.0f%%) neither: steady.\n\n",
		       WINDOW, mi[0], mi[1], nw, nstepped, 100.0 * nstepped / nw, nuneven,
		       100.0 * nuneven / nw, nsteady, 100.0 * nsteady / nw);
	}
	printf("Spread: (max - min) / median of %d consecutive windows, as of %d "
	       "invocations of sbx run (this probe has one process, and no warm-up).\n\n"
	       "| windows | snippet | n | spread, median | p90 | max | groups within "
	       "1%% |\n|---|---|---|---|---|---|---|\n", GROUP, GROUP);
	report("all", wi, wl, nw);
	report("steady only", si, sl, nsteady);
	return 0;
}
