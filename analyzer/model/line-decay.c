#include "model/line-decay.h"

#include <math.h>
#include <stdlib.h>

#include "base/stats.h"
#include "base/util.h"

/*
 * What a line from memory costs the probe's chase: 90 to 120 ns here
 * (base/cacheprobe.h). A reading after 15 ms idle that is slower stands
 * for it; in a calm minute, whose readings stay near the hot one, this
 * floor keeps their small rises from reading as evicted lines.
 */
#define MEMORY_LINE_NS 100.0

double line_decay_interval_us(const struct trace *t)
{
	double *v = xcalloc(t->nrun + 1, sizeof *v), us;
	size_t n = 0;

	for (size_t i = 1; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i], *prev = &t->run[i - 1];
		if (trace_run_counted(r, true) && r->exec_ts > prev->exec_ts)
			v[n++] = trace_ticks_to_us(t, r->exec_ts - prev->exec_ts);
	}
	us = n ? median_picked(v, NULL, n, v) : NAN;
	free(v);
	return us;
}

/* The median over t's counted profiled runs of a probe reading: point -1 the hot one, 0 to
   CACHE_DECAY_POINTS - 1 the short spells', CACHE_DECAY_POINTS the state's own; 0 when none. */
static double run_median(const struct trace *t, int point)
{
	double *v = xcalloc(t->nrun + 1, sizeof *v), m;
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		double x = point < 0			? r->line_hot_ns
			   : point < CACHE_DECAY_POINTS ? r->decay_ns[point]
							: r->line_ns;
		if (trace_run_counted(r, true) && x > 0 && r->decay_ns[0] > 0)
			v[n++] = x;
	}
	m = n ? median_picked(v, NULL, n, v) : 0;
	free(v);
	return m;
}

double line_decay_surviving(const struct trace *t, double us)
{
	/* The spells in ms: 0 (hot), cache_decay_ms[], and the state's own. */
	double ms[CACHE_DECAY_POINTS + 2], gone[CACHE_DECAY_POINTS + 2];
	double hot = run_median(t, -1), mem, at = us / 1000;
	int n = CACHE_DECAY_POINTS + 2;

	if (!(hot > 0) || isnan(us))
		return NAN;
	mem = fmax(MEMORY_LINE_NS, run_median(t, CACHE_DECAY_POINTS));
	if (!(mem > 2 * hot)) /* a hot pass as slow as memory: no scale to read them on */
		return NAN;
	ms[0] = 0;
	gone[0] = 0;
	for (int i = 1; i < n; i++) {
		ms[i] = i <= CACHE_DECAY_POINTS ? cache_decay_ms[i - 1] : CACHE_PROBE_IDLE_MS;
		double f = (run_median(t, i - 1) - hot) / (mem - hot);
		gone[i] = fmax(gone[i - 1], fmin(1, fmax(0, f)));
	}
	if (at >= ms[n - 1])
		return 1 - gone[n - 1];
	int k = 1;
	while (ms[k] < at)
		k++;
	double w = (at - ms[k - 1]) / (ms[k] - ms[k - 1]);
	return 1 - (gone[k - 1] + w * (gone[k] - gone[k - 1]));
}
