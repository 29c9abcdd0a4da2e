/* A minimal unit-test harness for the analyzer's *_test.c files. */
#ifndef LDPROF_UNIT_H
#define LDPROF_UNIT_H

#include <math.h>
#include <stdio.h>

static int unit_failures, unit_checks;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		unit_checks++;                                                                     \
		if (!(cond)) {                                                                     \
			unit_failures++;                                                           \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_NEAR(a, b, eps) CHECK(fabs((double)(a) - (double)(b)) <= (eps))

static inline int unit_done(const char *name)
{
	printf("%-20s %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures != 0;
}

#endif
