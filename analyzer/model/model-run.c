/*
 * Profiling with the cost model attached: the runs (run/profile.c), then
 * each trace's coefficients and counts. Apart from model.c, so that what
 * links the model alone (diff, the unit tests) does not pull in the runner.
 */
#include "model/calibrate-machine.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/exit.h"
#include "base/interrupt.h"
#include "model/calibrate-fork.h"
#include "model/calibrate-nss.h"
#include "model/calibrate-unwind.h"
#include "model/minimal-pair.h"
#include "model/model.h"
#include "base/cacheevict.h"
#include "model/static-side.h"
#include "run/fork-census.h"
#include "run/profile.h"
#include "run/runner.h"
#include "run/target.h"

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

/*
 * The rounds run each program after the others: what they move through the
 * caches between two of its runs evicts its lines as much as its own runs
 * do (a static program's, which the model does not count, aside).
 */
static void warm_lines(size_t n, struct trace *traces)
{
	size_t l2 = cache_l2_bytes();
	double all = 0;

	for (size_t i = 0; i < n; i++)
		all += model_reloc_footprint(&traces[i]);
	for (size_t i = 0; i < n; i++) {
		model_warm_lines(&traces[i], all - model_reloc_footprint(&traces[i]), l2);
		model_line_state(&traces[i]);
	}
}

/* --fixed-runs: the minimal pair's difference, measured now, for the verdict. */
static void fixed_apply(struct trace *t, const struct minimal_pair_cost *c, bool interleaved)
{
	if (t->is_static || !c->runs)
		return;
	t->fixed_cal_us = t->model.dynamic_fixed_us;
	t->fixed_runs = c->runs;
	t->fixed_interleaved = interleaved;
	t->model.dynamic_fixed_us = c->us;
	t->model.dynamic_fixed_lo = c->lo;
	t->model.dynamic_fixed_hi = c->hi;
}

/*
 * --fixed-runs unset: as many rounds as the program's runs, within these,
 * when the machine is calibrated (an uncalibrated verdict is a rough one
 * anyway, and the tests run uncalibrated). A round is four runs (a lead
 * and a timed one of the static program, a profiled and a plain one of the
 * dynamic), 12 to 19 ms here: 300 rounds add about 4 s. 100 give the fixed
 * cost's CI about 60 us wide, 1000 (calibrate's) +-5% to +-8%; the
 * verdict's interval carries it either way.
 */
#define FIXED_AUTO_MIN 100
#define FIXED_AUTO_MAX 300

/* Before the runs: 0, the rounds asked for, or PROFILE_FIXED_AUTO. */
static unsigned fixed_wanted(const struct profile_opts *o)
{
	struct model_coefs m;

	if (o->fixed_runs != PROFILE_FIXED_AUTO)
		return o->fixed_runs;
	if (o->follow)
		return 0;
	model_load(&m);
	return m.calibrated ? PROFILE_FIXED_AUTO : 0;
}

/* The first dynamic program of the sides, whose verdict wants the fixed cost. */
static const struct trace *first_dynamic(size_t n, const struct trace *traces)
{
	for (size_t i = 0; i < n; i++)
		if (!traces[i].is_static)
			return &traces[i];
	return NULL;
}

/* After the runs: the minimal pair built in dir, measured in so many rounds. */
static int measure_fixed(const struct profile_opts *o, unsigned want, const char *dir, size_t n,
			 const struct trace *traces, struct minimal_pair_cost *c)
{
	const struct trace *dyn = first_dynamic(n, traces);
	size_t rounds = want;

	if (!dyn || dyn->interrupted || interrupt_requested())
		return 0;
	if (want == PROFILE_FIXED_AUTO) {
		rounds = runner_counted(dyn, true);
		rounds = rounds < FIXED_AUTO_MIN ? FIXED_AUTO_MIN
			 : rounds > FIXED_AUTO_MAX ? FIXED_AUTO_MAX
						   : rounds;
	}
	return minimal_pair_measure(o, dir, (unsigned)rounds, c);
}

/* Whether a side is dynamic, resolved as profile_programs will (its errors are its own). */
static bool any_dynamic(size_t n, const struct profile_cmd *cmds)
{
	bool dyn = false;

	for (size_t i = 0; i < n && !dyn; i++) {
		struct target tg;
		struct errbuf err;
		if (!target_resolve(cmds[i].argv[0], &tg, &err)) {
			dyn = !tg.is_static;
			target_free(&tg);
		}
	}
	return dyn;
}

