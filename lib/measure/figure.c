// SPDX-License-Identifier: MIT
/* From a child's readings to figures (figure.h). */
#include <math.h>
#include <stdlib.h>

#include "measure/figure.h"

#define RAW(rd_, rep_, slot_, i_) \
	((double)(rd_)->raw[((size_t)(rep_) * N_SLOTS + (slot_)) * (rd_)->stride + (i_)])

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double figure_aggregate(double *v, int n, enum measure_aggregate how)
{
	double sum = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	switch (how) {
	case MEASURE_AGG_MIN:
		return v[0];
	case MEASURE_AGG_MEDIAN:
		return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	case MEASURE_AGG_MEAN:
		for (int i = 0; i < n; i++)
			sum += v[i];
		return sum / n;
	case MEASURE_AGG_MIN_VARIANCE: {
		/* the mean of the half of the readings (consecutive when sorted) that
		   varies least: robust to outliers on both sides */
		int w = (n + 1) / 2, best = 0;
		double best_var = INFINITY;

		for (int i = 0; i + w <= n; i++) {
			double m = 0, var = 0;

			for (int j = i; j < i + w; j++)
				m += v[j];
			m /= w;
			for (int j = i; j < i + w; j++)
				var += (v[j] - m) * (v[j] - m);
			if (var < best_var) {
				best_var = var;
				best = i;
			}
		}
		for (int j = best; j < best + w; j++)
			sum += v[j];
		return sum / w;
	}
	}
	return v[0];
}

/*
 * TSC ticks per instruction of a calibration chain (slot: SLOT_CAL_1 or
 * SLOT_MUL_1) from its runs in repeats [from, to): min(2K) - min(K).
 */
static double cal_ticks(const struct readings *rd, int slot, unsigned from, unsigned to)
{
	double m1 = INFINITY, m2 = INFINITY;

	for (unsigned i = from; i < to; i++) {
		m1 = fmin(m1, RAW(rd, i, slot, 0));
		m2 = fmin(m2, RAW(rd, i, slot + 1, 0));
	}
	return (m2 - m1) / (double)(slot == SLOT_CAL_1 ? rd->adds : rd->muls);
}

/* TSC ticks per cycle: the one-cycle adds of repeats [from, to) */
static double cal_ratio(const struct readings *rd, unsigned from, unsigned to)
{
	return cal_ticks(rd, SLOT_CAL_1, from, to);
}

int figure_calibrate(const struct readings *rd, struct measure_result *r)
{
	unsigned n = rd->n, h = n > 1 ? n / 2 : 1;
	double ratio, ratio_a, ratio_b, c, l;

	r->cross = NAN;
	if (!rd->tsc)
		return 0;
	ratio = cal_ratio(rd, 0, n);
	ratio_a = cal_ratio(rd, 0, h);
	ratio_b = n > 1 ? cal_ratio(rd, h, n) : ratio_a;
	if (!(ratio > 0))
		return -1;
	r->tsc_per_cycle = ratio;
	r->drift = ratio_a > 0 && ratio_b > 0 ? (ratio_b - ratio_a) / ratio_a : 0;
	/* the cycles of one multiply by the adds' ratio, over the whole number they should be */
	c = cal_ticks(rd, SLOT_MUL_1, 0, n) / ratio;
	l = round(c);
	if (l >= 1 && l <= 16)
		r->cross = c / l - 1;
	return 0;
}

/*
 * Each series (K runs, 2K runs) is aggregated first and the difference
 * taken after, as nanoBench and uarch-bench do: a run hit by an interrupt
 * then spoils one reading, not the difference.
 */
double figure_difference(const struct readings *rd, int e, double ratio, double *ev)
{
	double agg;

	for (unsigned i = 0; i < rd->n; i++)
		ev[i] = RAW(rd, i, SLOT_SNIP_1, e);
	agg = figure_aggregate(ev, (int)rd->n, rd->how);
	if (!rd->no_diff) {
		for (unsigned i = 0; i < rd->n; i++)
			ev[i] = RAW(rd, i, SLOT_SNIP_2, e);
		agg = figure_aggregate(ev, (int)rd->n, rd->how) - agg;
	}
	if (e == 0 && rd->tsc)
		agg /= ratio;
	return agg;
}

/*
 * How sure the first figure is: each repeat's own figure (its difference
 * over its own calibration), the spread of those (half the interquartile
 * range, robust to the repeat an interrupt hit), the difference of the
 * figures of the two halves of the repeats, the calibration's drift and
 * the two calibrations' disagreement; the widest of them, relative to the
 * figure, with a floor of the TSC's read-out (a few ticks a run).
 */
