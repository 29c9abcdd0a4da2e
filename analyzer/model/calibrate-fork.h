/*
 * Calibration's fork programs: what one fork of a dynamic image costs
 * beyond a static one's (the verdict prices each fork of the program's
 * own image, model/fork-census.h). The same small C program, which times
 * its own forks (the child calls _exit at once, the parent waits), built
 * static, dynamic with libc alone, and dynamic with FORK_OBJECTS more
 * libraries, bound at startup: each library's mappings copied into the
 * child and torn down with it; and the two dynamic ones again bound
 * lazily, whose children look _exit up through every library
 * (docs/model.md, "The forks").
 */
#ifndef LDPROF_CALIBRATE_FORK_H
#define LDPROF_CALIBRATE_FORK_H

#include <stdbool.h>

#include "base/util.h"
#include "trace/model-coefs.h"

/* The libraries of the third program, each one function. */
#define FORK_OBJECTS 16

/*
 * Write fork.c and the libraries into dir and build fork-static, fork-base,
 * fork-objects and their lazily bound fork-base-lazy and fork-objects-lazy
 * (about 3 s with gcc here).
 */
int fork_build(const char *dir, struct errbuf *err);

/* One fork of a dynamic image beyond a static one's, us. */
struct fork_price {
	double fixed_us;	   /* with libc alone */
	double per_object_us;	   /* per more library */
	double lazy_fixed_us;	   /* a child that binds a call lazily: more with libc alone */
	double lazy_per_object_us; /* ...and more per library its lookup probes */
};

/*
 * Run the five, interleaved round by round: fixed_us the median of the
 * rounds' fork-base less fork-static, per fork; per_object_us the median
 * of fork-objects less fork-base, per fork and library; lazy_fixed_us of
 * fork-base-lazy less fork-base; lazy_per_object_us of what the libraries
 * add bound lazily beyond what they add bound at startup, per library.
 */
int fork_measure(const char *dir, bool quick, struct fork_price *p, struct errbuf *err);

/* Store p's four prices in m (fork_fixed_us, ..., fork_lazy_per_object_us). */
void fork_price_store(const struct fork_price *p, struct model_coefs *m);

#endif
