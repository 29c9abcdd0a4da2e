/*
 * Non-negative least squares: min |A x - b| subject to x >= 0, by the
 * Lawson-Hanson active-set method. Small and dense (a dozen columns, a
 * hundred rows): the cost model's calibration. No library on Debian 12
 * offers NNLS in C without pulling in a Fortran or Python stack, hence
 * these hundred lines.
 */
#ifndef LDPROF_NNLS_H
#define LDPROF_NNLS_H

#include <stddef.h>

/*
 * A is m x n, row-major. Writes x (n) and returns 0, or -1 when the
 * iteration limit was hit (x then holds the best point found).
 */
int nnls(const double *A, const double *b, size_t m, size_t n, double *x);

/* R squared of the fit, and the residuals b - A x (m values, may be NULL). */
double nnls_r2(const double *A, const double *b, size_t m, size_t n, const double *x,
	       double *residuals);

#endif
