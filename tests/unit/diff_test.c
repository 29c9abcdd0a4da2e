/*
 * Unit tests for diff.c and timeline.c on synthetic traces: a slower build
 * with one more library is a significant regression with that library
 * added; a trace against itself changes nothing; --fail-above parses and
 * judges; the timeline nests and its own times add up to the run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/diff.h"
#include "fake-trace.h"
#include "model/timeline.h"
#include "unit.h"

static void test_threshold(void)
{
	struct diff_threshold th;

	CHECK(diff_parse_threshold("5%", &th) == 0 && th.set && th.relative && th.value == 5);
	CHECK(diff_parse_threshold("2.5", &th) == 0 && th.relative && th.value == 2.5);
	CHECK(diff_parse_threshold("150us", &th) == 0 && !th.relative && th.value == 150);
	CHECK(diff_parse_threshold("0.2ms", &th) == 0 && !th.relative &&
	      fabs(th.value - 200) < 1e-9);
	CHECK(diff_parse_threshold("-5%", &th) < 0);
	CHECK(diff_parse_threshold("0", &th) < 0);
	CHECK(diff_parse_threshold("5 %", &th) < 0);
	CHECK(diff_parse_threshold("five", &th) < 0);
	CHECK(diff_parse_threshold("5s", &th) < 0);
}

static const struct diff_lib *lib_named(const struct diff *d, const char *name)
{
	for (size_t i = 0; i < d->nlibs; i++)
		if (!strcmp(d->libs[i].name, name))
			return &d->libs[i];
	return NULL;
}

static void test_regression(void)
{
	struct trace a, b;
	struct report ra, rb;
	struct diff d;
	struct diff_threshold th;

	fake_trace(&a, &(struct fake_opts){.runs = 40, .slow = 1});
	fake_trace(&b, &(struct fake_opts){.runs = 40, .slow = 1.2, .extra_lib = true, .seed = 7});
	report_build(&a, &ra);
	report_build(&b, &rb);
	diff_parse_threshold("5%", &th);
	diff_build(&ra, &rb, &th, &d);
	CHECK(d.phases);
	CHECK(d.total.significant && d.total.change > 0 && d.total.lo > 0);
	CHECK(d.total.lo <= d.total.change && d.total.change <= d.total.hi);
	CHECK(d.regression);
	CHECK(d.phase[PH_INIT].significant && d.phase[PH_INIT].change > 250);
	const struct diff_lib *x = lib_named(&d, "libextra.so"), *l = lib_named(&d, "liba.so.1");
	CHECK(x && x->status == DIFF_ADDED && x->est.after > 300 && isnan(x->est.before));
	CHECK(l && l->status == DIFF_BOTH);
	CHECK(lib_named(&d, "prog") && lib_named(&d, "prog")->status == DIFF_BOTH);
	CHECK(!lib_named(&d, "ld-linux-x86-64.so.2")); /* not shown, as in the report */
	diff_free(&d);

	/* The other way round: an improvement, never a regression; the library was removed. */
	diff_build(&rb, &ra, &th, &d);
	CHECK(!d.regression && d.total.change < 0);
	CHECK(lib_named(&d, "libextra.so")->status == DIFF_REMOVED);
	diff_free(&d);

	/* An absolute threshold above the change. */
	diff_parse_threshold("10ms", &th);
	diff_build(&ra, &rb, &th, &d);
	CHECK(!d.regression && d.total.significant);
	diff_free(&d);
	report_free(&ra);
	report_free(&rb);
	trace_free(&a);
	trace_free(&b);
}

static void test_same(void)
{
	struct trace a;
	struct report ra;
	struct diff d;
	struct diff_threshold th;

	fake_trace(&a, &(struct fake_opts){.runs = 30, .slow = 1});
	report_build(&a, &ra);
	diff_parse_threshold("1%", &th);
	diff_build(&ra, &ra, &th, &d);
	CHECK(!d.regression && d.total.change == 0 && !d.total.significant);
	bool any = false;
	for (int p = 0; p < PH_COUNT; p++)
		any |= d.phase[p].significant;
	for (size_t i = 0; i < d.nlibs; i++)
		any |= d.libs[i].est.significant || d.libs[i].status != DIFF_BOTH;
	CHECK(!any);
	diff_free(&d);
	report_free(&ra);
	trace_free(&a);
}

/* Every slice inside its parent, and the own times add up to the run. */
static void test_timeline(void)
{
	struct trace t;
	struct report rep;
	struct timeline tl = {0};
	int64_t self = 0;
	bool nested = true;
	size_t phases = 0, inits = 0;

	fake_trace(&t, &(struct fake_opts){.runs = 5, .slow = 1, .extra_lib = true});
	report_build(&t, &rep);
	size_t m = median_run(&rep);
	CHECK(m < t.nrun && t.run[m].profiled);
	timeline_build(&rep, m, &tl);
	CHECK(tl.n > 0 && tl.s[0].kind == TL_RUN && tl.s[0].parent == SIZE_MAX);
	for (size_t i = 0; i < tl.n; i++) {
		const struct tl_slice *s = &tl.s[i];
		self += timeline_self_ns(&tl, i);
		phases += s->kind == TL_PHASE;
		inits += s->kind == TL_INIT;
		if (i == 0)
			continue;
		const struct tl_slice *p = &tl.s[s->parent];
		nested &= s->parent < i && p->start_ns <= s->start_ns && s->end_ns <= p->end_ns &&
			  s->depth == p->depth + 1;
		if (s->kind == TL_INIT)
			nested &= p->kind == TL_PHASE && p->phase == PH_INIT;
		if (s->kind == TL_FINI)
			nested &= p->kind == TL_PHASE && p->phase == PH_EXIT;
	}
	CHECK(nested);
	CHECK(phases == PH_COUNT && inits == 3);
	CHECK(self == tl.s[0].end_ns - tl.s[0].start_ns);
	CHECK(llabs(tl.s[0].end_ns - (int64_t)(t.run[m].reap_ts - t.run[m].exec_ts)) <= 1);
	timeline_free(&tl);
	report_free(&rep);
	trace_free(&t);
}

int main(void)
{
	test_threshold();
	test_regression();
	test_same();
	test_timeline();
	return unit_done("diff_test");
}
