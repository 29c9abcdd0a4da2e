/*
 * Unit tests for --sample's data: samples are placed in their phase by
 * their time against the run's own milestones; self, total (once per
 * sample, recursion included) and the most frequent caller are counted
 * per phase, over every sampled run, those without a sample too; sampled
 * runs never enter the timing; the SAMPLES section
 * survives the round trip (the same JSON report, byte for byte), and a
 * damaged one (a frame index beyond the frames, a sample of a run that was
 * not sampled, a second section) is refused; folded frames never hold a
 * ';'; perf's clock maps to ticks at the session's rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-trace.h"
#include "model/samples.h"
#include "render/render.h"
#include "render/samples.h"
#include "run/sample.h"
#include "trace/tracefile-sections.h"
#include "trace/tracefile.h"
#include "unit.h"

static char *report_json(const struct trace *t)
{
	struct report rep;
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	report_build(t, &rep);
	render_json(f, &rep);
	fclose(f);
	report_free(&rep);
	return s;
}

/* The timestamp of run r's first event of type. */
static uint64_t ts_of(const struct trace_run *r, uint16_t type)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].type == type)
			return r->ev[i].ts;
	return 0;
}

/* A copy of profiled run `from` appended as a sampled run; its index. */
static uint32_t add_sampled_run(struct trace *t, size_t from)
{
	struct trace_run *r = trace_add_run(t), *src = &t->run[from];

	r->profiled = r->shim_attached = true;
	r->sampled = r->warmup = true;
	r->exec_ts = src->exec_ts;
	r->reap_ts = src->reap_ts;
	for (size_t i = 0; i < src->nev; i++)
		trace_add_event(r, &src->ev[i]);
	return (uint32_t)(t->nrun - 1);
}

/*
 * Frames: 0 leaf_fn, 1 mid, 2 outer, 3 "odd;name". Per sampled run: exec
 * gets [leaf_fn, mid, outer] twice and [mid, outer] once; init gets
 * [leaf_fn, leaf_fn, mid] (recursion) once; main gets ["odd;name"] once.
 */
static void add_samples(struct trace *t, uint32_t run)
{
	struct trace_sampling *s = t->sampling;
	const struct trace_run *r = &t->run[run];
	uint32_t leaf = sampling_frame(s, "leaf_fn", "/lib/liba.so.1", 0, FRAME_SYMTAB);
	uint32_t mid = sampling_frame(s, "mid", "/lib/liba.so.1", 0, FRAME_DYNSYM);
	uint32_t outer = sampling_frame(s, "outer", "/bin/prog", 0, FRAME_SYMTAB);
	uint32_t odd = sampling_frame(s, "odd;name", "/bin/prog", 0, FRAME_SYMTAB);
	uint64_t exec = ts_of(r, LDPROF_REC_VERSION) - 5, init = ts_of(r, LDPROF_REC_INIT_END) - 5;
	uint64_t main_ts = ts_of(r, LDPROF_REC_EXIT_CALL) - 5;

	sampling_add(s, run, 1, exec, (uint32_t[]){leaf, mid, outer}, 3);
	sampling_add(s, run, 1, exec, (uint32_t[]){leaf, mid, outer}, 3);
	sampling_add(s, run, 1, exec, (uint32_t[]){mid, outer}, 2);
	sampling_add(s, run, 1, init, (uint32_t[]){leaf, leaf, mid}, 3);
	sampling_add(s, run, 1, main_ts, (uint32_t[]){odd}, 1);
	s->runs++;
}

static void sampled_trace(struct trace *t)
{
	fake_trace(t, &(struct fake_opts){.runs = 20, .slow = 1});
	t->sampling = sampling_new(20000);
	for (size_t i = 0; i < 4; i++)
		add_samples(t, add_sampled_run(t, 2 * i));
}

static const struct sample_fn *fn_named(const struct sample_report *sr, int p, const char *name)
{
	for (size_t i = 0; i < sr->ph[p].nfn; i++)
		if (!strcmp(sr->s->frame[sr->ph[p].fn[i].frame].name, name))
			return &sr->ph[p].fn[i];
	return NULL;
}

