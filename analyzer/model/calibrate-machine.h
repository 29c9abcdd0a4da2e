/*
 * The machine's side of calibration: what a page fault costs here, how
 * noisy the machine was while calibrating, what the exit path costs per
 * object, and whether the figures can be trusted (calibrate warns when
 * they cannot). `run` measures the fault cost again to tell when the
 * machine has changed since.
 */
#ifndef LDPROF_CALIBRATE_MACHINE_H
#define LDPROF_CALIBRATE_MACHINE_H

#include "base/stats.h"
#include "base/util.h"
#include "model/calibrate.h"

/*
 * One page fault on a file in the page cache, read through a fresh private
 * mapping one 64 KiB fault-around window at a time, as a program's
 * instruction fetches take them: s summarizes the rounds (microseconds per
 * fault), *rest is the fastest tenth of them (the machine at rest).
 * *unmap_page: the median round's munmap of the mapping after, per page
 * the faults mapped (16 a window); NULL when not wanted.
 */
int machine_fault_cost(unsigned rounds, struct summary *s, double *rest, double *unmap_page,
		       struct errbuf *err);

/*
 * After the calibration runs: the fault cost, the noise, the exit path's
 * cost per object (objects-K against base), and a warning in res->warnings
 * for each figure a busy machine has made doubtful.
 */
int calibrate_machine(struct calib_result *res, struct errbuf *err);

/*
 * The relocation and symbol tables ld.so reads for an object, in KiB, from
 * its counts: a 24-byte Rela per relocation, and a 24-byte symbol (with
 * its name) per symbol looked up.
 */
double model_table_kib(const double feat[MODEL_NFEAT]);

/* A CI half-width of the fixed cost above this share of it: a busy machine. */
#define CALIB_NOISE_MAX_PCT 10.0
/* Faults this many times slower than at rest: a busy machine. */
#define CALIB_FAULT_BUSY_RATIO 1.5

#endif
