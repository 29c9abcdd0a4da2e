/*
 * Calibration's unwind pair: what a static build's first unwind costs per
 * FDE it sorts (the verdict's static side, model/static-side.c). A static
 * C program with many functions, each with its FDE, run with and without
 * one _Unwind_Backtrace, interleaved: libgcc sorts the registered
 * .eh_frame at the first unwind, so the difference is the sort.
 */
#ifndef LDPROF_CALIBRATE_UNWIND_H
#define LDPROF_CALIBRATE_UNWIND_H

#include "base/util.h"
#include "model/calibrate.h"

/* The program's source: nfuncs functions and a main that unwinds when given an argument. */
int unwind_write_source(const char *path, unsigned nfuncs, struct errbuf *err);

/* The functions of the calibration's program (fewer with --quick). */
#define UNWIND_FUNCS	   6000u
#define UNWIND_FUNCS_QUICK 2000u

/*
 * Run prog (built static from nfuncs functions) both ways, interleaved,
 * and set m->fde_sort_us to the difference per n log2 n of the n FDEs its
 * sort finds out of order (nearly all: crt1's and main's come first at
 * higher addresses), or leave the default when the difference is not
 * resolved above zero; and m->fde_floor to those beyond its own functions
 * (libc's and libgcc_eh's, which every static unwinder carries).
 */
int unwind_measure(const struct calib_opts *o, const char *prog, unsigned nfuncs,
		   struct model_coefs *m, struct errbuf *err);

#endif
