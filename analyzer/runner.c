#include "runner.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tsc.h"

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
		.profiled = true,
		.plain = true,
	};
}

size_t runner_counted(const struct trace *t, bool profiled)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++)
		n += !t->run[i].warmup && t->run[i].profiled == profiled;
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
		if (!r->warmup && r->profiled == profiled)
			v[n++] = (double)(r->reap_ts - r->exec_ts);
	}
	summarize(v, n, &s);
	free(v);
	return ci_relative_halfwidth(&s) <= target;
}

static int one(struct launcher *l, bool profiled, bool warmup, struct trace *t,
	       struct errbuf *err)
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

static int pair(struct launcher *l, const struct run_plan *p, bool warmup, struct trace *t,
		struct errbuf *err)
{
	int r = one(l, p->profiled, warmup, t, err);

	if (!r && p->profiled && p->plain)
		r = one(l, false, warmup, t, err);
	return r;
}

int runner_execute(struct launcher *l, const struct run_plan *p, struct trace *t,
		   bool *interrupted, struct errbuf *err)
{
	struct sigaction sa = {.sa_handler = on_sigint}, old;
	uint64_t start;
	int r = 0;

	got_sigint = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (unsigned long w = 0; w < p->warmup && !got_sigint && !r; w++)
		r = pair(l, p, true, t, err);
	start = mono_ns();
	while (!r && !got_sigint) {
		if ((r = pair(l, p, false, t, err)))
			break;
		size_t n = runner_counted(t, p->profiled);
		if (p->runs) {
			if (n >= p->runs)
				break;
			continue;
		}
		if (n >= p->max_runs)
			break;
		if (n < p->min_runs)
			continue;
		if ((double)(mono_ns() - start) / 1e9 >= p->max_seconds ||
		    precise_enough(t, p->profiled, p->target_rel_ci))
			break;
	}
	sigaction(SIGINT, &old, NULL);
	*interrupted = got_sigint;
	return r;
}
