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

struct profile_opts;

/* Write nss.c into dir and build nss-static and nss-dynamic (bound at startup). */
int nss_build(const char *dir, struct errbuf *err);

/*
 * Run the two with and without the lookup, the four interleaved round by
 * round, whole runs as o's plain runs time them: what the lookup adds to
 * the dynamic build's run less what it adds to the static one's, us, in
 * *us. Timed around the call alone (before 2026-12-07), it came out 15
 * to 20 us where the whole runs say 29: the code after the call runs
 * faster in a static image that the lookup's faults already mapped.
 * -EAGAIN on a machine too busy to tell.
 */
int nss_measure(const struct profile_opts *o, const char *dir, bool quick, double *us,
		struct errbuf *err);

#endif
