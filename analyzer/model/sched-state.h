/*
 * The scheduler during the runs: how many counted runs another task
 * preempted (wait4's ru_nivcsw), and the runs' totals apart in each state.
 * A preempted run is longer by the other task's slice, and a longer run is
 * preempted more often, so on a busy machine a difference of two medians
 * grows by what the preemptions add to the longer program, which no phase
 * of it shows (docs/model.md, "The static-link verdict", busy loops).
 */
#ifndef LDPROF_SCHED_STATE_H
#define LDPROF_SCHED_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/stats.h"
#include "trace/trace.h"

struct sched_state {
	size_t runs;	  /* counted runs with a count, profiled and plain */
	size_t preempted; /* of them, preempted at least once */
	/* The headline runs' totals (profiled ones if any), in each state. */
	struct summary total_preempted, total_other;
};

/* profiled: whether the headline total is the profiled runs' (report.h). */
void sched_state_build(const struct trace *t, bool profiled, struct sched_state *ss);

/* The share of the runs preempted, in percent; 0 when none was counted. */
double sched_state_pct(const struct sched_state *ss);

/*
 * How far the machine stretched the program's tree of processes: per run,
 * its total over the CPU time of every process of it (tree_cpu_us), over
 * the counted plain runs when they have it (compare's measured ones), else
 * the profiled ones. A tree whose processes wait on each other queues
 * behind the load at each wake-up: beside two busy loops, dar -V's runs
 * took 2.9 times their CPU time, as its static build's, and its difference
 * 2.5 to 2.8 times the quiet one; a program that ran alone, 1.0 (docs/model.md,
 * "The machine's load on a tree of processes"). s->n 0 without such runs.
 */
void sched_tree_stretch(const struct trace *t, struct summary *s);

/*
 * A share of runs preempted from which the machine counts as busy: the
 * verdict then says what its figure leaves out. Quiet, 16 to 44% of the
 * runs of a 1.5 to 3 ms program were preempted here; beside two busy
 * loops, 40 to 98% (docs/model.md).
 */
#define SCHED_BUSY_PCT 50.0

#endif
