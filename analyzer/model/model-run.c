/*
 * Profiling with the cost model attached: the runs (run/profile.c), then
 * each trace's coefficients and counts. Apart from model.c, so that what
 * links the model alone (diff, the unit tests) does not pull in the runner.
 */
#include "model/calibrate-machine.h"
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

int model_profile_programs(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
			   struct trace *traces, bool for_compare)
{
	int r = profile_programs(o, n, cmds, traces, for_compare);
	struct summary fault;
	struct errbuf err;
	double rest;

	for (size_t i = 0; r == 0 && i < n; i++)
		model_attach(&traces[i]);
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