static void test_phases_and_counts(void)
{
	struct trace t;
	struct report rep;

	sampled_trace(&t);
	report_build(&t, &rep);
	const struct sample_report *sr = rep.samples;
	CHECK(rep.runs == 20 && rep.warmup_runs == 0); /* the sampled runs are not timed */
	CHECK(sr && sr->runs == 4 && sr->samples == 20 && sr->unplaced == 0);
	CHECK(sr->ph[PH_EXEC].n == 12 && sr->ph[PH_INIT].n == 4 && sr->ph[PH_MAIN].n == 4);
	CHECK(sr->ph[PH_LOAD].n == 0 && sr->ph[PH_COUNT].n == 20);
	const struct sample_fn *leaf = fn_named(sr, PH_EXEC, "leaf_fn");
	const struct sample_fn *mid = fn_named(sr, PH_EXEC, "mid");
	CHECK(leaf && leaf->self == 8 && leaf->total == 8);
	CHECK(mid && mid->self == 4 && mid->total == 12);
	CHECK(leaf && !strcmp(sr->s->frame[leaf->caller].name, "mid"));
	CHECK(sr->ph[PH_EXEC].fn[0].frame == leaf->frame); /* by self, descending */
	CHECK(sr->ph[PH_EXEC].nst == 2 && sr->ph[PH_EXEC].st[0].count == 8);
	leaf = fn_named(sr, PH_INIT, "leaf_fn");
	CHECK(leaf && leaf->self == 4 && leaf->total == 4); /* recursion counts once */
	CHECK(leaf && !strcmp(sr->s->frame[leaf->caller].name, "leaf_fn"));
	/* 12 samples of 20 us over 4 runs: 60 us of user time per run in exec. */
	CHECK_NEAR(sr->ph[PH_EXEC].sampled_us, 60.0, 1e-9);
	CHECK_NEAR(samples_share(&sr->ph[PH_EXEC], leaf ? 8 : 0), 100.0 * 8 / 12, 1e-9);
	report_free(&rep);
	trace_free(&t);
}

/* A sampled run in which no sample fell still ran: it counts in the time per run. */
static void test_run_without_samples(void)
{
	struct trace t;
	struct report rep;

	sampled_trace(&t);
	add_sampled_run(&t, 0);
	t.sampling->runs++;
	report_build(&t, &rep);
	CHECK(rep.samples->runs == 5 && rep.samples->ph[PH_EXEC].n == 12);
	CHECK_NEAR(rep.samples->ph[PH_EXEC].sampled_us, 12 * 20.0 / 5, 1e-9);
	report_free(&rep);
	trace_free(&t);
}

static void test_timing_unchanged(void)
{
	struct trace t, u;

	sampled_trace(&t);
	fake_trace(&u, &(struct fake_opts){.runs = 20, .slow = 1});
	struct report a, b;
	report_build(&t, &a);
	report_build(&u, &b);
	CHECK(a.runs == b.runs && a.plain_runs == b.plain_runs);
	CHECK(a.total.median == b.total.median && a.total.n == b.total.n);
	for (int p = 0; p < PH_COUNT; p++)
		CHECK(a.phase[p].median == b.phase[p].median ||
		      (isnan(a.phase[p].median) && isnan(b.phase[p].median)));
	report_free(&a);
	report_free(&b);
	trace_free(&t);
	trace_free(&u);
}

static void test_roundtrip(void)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;

	sampled_trace(&t);
	tracefile_encode(&t, &b);
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == 0);
	CHECK(u.sampling && u.sampling->n == t.sampling->n && u.sampling->nframe == 4);
	CHECK(u.sampling->period_ns == 20000 && u.sampling->runs == 4);
	CHECK(u.nrun == t.nrun && u.run[t.nrun - 1].sampled && u.run[t.nrun - 1].warmup);
	CHECK(u.sampling->frame[1].source == FRAME_DYNSYM);
	char *x = report_json(&t), *y = report_json(&u);
	CHECK(x && y && !strcmp(x, y));
	CHECK(x && strstr(x, "\"odd;name\""));
	free(x);
	free(y);
	bb_free(&b);
	trace_free(&u);
	trace_free(&t);
}