/*
 * compare, by default: the minimal pair in the same rounds as the programs,
 * A B pair-static pair-dynamic, so that it sees the machine as they do.
 * Measured after them, it once came out 560 us beside bash where the pairs
 * measured before and after found 373 to 442, and bash's verdict missed by
 * 29% (docs/model.md). traces[0..n) get the programs' traces, whatever the
 * outcome; c the pair's cost when the runs completed.
 */
static int profile_with_pair(const struct profile_opts *o, size_t n,
			     const struct profile_cmd *cmds, struct trace *traces, const char *dir,
			     struct minimal_pair_cost *c)
{
	struct profile_cmd *all = xcalloc(n + 2, sizeof *all);
	struct trace *t = xcalloc(n + 2, sizeof *t);
	char *argv[4];
	int r;

	minimal_pair_argv(dir, argv);
	memcpy(all, cmds, n * sizeof *all);
	all[n] = (struct profile_cmd){1, &argv[0]};
	all[n + 1] = (struct profile_cmd){1, &argv[2]};
	r = profile_programs(o, n + 2, all, t, true);
	if (!r && !t[n].interrupted)
		minimal_pair_cost_of(&t[n], &t[n + 1], c);
	memcpy(traces, t, n * sizeof *t);
	trace_free(&t[n]);
	trace_free(&t[n + 1]);
	free(t);
	free(all);
	free(argv[0]);
	free(argv[2]);
	return r;
}

/* Each object's mapped pages at the program's exit, by the file's real path. */
static void attach_mapped(struct trace *t, const struct fork_counts *c)
{
	for (size_t i = 0; i < t->nobj; i++) {
		struct trace_object *o = &t->obj[i];
		char *real = o->path ? realpath(o->path, NULL) : NULL;
		o->have_mapped = real != NULL;
		o->mapped_pages = 0;
		for (size_t k = 0; real && k < c->nmapped; k++)
			if (!strcmp(c->mapped[k].path, real))
				o->mapped_pages = c->mapped[k].pages;
		free(real);
	}
}

/*
 * After the timed runs, one run of each dynamic program under ptrace: the
 * forks of its own image, which its verdict prices. Not with -f (a
 * workload has no verdict), and not when the runs were cut short.
 */
static void count_forks(const struct profile_opts *o, size_t n, struct trace *traces)
{
	struct errbuf err;

	if (!o->fork_census || o->follow)
		return;
	for (size_t i = 0; i < n && !interrupt_requested(); i++) {
		struct trace *t = &traces[i];
		if (t->is_static || t->interrupted)
			continue;
		struct fork_counts c;
		/* The replay (model_attach) says whether it binds NSS functions. */
		bool nss = t->static_side.nss_calls > 0;
		if (fork_census(t->program, t->argv, o->timeout_s, nss, &c, &err)) {
			warn_msg("%s: its forks could not be counted (%s): the verdict leaves them "
				 "out",
				 t->program, err.msg);
			continue;
		}
		t->forks_counted = true;
		t->image_forks = c.forks;
		t->image_vforks = c.vforks;
		t->image_nss = c.nss;
		t->heap_seen = c.heap_seen;
		t->image_heap = c.heap;
		if (c.mapped_seen)
			attach_mapped(t, &c);
		fork_counts_free(&c);
	}
}

/*
 * What a trace did that a price measured after the runs is for: forked,
 * looked something up through NSS, unwound. Each is asked of every trace
 * before the measurement, and of each trace again before applying it.
 */
static bool forked(const struct trace *t)
{
	return t->forks_counted && t->image_forks;
}

static bool looked_up(const struct trace *t)
{
	return t->forks_counted && t->image_nss;
}

static bool unwound(const struct trace *t)
{
	return !t->is_static && static_side_unwound(t);
}

/* Whether any of the traces did it, and a calibrated run can measure its price now. */
static bool price_wanted(const char *dir, size_t n, const struct trace *traces,
			 bool (*did)(const struct trace *))
{
	bool any = false;

	for (size_t i = 0; i < n; i++)
		any |= did(&traces[i]);
	return any && dir && !interrupt_requested();
}

