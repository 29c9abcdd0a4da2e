/*
 * Unit tests for report.c's per-run breakdowns on a synthetic trace with
 * one run the shim missed: the report keeps a breakdown for every counted
 * profiled run, invalid ones flagged, each with its run's index, so that
 * renderers need not analyse a run again; the summaries and the resampled
 * runs still use the valid ones only. And the signal names.
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fake-trace.h"
#include "model/analyze.h"
#include "unit.h"

static void test_breakdowns(void)
{
	struct trace t;
	struct report rep;
	size_t valid[16], nvalid, profiled = 0;
	const size_t missed = 4; /* the third profiled run: runs alternate profiled, plain */

	fake_trace(&t, &(struct fake_opts){.runs = 6, .slow = 1});
	t.run[0].warmup = true;
	t.run[missed].shim_attached = false;
	t.run[missed].nev = 0;
	report_build(&t, &rep);
	CHECK(rep.runs == 5 && rep.valid_runs == 4);
	CHECK(rep.nbd == 5);
	for (size_t i = 0; i < t.nrun; i++) {
		const struct run_breakdown *bd = report_breakdown(&rep, i);
		bool counted = trace_run_counted(&t.run[i], true);
		CHECK(!bd == !counted);
		if (!bd)
			continue;
		profiled++;
		CHECK(bd->run == i);
		CHECK(bd->valid == (i != missed));
		/* The same figures as analysing the run afresh. */
		struct run_breakdown again = {0};
		analyze_run(&t, &t.run[i], &again);
		CHECK(again.valid == bd->valid);
		for (int p = 0; bd->valid && p < PH_COUNT; p++)
			CHECK(bd->phase_us[p] == again.phase_us[p]);
		for (uint32_t o = 0; bd->valid && o < t.nobj; o++)
			CHECK(isnan(bd->init_us[o]) ? isnan(again.init_us[o])
						    : bd->init_us[o] == again.init_us[o]);
		run_breakdown_free(&again);
	}
	CHECK(profiled == 5);
	CHECK(report_breakdown(&rep, t.nrun) == NULL);
	nvalid = report_valid_breakdowns(&rep, valid);
	CHECK(nvalid == 4);
	for (size_t k = 0; k < nvalid; k++)
		CHECK(rep.bd[valid[k]].valid && rep.bd[valid[k]].run != missed);
	for (size_t k = 1; k < nvalid; k++)
		CHECK(rep.bd[valid[k]].run > rep.bd[valid[k - 1]].run);
	report_free(&rep);
	trace_free(&t);
}

/*
 * The runs the relocation residual is held to: the calm ones under a
 * calibration priced calm, the contended ones under one priced contended
 * (model_coefs.contended_blocks_pct above half), all when too few.
 */
static void test_reloc_held(void)
{
	struct trace t;
	struct report rep;

	fake_trace(&t, &(struct fake_opts){.runs = 12});
	for (size_t i = 0, k = 0; i < t.nrun; i++) {
		if (!t.run[i].profiled)
			continue;
		t.run[i].line_hot_ns = 12;
		t.run[i].line_ns = k++ % 2 ? 100 : 13; /* 6 contended, 6 calm */
	}
	report_build(&t, &rep);
	CHECK(rep.cache.contended == 6 && rep.cache.reloc_calm.n == 6);
	CHECK(rep.reloc_measured_runs == RELOC_RUNS_CALM);
	CHECK(rep.reloc_measured_us == rep.cache.reloc_calm.median);
	report_free(&rep);

	t.model.contended_blocks_pct = 100;
	report_build(&t, &rep);
	CHECK(rep.reloc_measured_runs == RELOC_RUNS_CONTENDED);
	CHECK(rep.reloc_measured_us == rep.cache.reloc_contended.median);
	report_free(&rep);

	t.model.contended_blocks_pct = 50; /* half: still priced calm */
	report_build(&t, &rep);
	CHECK(rep.reloc_measured_runs == RELOC_RUNS_CALM);
	report_free(&rep);

	/* Too few contended runs for a contended calibration: the whole phase. */
	t.model.contended_blocks_pct = 100;
	for (size_t i = 0, k = 0; i < t.nrun; i++)
		if (t.run[i].profiled && t.run[i].line_ns == 100 && k++ >= 4)
			t.run[i].line_ns = 13;
	report_build(&t, &rep);
	CHECK(rep.cache.contended == 4);
	CHECK(rep.reloc_measured_runs == RELOC_RUNS_ALL);
	CHECK(rep.reloc_measured_us == rep.phase[PH_RELOCATE].median);
	report_free(&rep);
	trace_free(&t);
}

/* The one signal-name formatting, and describe_status on top of it. */
static void test_signal_names(void)
{
	char name[SIGNAL_NAME_MAX], *d;

	CHECK(signal_name(SIGSEGV, name) && !strcmp(name, "SIGSEGV"));
	CHECK(signal_name(SIGKILL, name) && !strcmp(name, "SIGKILL"));
	CHECK(!signal_name(1000, name) && !strcmp(name, "SIG?"));
	d = describe_status(SIGABRT | 0x80); /* a wait status: killed, core dumped */
	CHECK(!strcmp(d, "killed by SIGABRT (core dumped)"));
	free(d);
	d = describe_status(SIGTERM);
	CHECK(!strcmp(d, "killed by SIGTERM"));
	free(d);
	d = describe_status(3 << 8);
	CHECK(!strcmp(d, "exit status 3"));
	free(d);
}

int main(void)
{
	test_reloc_held();
	test_breakdowns();
	test_signal_names();
	return unit_done("report_test");
}
