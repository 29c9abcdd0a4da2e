/*
 * Calibration's unwind pair: what a static build's first unwind costs per
 * FDE it sorts (the verdict's static side, model/static-side.c). A static
 * C program with many functions, each with its FDE, run with and without
 * one _Unwind_Backtrace, interleaved: libgcc sorts the registered
 * .eh_frame at the first unwind, so the difference is the sort.
 */
#ifndef LDPROF_CALIBRATE_UNWIND_H
#define LDPROF_CALIBRATE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

struct profile_opts;
struct model_coefs;

/* The program's source: nfuncs functions and a main that unwinds when given an argument. */
int unwind_write_source(const char *path, unsigned nfuncs, struct errbuf *err);

/* The functions of the calibration's program (fewer with --quick). */
#define UNWIND_FUNCS	   6000u
#define UNWIND_FUNCS_QUICK 2000u

/* Write it into dir and build dir/unwind-static: 0, or -errno with err set. */
int unwind_build(const char *dir, bool quick, struct errbuf *err);

/*
 * The unwind pair is measured in passes spread over the calibration (the
 * first before the programs, the others after them and after the fixed
 * cost): one pass of a few hundred runs takes about a second, and its
 * price moved from 0.0156 to 0.0267 us between calibrations in one hour,
 * and 1645 to 2252 us for the same program between compares seconds apart.
 */
#define UNWIND_PASSES 3u
struct unwind_prices {
	double price[UNWIND_PASSES]; /* us per n log2 n, each pass resolved above zero */
	double lo[UNWIND_PASSES], hi[UNWIND_PASSES]; /* ...and its 95% CI */
	size_t n;		     /* of them */
	size_t busy; /* passes left out: too few runs escaped preemption on a busy machine */
	uint32_t fdes;		     /* erratic FDEs of the program */
};

/*
 * Run prog (built static from nfuncs functions) both ways, interleaved,
 * runs times each with o's timing options, and add the difference per
 * n log2 n of the n FDEs its sort finds out of order (nearly all: crt1's
 * and main's come first at higher addresses) to up, unless the difference
 * is not resolved above zero.
 */
int unwind_measure(const struct profile_opts *o, unsigned runs, const char *prog,
		   struct unwind_prices *up, struct errbuf *err);

/*
 * The passes into m: fde_sort_us their median and fde_sort_lo/hi their
 * range, or one pass's CI (the default kept when none resolved);
 * fde_floor the erratic FDEs beyond the program's nfuncs functions (libc's
 * and libgcc_eh's, which every static unwinder carries).
 */
void unwind_prices_apply(const struct unwind_prices *up, unsigned nfuncs, struct model_coefs *m);

#endif
