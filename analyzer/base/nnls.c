#include "base/nnls.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/*
 * Solve the least-squares problem restricted to the passive columns P
 * through the normal equations (A_P^T A_P) z = A_P^T b, by Gaussian
 * elimination with partial pivoting. Columns not in P get z = 0.
 */
static void solve_passive(const double *A, const double *b, size_t m, size_t n, const bool *passive,
			  double *z)
{
	size_t k = 0, *idx = xmalloc((n + 1) * sizeof *idx);
	double *M, *r;

	for (size_t j = 0; j < n; j++)
		if (passive[j])
			idx[k++] = j;
	M = xcalloc(k * k + 1, sizeof *M);
	r = xcalloc(k + 1, sizeof *r);
	for (size_t p = 0; p < k; p++) {
		for (size_t q = 0; q < k; q++)
			for (size_t i = 0; i < m; i++)
				M[p * k + q] += A[i * n + idx[p]] * A[i * n + idx[q]];
		for (size_t i = 0; i < m; i++)
			r[p] += A[i * n + idx[p]] * b[i];
	}
	for (size_t c = 0; c < k; c++) {
		size_t piv = c;
		for (size_t i = c + 1; i < k; i++)
			if (fabs(M[i * k + c]) > fabs(M[piv * k + c]))
				piv = i;
		for (size_t q = 0; q < k && piv != c; q++) {
			double t = M[c * k + q];
			M[c * k + q] = M[piv * k + q];
			M[piv * k + q] = t;
		}
		double t = r[c];
		r[c] = r[piv];
		r[piv] = t;
		if (fabs(M[c * k + c]) < 1e-300)
			continue; /* a dependent column: leave its weight at 0 */
		for (size_t i = c + 1; i < k; i++) {
			double f = M[i * k + c] / M[c * k + c];
			for (size_t q = c; q < k; q++)
				M[i * k + q] -= f * M[c * k + q];
			r[i] -= f * r[c];
		}
	}
	memset(z, 0, n * sizeof *z);
	for (size_t c = k; c-- > 0;) {
		double s = r[c];
		for (size_t q = c + 1; q < k; q++)
			s -= M[c * k + q] * z[idx[q]];
		z[idx[c]] = fabs(M[c * k + c]) < 1e-300 ? 0 : s / M[c * k + c];
	}
	free(idx);
	free(M);
	free(r);
}

/* w = A^T (b - A x): the negative gradient. */
static void gradient(const double *A, const double *b, size_t m, size_t n, const double *x,
		     double *w)
{
	for (size_t j = 0; j < n; j++)
		w[j] = 0;
	for (size_t i = 0; i < m; i++) {
		double res = b[i];
		for (size_t j = 0; j < n; j++)
			res -= A[i * n + j] * x[j];
		for (size_t j = 0; j < n; j++)
			w[j] += A[i * n + j] * res;
	}
}

/* Move from x towards z until the first passive weight would turn negative. */
static void step_back(size_t n, bool *passive, double *x, const double *z)
{
	double alpha = 1;

	for (size_t j = 0; j < n; j++)
		if (passive[j] && z[j] <= 0 && x[j] - z[j] > 0)
			alpha = fmin(alpha, x[j] / (x[j] - z[j]));
	for (size_t j = 0; j < n; j++) {
		x[j] += alpha * (z[j] - x[j]);
		if (passive[j] && x[j] <= 1e-12) {
			passive[j] = false;
			x[j] = 0;
		}
	}
}

int nnls(const double *A, const double *b, size_t m, size_t n, double *x)
{
	bool *passive = xcalloc(n + 1, sizeof *passive);
	double *w = xcalloc(n + 1, sizeof *w), *z = xcalloc(n + 1, sizeof *z);
	int ret = -1;

	memset(x, 0, n * sizeof *x);
	for (size_t iter = 0; iter < 30 * n + 30; iter++) {
		size_t best = n;
		gradient(A, b, m, n, x, w);
		for (size_t j = 0; j < n; j++)
			if (!passive[j] && w[j] > 1e-10 && (best == n || w[j] > w[best]))
				best = j;
		if (best == n) {
			ret = 0;
			break;
		}
		passive[best] = true;
		for (int inner = 0; inner < 3 * (int)n + 3; inner++) {
			bool all_positive = true;
			solve_passive(A, b, m, n, passive, z);
			for (size_t j = 0; j < n; j++)
				if (passive[j] && z[j] <= 0)
					all_positive = false;
			if (all_positive) {
				memcpy(x, z, n * sizeof *x);
				break;
			}
			step_back(n, passive, x, z);
		}
	}
	free(passive);
	free(w);
	free(z);
	return ret;
}

double nnls_r2(const double *A, const double *b, size_t m, size_t n, const double *x,
	       double *residuals)
{
	double mean = 0, ss_tot = 0, ss_res = 0;

	for (size_t i = 0; i < m; i++)
		mean += b[i] / (double)m;
	for (size_t i = 0; i < m; i++) {
		double fit = 0;
		for (size_t j = 0; j < n; j++)
			fit += A[i * n + j] * x[j];
		if (residuals)
			residuals[i] = b[i] - fit;
		ss_res += (b[i] - fit) * (b[i] - fit);
		ss_tot += (b[i] - mean) * (b[i] - mean);
	}
	return ss_tot > 0 ? 1 - ss_res / ss_tot : NAN;
}
