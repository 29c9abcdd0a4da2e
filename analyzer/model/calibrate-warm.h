/*
 * Calibration's price of a warm line: one a process's lookups read first,
 * which the run of the same program before it left in the cache. The
 * fitted programs run interleaved, so each evicts the others' lines and
 * the fit prices cold ones (cold_lines); `ldprof run` runs a program back
 * to back, and a program whose relocation fits in the L2 finds its lines
 * again (docs/model.md, "Lines the run before left").
 */
#ifndef LDPROF_CALIBRATE_WARM_H
#define LDPROF_CALIBRATE_WARM_H

#include "model/calibrate.h"

/*
 * Run scatter-160 and names-160 (the same relocation but for the order of
 * its lookups, so their difference is cold lines), each in blocks of its
 * own, each run after one of base, whose run every real program's holds:
 * the median over blocks of the two medians' difference, per line of the
 * difference in their counts, in *us. res holds the fitted programs'
 * names and counts.
 */
int warm_measure(const struct calib_opts *o, const struct calib_result *res, double *us,
		 struct errbuf *err);

#endif
