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

void cache_state_build(const struct trace *t, const struct run_breakdown *bd, size_t nbd,
		       struct cache_state *cs)
{
	double *idle = xmalloc((nbd + 1) * sizeof *idle), *hot = xmalloc((nbd + 1) * sizeof *hot),
	       *calm = xmalloc((nbd + 1) * sizeof *calm), *busy = xmalloc((nbd + 1) * sizeof *busy);
	size_t ncalm = 0, nbusy = 0;

	memset(cs, 0, sizeof *cs);
	for (size_t i = 0; i < nbd; i++) {
		const struct trace_run *r = &t->run[bd[i].run];
		if (!(r->line_ns > 0))
			continue;
		bool contended = cache_reading_contended(r->line_ns, r->line_hot_ns);
		idle[cs->probed] = r->line_ns;
		hot[cs->probed++] = r->line_hot_ns;
		cs->contended += contended;
		if (bd[i].valid && !isnan(bd[i].phase_us[PH_RELOCATE])) {
			if (contended)
				busy[nbusy++] = bd[i].phase_us[PH_RELOCATE];
			else
				calm[ncalm++] = bd[i].phase_us[PH_RELOCATE];
		}
	}
	if (cs->probed) {
		cs->line_ns = median_of(idle, cs->probed);
		cs->hot_ns = median_of(hot, cs->probed);
	}
	summarize(calm, ncalm, &cs->reloc_calm);
	summarize(busy, nbusy, &cs->reloc_contended);
	free(idle);
	free(hot);
	free(calm);
	free(busy);
}

double cache_state_calm_reloc(const struct cache_state *cs)
{
	if (cs->contended && cs->reloc_calm.n >= CACHE_CALM_MIN)
		return cs->reloc_calm.median;
	return NAN;
}
