/*
 * Unit tests for the shared cache's probe (base/cacheprobe.c) and for the
 * state the report derives from its readings (model/cache-state.c): which
 * runs were contended, the relocate phase apart in each state, and the
 * phase the model's residual is held to.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cacheprobe.h"
#include "model/analyze.h"
#include "model/cache-state.h"
#include "unit.h"

static void test_probe(void)
{
	struct cache_probe p;
	struct errbuf err;

	CHECK(cache_probe_init(&p, 64, &err) == -EINVAL);
	CHECK(cache_probe_init(&p, 256 * 1024, &err) == 0 && p.nlines == 4096);
	/* The chase is one cycle through every line: nlines steps come back to the start. */
	void **q = p.lines;
	size_t steps = 0;
	do {
		q = *q;
		steps++;
	} while (q != p.lines && steps <= p.nlines);
	CHECK(steps == p.nlines);
	double a = cache_probe_read(&p);
	struct cache_reading b = cache_probe_state(&p, 0);
	CHECK(a > 0 && a < 1e6 && b.idle_ns > 0 && b.idle_ns < 1e6 && b.hot_ns > 0);
	CHECK(cache_reading_contended(100, 12) && !cache_reading_contended(30, 12));
	CHECK(!cache_reading_contended(100, 0)); /* no hot reading: nothing to compare */
	cache_probe_fini(&p);
	CHECK(p.lines == NULL);
	/* In a child of its own, the launcher's memory untouched. */
	struct cache_reading c = {0};
	CHECK(cache_probe_isolated(256 * 1024, 0, &c, &err) == 0 && c.idle_ns > 0 && c.hot_ns > 0);
	CHECK(c.decay_ns[0] == 0); /* the short spells only when asked */
	CHECK(cache_probe_isolated(256 * 1024, 3, &c, &err) == 0);
	for (int i = 0; i < CACHE_DECAY_POINTS; i++)
		CHECK(c.decay_ns[i] > 0);
	CHECK(cache_probe_isolated(64, 0, &c, &err) != 0); /* the child's own failure comes back */
}

/* n counted profiled runs; run i reads line[i] ns (12 hot) and relocates in reloc[i] us. */
static void fake(struct trace *t, struct run_breakdown *bd, size_t n, const double *line,
		 const double *reloc)
{
	memset(t, 0, sizeof *t);
	t->run = calloc(n, sizeof *t->run);
	t->nrun = n;
	for (size_t i = 0; i < n; i++) {
		t->run[i].profiled = true;
		t->run[i].line_ns = line[i];
		t->run[i].line_hot_ns = line[i] > 0 ? 12 : 0;
		memset(&bd[i], 0, sizeof bd[i]);
		bd[i].run = i, bd[i].valid = true;
		for (int p = 0; p < PH_COUNT; p++)
			bd[i].phase_us[p] = NAN;
		bd[i].phase_us[PH_RELOCATE] = reloc[i];
	}
}

static void test_states(void)
{
	double line[8] = {12, 13, 100, 11, 14, 110, 12, 95};
	double reloc[8] = {2400, 2500, 3300, 2450, 2550, 3400, 2480, 3200};
	struct run_breakdown bd[8];
	struct trace t;
	struct cache_state cs;

	/* Hot at 12 ns: a reading above 36 ns was contended. */
	fake(&t, bd, 8, line, reloc);
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.probed == 8 && cs.contended == 3 && cs.hot_ns == 12);
	CHECK(cs.line_ns == 13.5 && cs.contended_line_ns == 100);
	CHECK(cs.reloc_calm.n == 5 && cs.reloc_calm.median == 2480);
	CHECK(cs.reloc_contended.n == 3 && cs.reloc_contended.median == 3300);
	CHECK(cache_state_held_reloc(&cs, false) == 2480);
	/* 3 contended runs: too few to hold a contended calibration to them. */
	CHECK(isnan(cache_state_held_reloc(&cs, true)));
	/* An invalid run counts in the state, not in the phases. */
	bd[0].valid = false;
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.contended == 3 && cs.reloc_calm.n == 4);
	/* Fewer than CACHE_CALM_MIN calm runs: the residual keeps the whole phase. */
	CHECK(isnan(cache_state_held_reloc(&cs, false)));
	free(t.run);

	/* Mostly contended: a calibration made so is held to the contended runs. */
	double most[8] = {100, 13, 100, 101, 14, 110, 102, 95};
	fake(&t, bd, 8, most, reloc);
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.contended == 6 && cs.reloc_contended.n == 6);
	CHECK(cache_state_held_reloc(&cs, true) == (2480 + 3200) / 2.0);
	CHECK(isnan(cache_state_held_reloc(&cs, false))); /* 2 calm runs */
	free(t.run);

	/* All contended, or none: no split. */
	double busy[8] = {100, 101, 102, 103, 104, 105, 106, 107};
	fake(&t, bd, 8, busy, reloc);
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.contended == 8 && cs.reloc_calm.n == 0 && isnan(cache_state_held_reloc(&cs, false)));
	CHECK(isnan(cache_state_held_reloc(&cs, true)));
	/*
	 * A tenant slowing every hot pass of the session too (here 40 ns): the
	 * calibration's fastest hot reading stands for the machine's own.
	 */
	for (size_t i = 0; i < 8; i++)
		t.run[i].line_hot_ns = 40;
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.hot_ns == 40 && cs.contended == 0);
	cache_state_build(&t, bd, 8, 11, &cs);
	CHECK(cs.hot_ns == 11 && cs.contended == 8);
	cache_state_build(&t, bd, 8, 60, &cs); /* a slower calibration changes nothing */
	CHECK(cs.hot_ns == 40 && cs.contended == 0);
	free(t.run);
	double calm[8] = {12, 13, 14, 15, 16, 17, 18, 19};
	fake(&t, bd, 8, calm, reloc);
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.contended == 0 && cs.reloc_calm.n == 8 && isnan(cache_state_held_reloc(&cs, false)));
	free(t.run);

	/* Never probed (an older trace): nothing. */
	double none[8] = {0};
	fake(&t, bd, 8, none, reloc);
	cache_state_build(&t, bd, 8, 0, &cs);
	CHECK(cs.probed == 0 && cs.contended == 0 && cs.line_ns == 0);
	CHECK(isnan(cache_state_held_reloc(&cs, false)));
	free(t.run);
}

int main(void)
{
	test_probe();
	test_states();
	return unit_done("cache_state_test");
}
