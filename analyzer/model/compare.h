/*
 * Two programs side by side: were B's starts slower than A's, by how much,
 * in which phases, and for which libraries only one side pays.
 */
#ifndef LDPROF_COMPARE_H
#define LDPROF_COMPARE_H

#include <stdbool.h>

#include "model/analyze.h"

struct interval {
	double median, lo, hi; /* an estimate and its 95% CI */
};

struct phase_delta {
	bool known;
	double a_us, b_us; /* NAN for a static side */
	struct interval diff;
	bool significant;
};

/* A library loaded by one side only (matched by soname, else file name). */
struct lib_only {
	int side; /* 0 for A, 1 for B */
	const struct report_object *obj;
};

struct compare {
	const struct trace *t[2]; /* A and B */
	struct report rep[2];
	size_t pairs; /* plain runs paired round by round */
	struct summary plain[2];
	struct interval ratio; /* median B / median A over plain runs */
	struct interval diff;  /* median B - median A, microseconds */
	bool significant;      /* the CI of the difference excludes 0 */
	struct phase_delta phase[PH_COUNT];
	struct lib_only *only;
	size_t nonly;
};


/* Both traces hold plain runs (and profiled ones for dynamic sides). */
void compare_build(const struct trace *a, const struct trace *b, struct compare *c);
/* Only the plain runs' totals, ratio and difference: no reports, no model needed. */
void compare_totals(const struct trace *a, const struct trace *b, struct compare *c);
void compare_free(struct compare *c);

#endif