/*
 * When a program forked: the fork programs (model/calibrate-fork.h), built
 * and run now in the pair's directory, for the price in the machine's
 * present state. The calibration's moved from 69 to 149 us with libc alone
 * between calibrations an hour apart, and dar -V's verdict with it
 * (docs/model.md, "The forks"). 0, or -errno with err set.
 */
static int price_forks_now(const char *dir, size_t n, const struct trace *traces,
			   struct fork_price *now, bool *measured, struct errbuf *err)
{
	int r;

	if (!price_wanted(dir, n, traces, forked))
		return 0;
	if (!(r = fork_build(dir, err)))
		r = fork_measure(dir, false, now, err);
	*measured = !r;
	return r;
}

static void fork_price_apply(struct trace *t, const struct fork_price *now)
{
	if (!forked(t))
		return;
	t->fork_price_now = true;
	fork_price_store(now, &t->model);
}

/*
 * When one of a program's processes looked something up through NSS (the
 * census saw it): the NSS pair (model/calibrate-nss.h), built and run now
 * in the pair's directory. The calibration's price moved from 115 to 147
 * us between calibrations hours apart (docs/model.md, "The first
 * allocation"), a tenth of zsh's saving. About 2 s. 0, or -errno with err
 * set.
 */
static int price_nss_now(const struct profile_opts *o, const char *dir, size_t n,
			 const struct trace *traces, double *now, bool *measured,
			 struct errbuf *err)
{
	int r;

	if (!price_wanted(dir, n, traces, looked_up))
		return 0;
	if (!(r = nss_build(dir, err)))
		r = nss_measure(o, dir, false, now, err);
	*measured = !r;
	return r;
}

static void nss_price_apply(struct trace *t, double now)
{
	if (!looked_up(t))
		return;
	t->nss_price_now = true;
	/* 0: the calibration has no price of its own (model-coefs.h). */
	t->nss_cal_us = t->model.nss_builtin ? 0 : t->model.nss_us;
	t->model.nss_us = now;
}

/*
 * When a program unwound (a C++ throw in its runs): the unwind pair
 * (model/calibrate-unwind.h), built and run now in the pair's directory,
 * for what a static build's first unwind costs in the machine's present
 * state. The calibration's passes moved from 0.0178 to 0.0260 us per
 * n log2 n within one calibration, and dar -V's verdict by 900 us with it
 * (docs/model.md, "The first unwind, priced after the runs"). 300 runs of
 * each: about 1 s, and 4 s to build. 0, or -errno with err set.
 */
#define UNWIND_NOW_RUNS 300
static int price_unwind_now(const struct profile_opts *o, const char *dir, size_t n,
			    const struct trace *traces, struct model_coefs *now, bool *measured,
			    struct errbuf *err)
{
	struct unwind_prices up = {0};
	char *prog;
	int r;

	if (!price_wanted(dir, n, traces, unwound))
		return 0;
	if ((r = unwind_build(dir, false, err)))
		return r;
	prog = xasprintf("%s/unwind-static", dir);
	r = unwind_measure(o, UNWIND_NOW_RUNS, prog, &up, err);
	free(prog);
	if (!r && !up.n)
		r = set_err(err, ERANGE,
			    up.busy ? "the machine was busy, and too few of the unwind pair's runs "
				      "escaped preemption"
				    : "the unwind pair's difference was not above zero");
	if (!r) {
		unwind_prices_apply(&up, UNWIND_FUNCS, now);
		*measured = true;
	}
	return r;
}

static void unwind_price_apply(struct trace *t, const struct model_coefs *now)
{
	struct model_coefs *m = &t->model;

	if (!unwound(t))
		return;
	t->unwind_price_now = true;
	t->unwind_cal_price = m->fde_sort_us;
	/*
	 * One pass's CI is narrow; the calibration's passes spread over
	 * minutes, as runs do: their range, relative to their median, widens it.
	 */
	if (m->fde_sort_us > 0 && m->fde_sort_lo > 0 && m->fde_sort_hi > 0) {
		m->fde_sort_lo =
			fmin(now->fde_sort_lo, now->fde_sort_us * m->fde_sort_lo / m->fde_sort_us);
		m->fde_sort_hi =
			fmax(now->fde_sort_hi, now->fde_sort_us * m->fde_sort_hi / m->fde_sort_us);
	} else {
		m->fde_sort_lo = now->fde_sort_lo;
		m->fde_sort_hi = now->fde_sort_hi;
	}
	m->fde_sort_us = now->fde_sort_us;
}

