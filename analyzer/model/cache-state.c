#include "model/cache-state.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cacheprobe.h"
#include "model/analyze.h"

static double median_of(double *v, size_t n)
{
	struct summary s;

	summarize(v, n, &s);
	return s.median;
}

/* The fastest hot reading of the probed runs: the reference the idle ones are held to. */
static double fastest_hot(const struct trace *t, const struct run_breakdown *bd, size_t nbd)
{
	double f = INFINITY;

	for (size_t i = 0; i < nbd; i++) {
		const struct trace_run *r = &t->run[bd[i].run];
		if (r->line_ns > 0 && r->line_hot_ns > 0)
			f = fmin(f, r->line_hot_ns);
	}
	return isinf(f) ? 0 : f;
}

void cache_state_build(const struct trace *t, const struct run_breakdown *bd, size_t nbd,
		       double calib_hot_ns, struct cache_state *cs)
{
	size_t sz = (nbd + 1) * sizeof(double);
	double *idle = xmalloc(sz), *busy_idle = xmalloc(sz), *calm = xmalloc(sz), *busy = xmalloc(sz);
	size_t ncalm = 0, nbusy = 0;

	memset(cs, 0, sizeof *cs);
	cs->hot_ns = fastest_hot(t, bd, nbd);
	if (calib_hot_ns > 0 && (!cs->hot_ns || calib_hot_ns < cs->hot_ns))
		cs->hot_ns = calib_hot_ns;
	for (size_t i = 0; i < nbd; i++) {
		const struct trace_run *r = &t->run[bd[i].run];
		if (!(r->line_ns > 0))
			continue;
		bool contended = cache_reading_contended(r->line_ns, cs->hot_ns);
		idle[cs->probed++] = r->line_ns;
		if (contended)
			busy_idle[cs->contended] = r->line_ns;
		cs->contended += contended;
		if (bd[i].valid && !isnan(bd[i].phase_us[PH_RELOCATE])) {
			if (contended)
				busy[nbusy++] = bd[i].phase_us[PH_RELOCATE];
			else
				calm[ncalm++] = bd[i].phase_us[PH_RELOCATE];
		}
	}
	if (cs->probed)
		cs->line_ns = median_of(idle, cs->probed);
	if (cs->contended)
		cs->contended_line_ns = median_of(busy_idle, cs->contended);
	summarize(calm, ncalm, &cs->reloc_calm);
	summarize(busy, nbusy, &cs->reloc_contended);
	free(idle);
	free(busy_idle);
	free(calm);
	free(busy);
}

/*
 * The runs a residual is held to are those in one state of the shared
 * cache when at least CACHE_CALM_MIN of the probed ones ran in it and some
 * in the other; else all of them.
 */
static bool held_in_state(size_t in_state, size_t probed)
{
	return in_state >= CACHE_CALM_MIN && in_state < probed;
}

double cache_state_held_reloc(const struct cache_state *cs, bool contended)
{
	const struct summary *s = contended ? &cs->reloc_contended : &cs->reloc_calm;
	size_t in_state = contended ? cs->contended : cs->probed - cs->contended;

	return held_in_state(in_state, cs->probed) && s->n >= CACHE_CALM_MIN ? s->median : NAN;
}

/* What cache_state_runs_line_ns takes the median of: a run's reading, in one state or any. */
struct line_pick {
	double hot_ns;
	int contended; /* 0, 1, or -1: either */
};

static double run_line(const struct trace *t, const struct trace_run *r, const void *arg)
{
	const struct line_pick *p = arg;

	(void)t;
	if (!(r->line_ns > 0) ||
	    (p->contended >= 0 && cache_reading_contended(r->line_ns, p->hot_ns) != p->contended))
		return NAN;
	return r->line_ns;
}

double cache_state_runs_line_ns(const struct trace *t, double calib_hot_ns, bool contended)
{
	struct line_pick pick = {calib_hot_ns > 0 ? calib_hot_ns : INFINITY, contended};
	size_t n = 0, k = 0;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (trace_run_counted(r, true) && r->line_ns > 0 && r->line_hot_ns > 0)
			pick.hot_ns = fmin(pick.hot_ns, r->line_hot_ns);
	}
	if (isinf(pick.hot_ns))
		return 0;
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (trace_run_counted(r, true) && r->line_ns > 0) {
			n++;
			k += cache_reading_contended(r->line_ns, pick.hot_ns) == contended;
		}
	}
	if (!n)
		return 0;
	pick.contended = held_in_state(k, n) ? contended : -1;
	return trace_profiled_median(t, run_line, &pick);
}
