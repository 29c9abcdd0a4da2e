/* Unit tests for nnls.c against problems with known answers. */
#include <stdlib.h>

#include "base/nnls.h"
#include "unit.h"

int main(void)
{
	/* An exact, positive solution: y = 2 a + 3 b + 1. */
	double A1[] = {1, 0, 1, 0, 1, 1, 1, 1, 1, 2, 1, 1, 3, 5, 1, 7, 2, 1};
	double b1[6];
	double x[3];

	for (int i = 0; i < 6; i++)
		b1[i] = 2 * A1[i * 3] + 3 * A1[i * 3 + 1] + 1;
	CHECK(nnls(A1, b1, 6, 3, x) == 0);
	CHECK_NEAR(x[0], 2, 1e-9);
	CHECK_NEAR(x[1], 3, 1e-9);
	CHECK_NEAR(x[2], 1, 1e-9);
	CHECK_NEAR(nnls_r2(A1, b1, 6, 3, x, NULL), 1, 1e-12);

	/* The unconstrained optimum has a negative weight: NNLS pins it at 0. */
	double A2[] = {1, 1, 2, 1, 3, 1, 4, 1};
	double b2[] = {4, 3, 2, 1}; /* y = -x + 5 */
	double y[2], res[4];
	CHECK(nnls(A2, b2, 4, 2, y) == 0);
	CHECK(y[0] == 0);
	CHECK_NEAR(y[1], 2.5, 1e-9); /* the mean */
	nnls_r2(A2, b2, 4, 2, y, res);
	CHECK_NEAR(res[0], 1.5, 1e-9);

	/* Noisy data: recovers the slope within noise; a collinear column is harmless. */
	enum { M = 200 };
	double A3[M * 3], b3[M], z[3];
	srand(3);
	for (int i = 0; i < M; i++) {
		double t = i / 10.0;
		A3[i * 3] = t;
		A3[i * 3 + 1] = 2 * t; /* collinear with the first */
		A3[i * 3 + 2] = 1;
		b3[i] = 5 * t + 10 + ((rand() % 1000) / 1000.0 - 0.5);
	}
	CHECK(nnls(A3, b3, M, 3, z) == 0);
	CHECK_NEAR(z[0] + 2 * z[1], 5, 0.05);
	CHECK_NEAR(z[2], 10, 0.3);
	CHECK(z[0] >= 0 && z[1] >= 0 && z[2] >= 0);
	CHECK(nnls_r2(A3, b3, M, 3, z, NULL) > 0.99);
	return unit_done("nnls_test");
}
