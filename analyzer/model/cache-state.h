/*
 * The shared cache's state during the runs (base/cacheprobe.h): how many
 * counted runs ran with it contended, and the relocate phase apart in each
 * state. A large program's relocation reads megabytes of tables that only
 * the shared cache can hold, so a tenant streaming through it makes that
 * phase up to 50% slower (docs/model.md, "The shared cache"); the cost
 * model is calibrated and held to the uncontended runs.
 */
#ifndef LDPROF_CACHE_STATE_H
#define LDPROF_CACHE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/stats.h"
#include "trace/trace.h"

struct run_breakdown; /* model/analyze.h */

struct cache_state {
	size_t probed;	   /* counted profiled runs with a reading */
	size_t contended;  /* of them, with the shared cache contended */
	double line_ns;	   /* the median reading after an idle spell */
	double contended_line_ns; /* the same over the contended runs (0: none) */
	double hot_ns;	   /* the fastest hot reading, the calibration's included */
	/* The relocate phase of the valid runs in each state (n 0: none). */
	struct summary reloc_calm, reloc_contended;
};

/*
 * From the counted profiled runs' breakdowns; calib_hot_ns is the
 * calibration's fastest hot reading (0: none), which stands for the
 * machine's own when a tenant slowed every hot pass of the session. All
 * zero when nothing was probed.
 */
void cache_state_build(const struct trace *t, const struct run_breakdown *bd, size_t nbd,
		       double calib_hot_ns, struct cache_state *cs);

/*
 * The relocate phase the model is held to: the median of the runs in the
 * state the calibration priced (contended: model_priced_contended()) when
 * at least CACHE_CALM_MIN of them ran and the others were in the other
 * state, else NAN (the phase's own median then).
 */
double cache_state_held_reloc(const struct cache_state *cs, bool contended);
#define CACHE_CALM_MIN 5

/*
 * The probe's median reading after its idle spell over the runs the
 * residual is held to, by the same choice as cache_state_held_reloc: the
 * counted profiled runs in the state the calibration priced, when at least
 * CACHE_CALM_MIN ran in it and others in the other, else all of them.
 * From the trace alone (no breakdowns), for pricing before the report. 0:
 * none probed.
 */
double cache_state_runs_line_ns(const struct trace *t, double calib_hot_ns, bool contended);

/*
 * A calibration whose runs read the cache contended in more than this share:
 * a busy machine (calibrate warns; reports using it say so).
 */
#define CACHE_BUSY_PCT 50.0

#endif
