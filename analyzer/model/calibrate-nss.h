/*
 * Calibration's NSS pair: what a process's first lookup through NSS
 * (getpwuid, as a shell looking its user up does) costs a dynamic build
 * beyond a static one. The same code runs in both; the shared libc spreads
 * it over more pages than a static link packs it into, and each first
 * touch of one is a page fault (docs/model.md, Known limits: 13 faults
 * against 2). The verdict prices each process of the program's image that
 * made such a lookup (run/fork-census.h counts them).
 */
#ifndef LDPROF_CALIBRATE_NSS_H
#define LDPROF_CALIBRATE_NSS_H

#include <stdbool.h>

#include "base/util.h"

/* Write nss.c into dir and build nss-static and nss-dynamic (bound at startup). */
int nss_build(const char *dir, struct errbuf *err);

/*
 * Run the two interleaved, round by round, each timing its own lookup:
 * the median of the rounds' differences (dynamic less static), us, in *us.
 */
int nss_measure(const char *dir, bool quick, double *us, struct errbuf *err);

#endif
