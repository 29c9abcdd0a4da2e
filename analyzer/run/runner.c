#include "run/runner.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/tsc.h"

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

void run_plan_defaults(struct run_plan *p)
{
	*p = (struct run_plan){
		.runs = 0,
		.warmup = 3,
		.min_runs = 20,
		.max_runs = 1000,
		.max_seconds = 3.0,
		.target_rel_ci = 0.01,
		.plain = true,
	};
}

size_t runner_counted(const struct trace *t, bool profiled)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++)
		n += trace_run_counted(&t->run[i], profiled);
	return n;
}

/* Is the median of the counted totals known to the target precision? */
static bool precise_enough(const struct trace *t, bool profiled, double target)
{
	size_t n = 0;
	double *v = xmalloc(t->nrun * sizeof *v);
	struct summary s;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (trace_run_counted(r, profiled))
			v[n++] = (double)(r->reap_ts - r->exec_ts);
	}
	summarize(v, n, &s);
	free(v);
	return ci_relative_halfwidth(&s) <= target;
}

static int one(struct launcher *l, bool profiled, bool warmup, struct trace *t, struct errbuf *err)
{
	struct trace_run *r = trace_add_run(t);
	int ret = launcher_run(l, profiled, t, r, err);

	r->warmup = warmup;
	if (ret) {
		free(r->ev); /* a run that never started is not a sample */
		t->nrun--;
	}
	return ret;
}

/* One round for one side: its profiled run, then its plain run. */
static int round_of(const struct runner_side *sd, const struct run_plan *p, bool warmup,
		    struct errbuf *err)
{
	int r = 0;

	if (sd->profiled)
		r = one(sd->l, true, warmup, sd->t, err);
	if (!r && (!sd->profiled || p->plain))
		r = one(sd->l, false, warmup, sd->t, err);
	return r;
}

static bool side_done(const struct runner_side *sd, const struct run_plan *p, uint64_t start)
{
	bool kind = sd->profiled && !p->adapt_on_plain;
	size_t n = runner_counted(sd->t, kind);

	if (p->runs)
		return n >= p->runs;
	if (n >= p->max_runs)
		return true;
	if (n < p->min_runs)
		return false;
	return (double)(mono_ns() - start) / 1e9 >= p->max_seconds ||
	       precise_enough(sd->t, kind, p->target_rel_ci);
}

int runner_execute_multi(struct runner_side *sides, size_t n, const struct run_plan *p,
			 bool *interrupted, struct errbuf *err)
{
	struct sigaction sa = {.sa_handler = on_sigint}, old;
	uint64_t start;
	int r = 0;

	got_sigint = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (unsigned long w = 0; w < p->warmup && !got_sigint && !r; w++)
		for (size_t i = 0; i < n && !r; i++)
			r = round_of(&sides[i], p, true, err);
	start = mono_ns();
	while (!r && !got_sigint) {
		bool done = true;
		for (size_t i = 0; i < n && !r; i++)
			r = round_of(&sides[i], p, false, err);
		for (size_t i = 0; i < n && !r; i++)
			done = done && side_done(&sides[i], p, start);
		if (done)
			break;
	}
	sigaction(SIGINT, &old, NULL);
	*interrupted = got_sigint;
	return r;
}
