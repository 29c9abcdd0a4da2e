#include "model/line-decay.h"

#include <math.h>

/*
 * What a line from memory costs the probe's chase: 90 to 120 ns here
 * (base/cacheprobe.h). A reading after 15 ms idle that is slower stands
 * for it; in a calm minute, whose readings stay near the hot one, this
 * floor keeps their small rises from reading as evicted lines.
 */
#define MEMORY_LINE_NS 100.0

/* The gap from the run before r (of either kind) to r, in us; NAN for the first. */
static double run_gap_us(const struct trace *t, const struct trace_run *r, const void *arg)
{
	(void)arg;
	if (r == t->run || r->exec_ts <= r[-1].exec_ts)
		return NAN;
	return trace_ticks_to_us(t, r->exec_ts - r[-1].exec_ts);
}

double line_decay_interval_us(const struct trace *t)
{
	return trace_profiled_median(t, run_gap_us, NULL);
}

/* A run's probe reading *(int *)point: -1 the hot one, 0 to CACHE_DECAY_POINTS - 1 the
   short spells', CACHE_DECAY_POINTS the state's own; NAN when its label has no short spells. */
static double run_reading(const struct trace *t, const struct trace_run *r, const void *point)
{
	int p = *(const int *)point;
	double x = p < 0 ? r->line_hot_ns : p < CACHE_DECAY_POINTS ? r->decay_ns[p] : r->line_ns;

	(void)t;
	return x > 0 && r->decay_ns[0] > 0 ? x : NAN;
}

/* The median over t's counted profiled runs of that reading; 0 when none has it. */
static double run_median(const struct trace *t, int point)
{
	double m = trace_profiled_median(t, run_reading, &point);

	return isnan(m) ? 0 : m;
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
