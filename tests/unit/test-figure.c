// SPDX-License-Identifier: MIT
/*
 * From readings to figures (lib/measure/figure.c), on readings that sbx
 * run's child took on an AMD EPYC (Zen 5) guest, saved in
 * tests/data/measure/: attempts whose figure is off by 1.7-2% with every
 * spread of their repeats small, and a steady attempt of the same run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "measure/figure.h"

#define MAX_REPEATS 64

struct attempt {
	uint64_t raw[MAX_REPEATS * N_SLOTS];
	struct readings rd;
	struct measure_result r;
	double scratch[MAX_REPEATS];
};

/* Read a saved attempt (its TSC counter only) and work out its figure; false if unreadable */
static bool load(const char *name, struct attempt *a)
{
	char path[256], line[512];
	unsigned long ninsn = 0, adds = 0, muls = 0;
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "tests/data/measure/%s", name);
	f = fopen(path, "r");
	if (!f)
		return false;
	memset(a, 0, sizeof(*a));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[N_SLOTS];

		if (line[0] == '#')
			continue;
		if (sscanf(line, "ninsn %lu", &ninsn) == 1 ||
		    sscanf(line, "calibration %lu adds %lu multiplies", &adds, &muls) == 2)
			continue;
		if (n == MAX_REPEATS || sscanf(line, "%llu %llu %llu %llu %llu %llu", &v[SLOT_CAL_1],
					       &v[SLOT_CAL_2], &v[SLOT_MUL_1], &v[SLOT_MUL_2],
					       &v[SLOT_SNIP_2], &v[SLOT_SNIP_1]) != N_SLOTS) {
			fclose(f);
			return false;
		}
		for (int s = 0; s < N_SLOTS; s++)
			a->raw[n * N_SLOTS + s] = v[s];
		n++;
	}
	fclose(f);
	a->rd = (struct readings){ .raw = a->raw, .n = n, .stride = 1, .tsc = true,
				   .how = MEASURE_AGG_MIN, .ninsn = ninsn, .adds = adds,
				   .muls = muls };
	if (n < 4 || !ninsn || !adds || !muls || figure_calibrate(&a->rd, &a->r) < 0)
		return false;
	a->r.values[0].value = figure_difference(&a->rd, 0, a->r.tsc_per_cycle, a->scratch) /
			       (double)ninsn;
	a->r.values[0].uncertainty = figure_uncertainty(&a->rd, &a->r, a->r.values[0].value,
							a->scratch);
	a->r.unsteady = a->r.values[0].uncertainty > MEASURE_STEADY;
	return true;
}

static bool holds(const struct measure_result *r, double truth)
{
	double v = r->values[0].value, u = r->values[0].uncertainty;

	return v * (1 - u) <= truth && truth <= v * (1 + u);
}

/*
 * The adds ran slower than the multiplies: every repeat's calibration
 * agrees with the others (ratio 0.595, as steady ones read), and the
 * multiplies disagree with the adds by 2%: the figure's interval reaches
 * the truth, and it is flagged.
 */
static void test_calibrations_disagree(void)
{
	static struct attempt a;

	CHECK(load("imul-cross.txt", &a));
	CHECK(fabs(a.r.tsc_per_cycle - 0.5949) < 0.0005);
	/* the figure itself is 2% low */
	CHECK(fabs(a.r.values[0].value - 2.94) < 0.005);
	CHECK(a.r.cross < -0.02 && a.r.cross > -0.025);
	CHECK(holds(&a.r, 3.0));
	CHECK(a.r.unsteady);
	/* what the spreads of the repeats alone would say: not enough */
	a.r.cross = 0;
	CHECK(!holds(&(struct measure_result){ .values[0] = { .value = a.r.values[0].value,
		.uncertainty = figure_uncertainty(&a.rd, &a.r, a.r.values[0].value, a.scratch) } },
		     3.0));
}

/*
 * Another process on the other CPU: the attempt's ratio is 2.8% above the
 * run's lowest, its repeats agree, its calibrations disagree by 0.6%, and
 * it reads 4.07. Against the run's reference its interval reaches 4 and it
 * is unsteady (measured again); against its own ratio, or a reference
 * above it, nothing changes.
 */
