/*
 * Calibration's fork programs: what one fork of a dynamic image costs
 * beyond a static one's (the verdict prices each fork of the program's
 * own image, model/fork-census.h). The same small C program, which times
 * its own forks (the child calls _exit at once, the parent waits), built
 * static, dynamic with libc alone, and dynamic with FORK_OBJECTS more
 * libraries, bound at startup: each library's mappings copied into the
 * child and torn down with it (docs/model.md, "The forks").
 */
#ifndef LDPROF_CALIBRATE_FORK_H
#define LDPROF_CALIBRATE_FORK_H

#include <stdbool.h>

#include "base/util.h"

/* The libraries of the third program, each one function. */
#define FORK_OBJECTS 16

/*
 * Write fork.c and the libraries into dir and build fork-static, fork-base
 * and fork-objects (about 2 s with gcc here).
 */
int fork_build(const char *dir, struct errbuf *err);

/* One fork of a dynamic image beyond a static one's, us. */
struct fork_price {
	double fixed_us;      /* with libc alone */
	double per_object_us; /* per more library */
};

/*
 * Run the three, interleaved round by round: fixed_us the median of the
 * rounds' fork-base less fork-static, per fork; per_object_us the median
 * of fork-objects less fork-base, per fork and library.
 */
int fork_measure(const char *dir, bool quick, struct fork_price *p, struct errbuf *err);

#endif