int model_profile_programs(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
			   struct trace *traces, bool for_compare)
{
	struct fork_price fork_now;
	struct model_coefs unwind_now;
	double nss_now;
	bool fork_measured = false, unwind_measured = false, nss_measured = false;
	struct minimal_pair_cost fixed = {0};
	unsigned want = fixed_wanted(o);
	struct summary fault;
	struct errbuf err;
	char *dir = NULL;
	bool inline_pair = false;
	double rest;
	int r;

	if (want && want != PROFILE_FIXED_AUTO && (o->follow || want < 20)) {
		error_msg("--fixed-runs: %s", o->follow ? "not available with -f (no verdict for a "
							  "workload)"
							: "want 0, or 20 runs or more");
		return EXIT_USAGE;
	}
	/* One Ctrl-C scope from the pair's build to its removal: no signal leaves it behind. */
	interrupt_begin();
	/* Built before the runs, so that a pair that cannot be built fails first. */
	if (want && (r = minimal_pair_make(&dir, &err))) {
		if (r == -EINTR || want != PROFILE_FIXED_AUTO) {
			error_msg("--fixed-runs: the minimal pair: %s", err.msg);
			r = r == -EINTR ? 130 : EXIT_FAIL;
			goto out;
		}
		warn_msg("the fixed cost of being dynamic cannot be measured now (the minimal "
			 "pair: %s): the verdict uses the calibration's",
			 err.msg);
	}
	inline_pair = for_compare && dir && want == PROFILE_FIXED_AUTO && !o->sample &&
		      any_dynamic(n, cmds);
	if (inline_pair)
		r = profile_with_pair(o, n, cmds, traces, dir, &fixed);
	else
		r = profile_programs(o, n, cmds, traces, for_compare);
	/* Else right after the program's runs, in the same state of the machine. */
	if (!r && dir &&
	    (inline_pair ? !fixed.runs || interrupt_requested()
			 : measure_fixed(o, want, dir, n, traces, &fixed) || interrupt_requested())) {
		warn_msg(
			"the fixed cost of being dynamic could not be measured%s: the verdict uses "
			"the calibration's",
			interrupt_requested() ? " (interrupted)" : "");
		fixed.runs = 0;
	}
	for (size_t i = 0; r == 0 && i < n; i++)
		model_attach(&traces[i]);
	if (r == 0)
		warm_lines(n, traces);
	if (r == 0)
		count_forks(o, n, traces);
	if (r == 0 && price_forks_now(dir, n, traces, &fork_now, &fork_measured, &err))
		warn_msg("the price of a fork could not be measured now (%s): the verdict uses the "
			 "calibration's",
			 err.msg);
	if (r == 0 && price_nss_now(o, dir, n, traces, &nss_now, &nss_measured, &err))
		warn_msg("the price of a first lookup through NSS could not be measured now (%s): "
			 "the verdict uses %s",
			 err.msg,
			 traces[0].model.nss_builtin ? "the built-in one (the calibration has none)"
						     : "the calibration's");
	if (r == 0 && price_unwind_now(o, dir, n, traces, &unwind_now, &unwind_measured, &err))
		warn_msg("the price of a static build's first unwind could not be measured now "
			 "(%s): the verdict uses the calibration's",
			 err.msg);
	for (size_t i = 0; r == 0 && i < n; i++) {
		fixed_apply(&traces[i], &fixed, inline_pair);
		if (fork_measured)
			fork_price_apply(&traces[i], &fork_now);
		if (unwind_measured)
			unwind_price_apply(&traces[i], &unwind_now);
		if (nss_measured)
			nss_price_apply(&traces[i], nss_now);
	}
	/* What a page fault costs now, for the verdict to compare with the calibration's. */
	if (r == 0 && !interrupt_requested() && !machine_fault_cost(15, &fault, &rest, NULL, &err))
		for (size_t i = 0; i < n; i++)
			traces[i].fault_us_now = fault.median;
out:
	if (dir)
		minimal_pair_remove(dir);
	interrupt_end();
	return r;
}

int model_profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t)
{
	struct profile_cmd c = {argc, argv};

	return model_profile_programs(o, 1, &c, t, false);
}
