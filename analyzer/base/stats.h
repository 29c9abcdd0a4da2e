/*
 * Robust statistics for repeated timings: medians with distribution-free
 * confidence intervals (order statistics of the binomial), and the median
 * absolute deviation. Timings are skewed and have outliers, so we never
 * assume normality.
 */
#ifndef LDPROF_STATS_H
#define LDPROF_STATS_H

#include <stddef.h>
#include <stdint.h>

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

/* qsort's comparison for doubles, ascending. */
int cmp_double(const void *a, const void *b);

/*
 * The median of the values v[pick[i]] (v[i] when pick is NULL), i < n, that
 * are not NaN; NAN when there are none. buf holds n doubles of scratch and
 * may be v itself (with pick NULL): the values are compacted in place.
 */
double median_picked(const double *v, const size_t *pick, size_t n, double *buf);

/*
 * The 95% percentile interval of n > 0 bootstrap replicates (sorted in
 * place): their 2.5th and 97.5th percentiles.
 */
void percentile_ci95(double *v, size_t n, double *lo, double *hi);

/*
 * The bootstrap's random numbers (xorshift64): a fixed seed, so that the
 * same runs give the same report. *state must not be 0.
 */
uint64_t bootstrap_rand(uint64_t *state);

#endif
