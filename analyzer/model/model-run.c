/*
 * Profiling with the cost model attached: the runs (run/profile.c), then
 * each trace's coefficients and counts. Apart from model.c, so that what
 * links the model alone (diff, the unit tests) does not pull in the runner.
 */
#include "model/calibrate-machine.h"
#include "base/exit.h"
#include "model/minimal-pair.h"
#include "model/model.h"
#include "run/profile.h"

/* The former attach_facts of run/profile.c, less the ELF facts it still loads. */
static void model_attach(struct trace *t)
{
	struct errbuf err;

	if (t->is_static)
		return;
	model_load(&t->model);
	if (model_features(t, &err))
		warn_msg("%s: the relocation model cannot replay it: %s", t->program, err.msg);
}

/* --fixed-runs: the minimal pair's difference, measured now, for the verdict. */
static void fixed_apply(struct trace *t, const struct minimal_pair_cost *c)
{
	if (t->is_static || !c->runs)
		return;
	t->fixed_cal_us = t->model.dynamic_fixed_us;
	t->fixed_runs = c->runs;
	t->model.dynamic_fixed_us = c->us;
	t->model.dynamic_fixed_lo = c->lo;
	t->model.dynamic_fixed_hi = c->hi;
}

int model_profile_programs(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
			   struct trace *traces, bool for_compare)
{
	struct minimal_pair_cost fixed = {0};
	struct summary fault;
	struct errbuf err;
	double rest;
	int r;

	if (o->fixed_runs && o->follow) {
		error_msg("--fixed-runs: not available with -f (no verdict for a workload)");
		return EXIT_USAGE;
	}
	/* Before the program, as the hand-made test of it in docs/model.md did. */
	if (o->fixed_runs && (r = minimal_pair_now(o, o->fixed_runs, &fixed)))
		return r;
	r = profile_programs(o, n, cmds, traces, for_compare);
	for (size_t i = 0; r == 0 && i < n; i++) {
		model_attach(&traces[i]);
		fixed_apply(&traces[i], &fixed);
	}
	/* What a page fault costs now, for the verdict to compare with the calibration's. */
	if (r == 0 && !machine_fault_cost(15, &fault, &rest, &err))
		for (size_t i = 0; i < n; i++)
			traces[i].fault_us_now = fault.median;
	return r;
}

int model_profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t)
{
	struct profile_cmd c = {argc, argv};

	return model_profile_programs(o, 1, &c, t, false);
}
