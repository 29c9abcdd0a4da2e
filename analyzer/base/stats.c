#include "base/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* P(X = i) for X ~ Binomial(n, 1/2), in log space so that large n works. */
static double binom_half_pmf(size_t n, size_t i)
{
	return exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
		   (double)n * log(2.0));
}

void median_ci_ranks(size_t n, double level, size_t *lo, size_t *hi)
{
	double tail = (1 - level) / 2, cdf = 0;
	size_t l = 0;

	/*
	 * The number of samples below the median is Binomial(n, 1/2): take
	 * the largest l with P(X <= l - 1) <= tail; [x_(l), x_(n+1-l)] then
	 * covers the median with probability >= level.
	 */
	while (l + 1 <= n / 2) {
		cdf += binom_half_pmf(n, l);
		if (cdf > tail)
			break;
		l++;
	}
	*lo = l ? l : 1;
	*hi = l ? n + 1 - l : n;
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void summarize(double *v, size_t n, struct summary *s)
{
	size_t lo, hi;
	double sum = 0;

	memset(s, 0, sizeof *s);
	s->n = n;
	if (!n) {
		s->median = s->ci_lo = s->ci_hi = s->min = s->max = s->mad = s->mean = NAN;
		return;
	}
	qsort(v, n, sizeof *v, cmp_double);
	s->median = median_sorted(v, n);
	s->min = v[0];
	s->max = v[n - 1];
	median_ci_ranks(n, 0.95, &lo, &hi);
	s->ci_lo = v[lo - 1];
	s->ci_hi = v[hi - 1];
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;

	double *dev = malloc(n * sizeof *dev);
	if (!dev) {
		s->mad = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(v[i] - s->median);
	qsort(dev, n, sizeof *dev, cmp_double);
	s->mad = median_sorted(dev, n);
	free(dev);
}

double ci_relative_halfwidth(const struct summary *s)
{
	double w;

	if (!s->n || !(s->median > 0))
		return INFINITY;
	w = fmax(s->median - s->ci_lo, s->ci_hi - s->median);
	return w / s->median;
}

double median_picked(const double *v, const size_t *pick, size_t n, double *buf)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		double x = v[pick ? pick[i] : i];
		if (!isnan(x))
			buf[m++] = x;
	}
	if (!m)
		return NAN;
	qsort(buf, m, sizeof *buf, cmp_double);
	return median_sorted(buf, m);
}

void percentile_ci95(double *v, size_t n, double *lo, double *hi)
{
	qsort(v, n, sizeof *v, cmp_double);
	*lo = v[(size_t)(0.025 * (double)(n - 1))];
	*hi = v[(size_t)(0.975 * (double)(n - 1) + 0.5)];
}

uint64_t bootstrap_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}