static void test_slow_core_against_reference(void)
{
	static struct attempt a, steady;
	struct measure_result t;

	CHECK(load("load-slow-core.txt", &a));
	CHECK(load("load-steady.txt", &steady));
	CHECK(fabs(a.r.values[0].value - 4.07) < 0.005);
	CHECK(!holds(&a.r, 4.0));
	CHECK(!a.r.unsteady);
	t = figure_against_reference(a.r, steady.r.tsc_per_cycle);
	CHECK(holds(&t, 4.0));
	CHECK(t.unsteady);
	CHECK(fabs(t.values[0].value - a.r.values[0].value) < 1e-12);
	t = figure_against_reference(a.r, a.r.tsc_per_cycle);
	CHECK(t.values[0].uncertainty == a.r.values[0].uncertainty && !t.unsteady);
	/* the steady attempt of the same run: right, tight, not flagged */
	CHECK(fabs(steady.r.values[0].value - 4.0) < 0.004);
	CHECK(steady.r.values[0].uncertainty <= 0.005);
	CHECK(holds(&steady.r, 4.0));
	CHECK(!steady.r.unsteady);
	CHECK(fabs(steady.r.cross) < 0.002);
	t = figure_against_reference(steady.r, steady.r.tsc_per_cycle);
	CHECK(!t.unsteady);
	/*
	 * a clock that ran 5% faster earlier in the run (a sweep saw its ratio
	 * step between 0.554 and 0.601, every figure right): the calibrations
	 * agree, so the calibration corrected it and nothing is widened
	 */
	t = figure_against_reference(steady.r, steady.r.tsc_per_cycle / 1.05);
	CHECK(t.values[0].uncertainty == steady.r.values[0].uncertainty && !t.unsteady);
	/* an unknown uncertainty (too few repeats) stays unknown, on a shared core too */
	t = steady.r;
	t.cross = 0.01;
	CHECK(figure_against_reference(t, 0.5).values[0].uncertainty > 0.1);
	t.values[0].uncertainty = NAN;
	CHECK(isnan(figure_against_reference(t, 0.5).values[0].uncertainty));
}

/*
 * The two attempts of one snippet in that run: the kept one's interval
 * reaches every other steady attempt's figure. Judged against the run's
 * reference first, as measure_checked() does, the slow-core attempt is
 * unsteady and leaves the steady one alone; kept itself, it is widened to
 * reach the steady one's 4.0014.
 */
static void test_attempts_agree(void)
{
	static struct attempt slow, steady;
	struct measure_result att[2], t;

	CHECK(load("load-slow-core.txt", &slow));
	CHECK(load("load-steady.txt", &steady));
	att[0] = slow.r;
	att[1] = steady.r;
	t = figure_against_attempts(slow.r, att, 2);
	CHECK(t.unsteady && holds(&t, steady.r.values[0].value + 1e-9));
	CHECK(fabs(t.values[0].uncertainty -
		   fabs(steady.r.values[0].value - slow.r.values[0].value) / slow.r.values[0].value) <
	      1e-12);
	att[0] = figure_against_reference(slow.r, steady.r.tsc_per_cycle);
	t = figure_against_attempts(steady.r, att, 2);
	CHECK(!t.unsteady && t.values[0].uncertainty == steady.r.values[0].uncertainty);
	/* a failed attempt, or one with no figure, says nothing */
	att[1].error[0] = 'x';
	t = figure_against_attempts(slow.r, att + 1, 1);
	CHECK(t.values[0].uncertainty == slow.r.values[0].uncertainty);
	att[1] = steady.r;
	att[1].values[0].value = -0.5;
	t = figure_against_attempts(slow.r, att + 1, 1);
	CHECK(t.values[0].uncertainty == slow.r.values[0].uncertainty);
}

/* Multiplies that read no whole number of cycles: the figure cannot be trusted */
static void test_no_sane_multiplies(void)
{
	static struct attempt a;

	CHECK(load("load-steady.txt", &a));
	for (unsigned i = 0; i < a.rd.n; i++)
		a.raw[i * N_SLOTS + SLOT_MUL_2] = a.raw[i * N_SLOTS + SLOT_MUL_1];
	CHECK(figure_calibrate(&a.rd, &a.r) == 0);
	CHECK(isnan(a.r.cross));
	CHECK(isinf(figure_uncertainty(&a.rd, &a.r, a.r.values[0].value, a.scratch)));
	/* the adds not advancing: no calibration at all */
	for (unsigned i = 0; i < a.rd.n; i++)
		a.raw[i * N_SLOTS + SLOT_CAL_2] = a.raw[i * N_SLOTS + SLOT_CAL_1];
	CHECK(figure_calibrate(&a.rd, &a.r) < 0);
}

static const struct unit_test tests[] = {
	TEST(test_calibrations_disagree),
	TEST(test_slow_core_against_reference),
	TEST(test_attempts_agree),
	TEST(test_no_sane_multiplies),
	{ 0 },
};

int main(void)
{
	return unit_run(tests);
}