double figure_uncertainty(const struct readings *rd, const struct measure_result *r, double v,
			  double *f)
{
	unsigned n = rd->n, m = 0;
	double u = 0.002, q1, q3, half[2], ratio = r->tsc_per_cycle;

	for (unsigned i = 0; i < n; i++) {
		double d = rd->no_diff ? RAW(rd, i, SLOT_SNIP_1, 0) :
			   RAW(rd, i, SLOT_SNIP_2, 0) - RAW(rd, i, SLOT_SNIP_1, 0);
		double ri = rd->tsc ? cal_ratio(rd, i, i + 1) : 1;

		if (ri > 0)
			f[m++] = d / ri / (double)rd->ninsn;
	}
	if (m < 4 || n < 4)
		return NAN;	/* too few repeats to tell */
	if (!(v > 0))
		return INFINITY;	/* a difference at or below 0: noise */
	qsort(f, m, sizeof(double), cmp_double);
	q1 = f[m / 4];
	q3 = f[(3 * m) / 4];
	/* the spread of one repeat; a median or a mean of m of them: its error */
	if (rd->how != MEASURE_AGG_MIN)
		u = fmax(u, (q3 - q1) / 2 / v / sqrt((double)m));
	/*
	 * and where the figure stands from the repeats' own: their median,
	 * each over its own calibration, is near a min taken on a steady
	 * machine; far from it where the minima came from repeats in
	 * different states of the clock or the core
	 */
	u = fmax(u, fabs(figure_aggregate(f, (int)m, MEASURE_AGG_MEDIAN) - v) / v);
	/* the two halves, each its own aggregate of its own repeats */
	for (int k = 0; k < 2; k++) {
		unsigned from = k ? n / 2 : 0, to = k ? n : n / 2;
		double s1 = INFINITY, s2 = INFINITY;

		for (unsigned i = from; i < to; i++) {
			s1 = fmin(s1, RAW(rd, i, SLOT_SNIP_1, 0));
			s2 = fmin(s2, RAW(rd, i, SLOT_SNIP_2, 0));
		}
		half[k] = (rd->no_diff ? s1 : s2 - s1) / (double)rd->ninsn;
		if (rd->tsc)
			half[k] /= cal_ratio(rd, from, to);
	}
	if (rd->how == MEASURE_AGG_MIN)
		u = fmax(u, fabs(half[1] - half[0]) / 2 / v);
	if (rd->tsc) {
		/*
		 * the clock: the spread of the repeats' own calibrations (a step
		 * between two of its states moves a figure whose two minima came
		 * from repeats on either side of it)
		 */
		unsigned k = 0;

		for (unsigned i = 0; i < n; i++) {
			double ri = cal_ratio(rd, i, i + 1);

			if (ri > 0)
				f[k++] = ri;
		}
		if (k >= 4 && ratio > 0) {
			qsort(f, k, sizeof(double), cmp_double);
			u = fmax(u, (f[(3 * k) / 4] - f[k / 4]) / 2 / ratio);
		}
		u = fmax(u, fabs(r->drift));
		/*
		 * and the two calibrations: where the multiplies' ratio is not
		 * the adds', a figure over the one could be the other's,
		 * v / (1 + cross), or beyond it (a snippet unlike both): half as
		 * far again; with no sane multiply count, not known
		 */
		if (isnan(r->cross))
			return INFINITY;
		u = fmax(u, 1.5 * fabs(r->cross / (1 + r->cross)));
	}
	return u;
}

/*
 * A child whose adds took more ticks per cycle than the lowest ratio of
 * the run ran on a slower or a shared core. A slower clock the
 * calibration corrects for, and the two calibrations agree; a core shared
 * with another thread (an SMT sibling, a VM's neighbour) it does not, for
 * that thread slows the snippet, the adds and the multiplies apart: where
 * the calibrations disagree by more than their noise (FIGURE_CROSS_AGREE),
 * the snippet was seen slowed by 2-3 times their disagreement, and the
 * excess over lo bounds it.
 */
struct measure_result figure_against_reference(struct measure_result t, double lo)
{
	double *u = &t.values[0].uncertainty;

	if (lo > 0 && t.tsc_per_cycle > lo && !isnan(*u) && !(fabs(t.cross) <= FIGURE_CROSS_AGREE)) {
		*u = fmax(*u, 1.5 * (t.tsc_per_cycle / lo - 1));
		t.unsteady = *u > MEASURE_STEADY;
	}
	return t;
}

struct measure_result figure_against_attempts(struct measure_result kept,
					      const struct measure_result *att, int n)
{
	double v = kept.values[0].value, *u = &kept.values[0].uncertainty;

	if (!(v > 0) || isnan(*u))
		return kept;
	for (int j = 0; j < n; j++) {
		double w = att[j].values[0].value;

		if (att[j].error[0] || att[j].exited || !(w > 0) ||
		    !(att[j].values[0].uncertainty <= MEASURE_STEADY))
			continue;
		*u = fmax(*u, fabs(w - v) / v);
	}
	kept.unsteady = *u > MEASURE_STEADY;
	return kept;
}
