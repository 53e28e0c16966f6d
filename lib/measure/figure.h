/* SPDX-License-Identifier: MIT */
#ifndef SBX_MEASURE_FIGURE_H
#define SBX_MEASURE_FIGURE_H

/*
 * From a child's readings to figures: how the runs are aggregated, the
 * TSC's two calibrations, and how sure the first figure is. Arithmetic on
 * the readings only (no process, no counter), so that the unit tests can
 * feed it readings taken on a loaded machine.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/measure.h"

/*
 * The timed runs of one repeat, in the order they run: the calibration
 * chains (K and 2K of each), then the snippet's 2K run and its K run.
 */
enum { SLOT_CAL_1, SLOT_CAL_2, SLOT_MUL_1, SLOT_MUL_2, SLOT_SNIP_2, SLOT_SNIP_1, N_SLOTS };

/*
 * One-cycle adds in the K calibration run (2K: twice). Straight-line code
 * like duplicate mode: a loop of adds ran at 1.3 cycles per add at some
 * code addresses on an AMD EPYC VM.
 */
#define CAL_ADDS 20000ul
/*
 * The second calibration, a chain of 64-bit multiplies (3 cycles each on
 * current x86, a whole number of cycles on any core), half as long as the
 * adds. Where the host's clock or its share of the core depends on what
 * runs (a VM's core shared with another guest's thread slows a chain of
 * one-cycle adds, and a chain of a slow unit less), the two disagree, and
 * a figure is known no better than that.
 */
#define CAL_MULS 3334ul
#define CAL_CALLS 5u		/* calibration runs per timed reading */

/* A child's readings: raw[(repeat * N_SLOTS + slot) * stride + counter] */
struct readings {
	const uint64_t *raw;
	unsigned n;			/* repeats */
	size_t stride;			/* counters per run: the cycles' first, then the events */
	bool tsc;			/* the first counter is the TSC: cycles by the calibration */
	bool no_diff;			/* the K runs only */
	enum measure_aggregate how;
	unsigned long ninsn;		/* instructions of the K run */
	unsigned long adds, muls;	/* instructions of the calibrations' K runs (TSC) */
};

/* Aggregate n values (sorted in place). */
double figure_aggregate(double *v, int n, enum measure_aggregate how);

/*
 * The TSC's calibrations: r->tsc_per_cycle (TSC ticks per cycle of the
 * adds), r->drift (its change from the first half of the repeats to the
 * second) and r->cross (the multiplies' ratio against the adds', relative;
 * NaN where they read no whole number of cycles). -1 where the TSC did not
 * advance.
 */
int figure_calibrate(const struct readings *rd, struct measure_result *r);

/*
 * Counter e's runs aggregated: the K runs', or the 2K runs' less the K
 * runs'; the first counter's over ratio (TSC ticks per cycle) when TSC.
 * scratch holds rd->n doubles.
 */
double figure_difference(const struct readings *rd, int e, double ratio, double *scratch);

/*
 * How sure the first figure, v per instruction, is: the relative
 * half-width of its interval; NaN with fewer than 4 repeats, INFINITY
 * where the difference is at or below 0 or the calibrations cannot be
 * trusted. r holds figure_calibrate()'s results. scratch: rd->n doubles.
 */
double figure_uncertainty(const struct readings *rd, const struct measure_result *r, double v,
			  double *scratch);

/*
 * How far apart the two calibrations read on a steady core: 0.0002-0.0020
 * on an AMD EPYC (Zen 5) guest whose clock stepped by 7% during a sweep.
 */
#define FIGURE_CROSS_AGREE 0.0025

/*
 * An attempt's figure against lo, the lowest TSC ratio seen on this run:
 * where its calibrations disagree by more than FIGURE_CROSS_AGREE (a
 * shared core, not a slower clock), its uncertainty at least half as much
 * again as its ratio is above lo, and unsteady when that is above
 * MEASURE_STEADY.
 */
struct measure_result figure_against_reference(struct measure_result t, double lo);

/*
 * The kept attempt against the n attempts of its snippet (itself among
 * them): where another one was steady (its uncertainty within
 * MEASURE_STEADY) and its figure lies outside the kept one's interval, one
 * of the two is wrong, and the kept one's interval is widened to reach it,
 * which flags it unsteady when that is above MEASURE_STEADY.
 */
struct measure_result figure_against_attempts(struct measure_result kept,
					      const struct measure_result *att, int n);

#endif
