#include "model/sched-state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void sched_state_build(const struct trace *t, bool profiled, struct sched_state *ss)
{
	size_t sz = (t->nrun + 1) * sizeof(double), npre = 0, nother = 0;
	double *pre = xmalloc(sz), *other = xmalloc(sz);

	memset(ss, 0, sizeof *ss);
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (r->warmup || r->usage.nivcsw < 0)
			continue;
		ss->runs++;
		ss->preempted += r->usage.nivcsw > 0;
		if (!trace_run_counted(r, profiled))
			continue;
		if (r->usage.nivcsw > 0)
			pre[npre++] = trace_run_us(t, r);
		else
			other[nother++] = trace_run_us(t, r);
	}
	summarize(pre, npre, &ss->total_preempted);
	summarize(other, nother, &ss->total_other);
	free(pre);
	free(other);
}

double sched_state_pct(const struct sched_state *ss)
{
	return ss->runs ? 100.0 * (double)ss->preempted / (double)ss->runs : 0;
}

/* The ratios of the counted runs of one kind that have their tree's CPU time. */
static size_t tree_ratios(const struct trace *t, bool profiled, double *v)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		double cpu = r->usage.tree_cpu_us;
		if (trace_run_counted(r, profiled) && isfinite(cpu) && cpu > 0)
			v[n++] = trace_run_us(t, r) / cpu;
	}
	return n;
}

void sched_tree_stretch(const struct trace *t, struct summary *s)
{
	double *v = xmalloc((t->nrun + 1) * sizeof *v);
	size_t n = tree_ratios(t, false, v);

	if (!n)
		n = tree_ratios(t, true, v);
	summarize(v, n, s);
	free(v);
}
