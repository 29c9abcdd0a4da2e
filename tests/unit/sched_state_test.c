/*
 * Unit tests for the scheduler's state over the runs (model/sched-state.c):
 * which runs count, the share preempted, the headline runs' totals apart in
 * each state, and runs whose count is unknown (older traces) left out.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched-state.h"
#include "unit.h"

/* Run i: profiled or plain, total us[i] (1 tick a microsecond), nivcsw[i]. */
static void fake(struct trace *t, size_t n, const bool *profiled, const double *us,
		 const long *nivcsw)
{
	memset(t, 0, sizeof *t);
	t->tsc_hz = 1e6;
	t->run = calloc(n, sizeof *t->run);
	t->nrun = n;
	for (size_t i = 0; i < n; i++) {
		t->run[i].profiled = profiled[i];
		t->run[i].exec_ts = 1000;
		t->run[i].reap_ts = 1000 + (uint64_t)us[i];
		t->run[i].usage.nivcsw = nivcsw[i];
	}
}

static void test_counts(void)
{
	/* Profiled and plain alternate; run 6 a warmup, run 7 of unknown count. */
	const bool prof[] = {true, false, true, false, true, false, true, false};
	const double us[] = {300, 100, 500, 200, 320, 110, 9000, 9000};
	const long niv[] = {0, 0, 2, 1, 0, 0, 5, -1};
	struct trace t;
	struct sched_state ss;

	fake(&t, 8, prof, us, niv);
	t.run[6].warmup = true;
	sched_state_build(&t, true, &ss);
	CHECK(ss.runs == 6 && ss.preempted == 2);
	CHECK_NEAR(sched_state_pct(&ss), 100.0 / 3, 1e-9);
	/* The headline runs are the profiled ones: 500 preempted, 300 and 320 not. */
	CHECK(ss.total_preempted.n == 1 && ss.total_other.n == 2);
	CHECK_NEAR(ss.total_preempted.median, 500, 1e-6);
	CHECK_NEAR(ss.total_other.median, 310, 1e-6);
	/* Plain headline runs: 200 preempted, 100 and 110 not. */
	sched_state_build(&t, false, &ss);
	CHECK(ss.runs == 6 && ss.total_preempted.n == 1 && ss.total_other.n == 2);
	CHECK_NEAR(ss.total_preempted.median, 200, 1e-6);
	free(t.run);
}

static void test_unknown(void)
{
	const bool prof[] = {false, false};
	const double us[] = {100, 120};
	const long niv[] = {-1, -1};
	struct trace t;
	struct sched_state ss;

	fake(&t, 2, prof, us, niv);
	sched_state_build(&t, false, &ss);
	CHECK(ss.runs == 0 && ss.preempted == 0 && sched_state_pct(&ss) == 0);
	CHECK(ss.total_preempted.n == 0 && ss.total_other.n == 0);
	free(t.run);
}

/* The stretch: plain runs' total over their tree's CPU; else the profiled ones'; NAN left out. */
static void test_tree_stretch(void)
{
	const bool prof[] = {true, false, true, false, true, false, false};
	const double us[] = {3000, 2000, 3300, 2400, 3600, 9000, 4000};
	const long niv[] = {0, 0, 0, 0, 0, 0, 0};
	const double cpu[] = {1000, 1000, 1000, 1000, 1000, NAN, 0};
	struct trace t;
	struct summary s;

	fake(&t, 7, prof, us, niv);
	for (size_t i = 0; i < 7; i++)
		t.run[i].usage.tree_cpu_us = cpu[i];
	/* Plain runs 1 and 3 (run 5 unknown, run 6 no CPU counted): 2.0 and 2.4. */
	sched_tree_stretch(&t, &s);
	CHECK(s.n == 2);
	CHECK_NEAR(s.median, 2.2, 1e-9);
	/* Without a plain run that has it: the profiled ones, 3.0, 3.3, 3.6. */
	t.run[1].usage.tree_cpu_us = t.run[3].usage.tree_cpu_us = NAN;
	sched_tree_stretch(&t, &s);
	CHECK(s.n == 3);
	CHECK_NEAR(s.median, 3.3, 1e-9);
	/* Neither: nothing. */
	for (size_t i = 0; i < 7; i++)
		t.run[i].usage.tree_cpu_us = NAN;
	sched_tree_stretch(&t, &s);
	CHECK(s.n == 0);
	free(t.run);
}

int main(void)
{
	test_counts();
	test_unknown();
	test_tree_stretch();
	return unit_done("sched_state_test");
}
