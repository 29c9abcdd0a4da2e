/*
 * How many runs, in what order: warmup, then profiled runs interleaved with
 * plain ones (to measure the shim's own cost side by side), stopping when
 * the median total is known to +-1% (a -f workload: +-2%) or the time
 * budget is spent.
 */
#ifndef LDPROF_RUNNER_H
#define LDPROF_RUNNER_H

#include <stdbool.h>

#include "base/cacheevict.h"
#include "run/launch.h"
#include "trace/trace.h"

struct run_plan {
	unsigned long runs;   /* fixed number of counted runs, or 0: adaptive */
	unsigned long warmup; /* uncounted runs first */
	unsigned long min_runs, max_runs;
	double max_seconds;   /* adaptive: stop after about this long */
	double target_rel_ci; /* adaptive: stop when the CI is within this */
	bool plain;	      /* interleave plain runs for the overhead figure */
	bool adapt_on_plain;  /* adaptive stop on the plain totals (compare) */
	/*
	 * --sample: after the timed rounds, one sampled run per sample_every
	 * counted rounds, never counted in the timing; 0 = none. Sampling
	 * stops for good when the kernel refuses it (trace.sampling->refused
	 * says why).
	 */
	unsigned sample_every;
	/* --cold-cache: empty the CPU caches before each run (base/cacheevict.h). */
	bool cold_cache;
	/* Its helper, started by the caller before any launcher (run/profile.c); NULL: none. */
	struct cache_evictor *evictor;
};

/* One program of several run side by side (compare): its launcher and trace. */
struct runner_side {
	struct launcher *l;
	struct trace *t;
	bool profiled; /* has a loader to profile */
};

/* What run_plan_defaults leaves to run_plan_resolve (the user did not say). */
#define RUN_PLAN_UNSET ((unsigned long)-1)

void run_plan_defaults(struct run_plan *p);
/*
 * Fill what the user left unset: warmup 3, at least 20 runs, +-1%, ~3 s;
 * with -f (a workload) warmup 1, at least 3 runs, +-2%, ~10 s.
 */
void run_plan_resolve(struct run_plan *p, bool follow);

/*
 * Execute the plan for one or several programs, interleaved round by round
 * (A B A B ...), appending runs to each side's trace: its profiled run when
 * it has one, then its plain run when the plan asks for plain runs. Stops
 * when every side is precise enough; then --sample's sampled runs. Returns 0, or -errno when a run
 * failed to start (err set). *interrupted is set when SIGINT stopped it; the run it cut short is
 * dropped. When a side's profiled runs all fail where its plain ones succeed, one more run of each
 * finds what the profiled one printed (trace.profiled_failure).
 */
int runner_execute_multi(struct runner_side *sides, size_t n, const struct run_plan *p,
			 bool *interrupted, struct errbuf *err);

/* Counted profiled runs so far (or plain ones when the plan is not profiled). */
size_t runner_counted(const struct trace *t, bool profiled);

#endif
