/*
 * Robust statistics for repeated timings: medians with distribution-free
 * confidence intervals (order statistics of the binomial), and the median
 * absolute deviation. Timings are skewed and have outliers, so we never
 * assume normality.
 */
#ifndef LDPROF_STATS_H
#define LDPROF_STATS_H

#include <stddef.h>

struct summary {
	size_t n;
	double median;
	double ci_lo, ci_hi; /* 95% confidence interval of the median */
	double min, max;
	double mad; /* median absolute deviation (unscaled) */
	double mean;
};

/*
 * 1-based ranks (lo, hi) such that [x_(lo), x_(hi)] covers the median with
 * probability >= level, or lo = 1, hi = n when n is too small for that.
 */
void median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi);

/* Sorts v in place and fills s. n may be 0 (all fields NAN, n = 0). */
void summarize(double *v, size_t n, struct summary *s);

/* The larger half-width of the CI relative to the median (0.01 = 1%). */
double ci_relative_halfwidth(const struct summary *s);

#endif