/* Encode t after hurt() damaged it: the file must be refused as damaged. */
static void refused_after(void (*hurt)(struct trace *), const char *what)
{
	struct trace t, u;
	struct bbuf b = {0};
	struct tracefile_info info;
	struct errbuf err;

	sampled_trace(&t);
	hurt(&t);
	tracefile_encode(&t, &b);
	int r = tracefile_decode(b.p, b.len, &u, &info, &err);
	CHECK(r == -EPROTO);
	if (r != -EPROTO)
		fprintf(stderr, "  %s: %d\n", what, r);
	CHECK(strstr(err.msg, "SAMPLES") != NULL);
	bb_free(&b);
	trace_free(&u);
	trace_free(&t);
}

static void frame_beyond(struct trace *t)
{
	t->sampling->chain[3] = 4; /* there are 4 frames: 0..3 */
}

static void run_not_sampled(struct trace *t)
{
	t->sampling->s[2].run = 0;
}

static void too_many_frames(struct trace *t)
{
	t->sampling->s[0].len = SAMPLE_MAX_FRAMES + 1;
	uint32_t *fr = calloc(SAMPLE_MAX_FRAMES + 1, sizeof *fr);
	t->sampling->s[0].first = (uint32_t)t->sampling->nchain;
	for (size_t i = 0; i <= SAMPLE_MAX_FRAMES; i++) {
		GROW(t->sampling->chain, t->sampling->capchain, t->sampling->nchain);
		t->sampling->chain[t->sampling->nchain++] = fr[i];
	}
	free(fr);
}

static void test_damage(void)
{
	refused_after(frame_beyond, "a frame index beyond the frames");
	refused_after(run_not_sampled, "a sample of a run not sampled");
	refused_after(too_many_frames, "a stack longer than the limit");
}

static void test_second_section(void)
{
	struct trace t, u;
	struct bbuf b = {0}, p = {0};
	struct tracefile_info info;
	struct errbuf err;

	sampled_trace(&t);
	tracefile_encode(&t, &b);
	/* Drop the END section (32-byte header, then its frame), add SAMPLES again, then END. */
	struct bbuf end = {0};
	tracefile_put_section(&end, TF_SEC_END, 0, &p);
	b.len -= end.len;
	tf_encode_samples(&t, &p);
	tracefile_put_section(&b, TF_SEC_SAMPLES, 0, &p);
	tracefile_put_section(&b, TF_SEC_END, 0, &p);
	CHECK(tracefile_decode(b.p, b.len, &u, &info, &err) == -EPROTO);
	CHECK(strstr(err.msg, "second SAMPLES") != NULL);
	bb_free(&end);
	bb_free(&b);
	trace_free(&u);
	trace_free(&t);
}

static void test_folded(void)
{
	struct trace t;
	struct report rep;
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	sampled_trace(&t);
	report_build(&t, &rep);
	render_folded(f, &rep, false);
	fclose(f);
	CHECK(s && strstr(s, "exec;outer;mid;leaf_fn 8\n"));
	CHECK(s && strstr(s, "exec;outer;mid 4\n"));
	CHECK(s && strstr(s, "init;mid;leaf_fn;leaf_fn 4\n"));
	CHECK(s && strstr(s, "main;odd_name 4\n") && !strstr(s, "odd;name"));
	free(s);
	report_free(&rep);
	trace_free(&t);
}

static void test_clock(void)
{
	struct sampler s = {0};

	/* 3 ticks per ns over the session; the run started at tick 3000, ns 1000. */
	s.cal_tsc = 0, s.cal_ns = 0;
	s.start_tsc = 3000, s.start_ns = 1000;
	CHECK(sampler_ns_to_ticks(&s, 2000, 30000, 10000) == 6000);
	CHECK(sampler_ns_to_ticks(&s, 1000, 30000, 10000) == 3000);
}

int main(void)
{
	test_phases_and_counts();
	test_run_without_samples();
	test_timing_unchanged();
	test_roundtrip();
	test_damage();
	test_second_section();
	test_folded();
	test_clock();
	return unit_done("samples_test");
}
