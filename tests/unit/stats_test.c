/* Unit tests for stats.c: medians, their confidence intervals, MAD. */
#include <stdlib.h>

#include "base/stats.h"
#include "unit.h"

static void test_ranks(void)
{
	size_t lo, hi;

	/* Tabulated distribution-free 95% CIs for the median. */
	median_ci_ranks(20, 0.95, &lo, &hi);
	CHECK(lo == 6 && hi == 15);
	median_ci_ranks(100, 0.95, &lo, &hi);
	CHECK(lo == 40 && hi == 61);
	median_ci_ranks(10, 0.95, &lo, &hi);
	CHECK(lo == 2 && hi == 9);
	/* Too few samples for 95%: the whole range. */
	median_ci_ranks(5, 0.95, &lo, &hi);
	CHECK(lo == 1 && hi == 5);
	median_ci_ranks(1, 0.95, &lo, &hi);
	CHECK(lo == 1 && hi == 1);
	/* Large n stays symmetric and near n/2 -+ 0.98 sqrt(n). */
	median_ci_ranks(10000, 0.95, &lo, &hi);
	CHECK(lo + hi == 10001);
	CHECK(lo >= 4900 && lo <= 4903);
}

static void test_summary(void)
{
	double v[] = {5, 1, 4, 2, 3};
	double even[] = {4, 1, 3, 2};
	double outlier[] = {1, 2, 3, 4, 100};
	struct summary s;

	summarize(v, 5, &s);
	CHECK(s.n == 5);
	CHECK_NEAR(s.median, 3, 1e-12);
	CHECK_NEAR(s.min, 1, 1e-12);
	CHECK_NEAR(s.max, 5, 1e-12);
	CHECK_NEAR(s.mean, 3, 1e-12);
	CHECK_NEAR(s.mad, 1, 1e-12);
	summarize(even, 4, &s);
	CHECK_NEAR(s.median, 2.5, 1e-12);
	summarize(outlier, 5, &s);
	CHECK_NEAR(s.median, 3, 1e-12);
	CHECK_NEAR(s.mad, 1, 1e-12); /* the outlier does not move it */
	CHECK_NEAR(s.mean, 22, 1e-12);
	summarize(NULL, 0, &s);
	CHECK(s.n == 0 && isnan(s.median));
}

/* The CI covers the true median about 95% of the time. */
static void test_coverage(void)
{
	int covered = 0, trials = 2000;
	double v[41];
	struct summary s;

	srand(12345);
	for (int t = 0; t < trials; t++) {
		for (int i = 0; i < 41; i++) /* exponential, median ln 2 */
			v[i] = -log((rand() + 1.0) / (RAND_MAX + 2.0));
		summarize(v, 41, &s);
		covered += s.ci_lo <= log(2.0) && log(2.0) <= s.ci_hi;
	}
	CHECK(covered >= trials * 0.94 && covered <= trials * 0.99);
}

static void test_halfwidth(void)
{
	struct summary s = {.n = 3, .median = 100, .ci_lo = 98, .ci_hi = 103};

	CHECK_NEAR(ci_relative_halfwidth(&s), 0.03, 1e-12);
	s.n = 0;
	CHECK(isinf(ci_relative_halfwidth(&s)));
}

/* NaN is skipped, pick chooses, and the scratch may be the input. */
static void test_median_picked(void)
{
	double v[] = {5, NAN, 1, 3, 100}, buf[5];
	size_t pick[] = {4, 4, 0, 1};

	CHECK_NEAR(median_picked(v, NULL, 5, buf), 4, 1e-12); /* {1, 3, 5, 100} */
	CHECK_NEAR(median_picked(v, pick, 4, buf), 100, 1e-12);
	CHECK(isnan(v[1]) && v[4] == 100);		    /* v untouched */
	CHECK_NEAR(median_picked(v, NULL, 3, v), 3, 1e-12); /* in place: {5, 1} */
	CHECK(isnan(median_picked(buf, NULL, 0, buf)));
}

/* The 2.5th and 97.5th percentiles of 0..400 are 10 and 390. */
static void test_percentile_ci95(void)
{
	double v[401], lo, hi;

	for (int i = 0; i <= 400; i++)
		v[i] = 400 - i;
	percentile_ci95(v, 401, &lo, &hi);
	CHECK_NEAR(lo, 10, 1e-12);
	CHECK_NEAR(hi, 390, 1e-12);
}

int main(void)
{
	test_ranks();
	test_summary();
	test_coverage();
	test_halfwidth();
	test_median_picked();
	test_percentile_ci95();
	return unit_done("stats_test");
}
