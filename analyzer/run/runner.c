#include "run/runner.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cacheprobe.h"
#include "base/interrupt.h"
#include "base/stats.h"
#include "base/tsc.h"

void run_plan_defaults(struct run_plan *p)
{
	/* warmup, min_runs, max_seconds and the target: run_plan_resolve's. */
	*p = (struct run_plan){
		.runs = 0,
		.warmup = RUN_PLAN_UNSET,
		.max_runs = 1000,
		.plain = true,
	};
}

void run_plan_resolve(struct run_plan *p, bool follow)
{
	/* A workload runs long: fewer runs, a looser target, a longer budget. */
	if (p->warmup == RUN_PLAN_UNSET)
		p->warmup = follow ? 1 : 3;
	if (!p->min_runs)
		p->min_runs = follow ? 3 : 20;
	if (!(p->max_seconds > 0))
		p->max_seconds = follow ? 10.0 : 3.0;
	if (!(p->target_rel_ci > 0))
		p->target_rel_ci = follow ? 0.02 : 0.01;
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

/* Forget the run just added. */
static void drop_last(struct trace *t)
{
	struct trace_run *r = &t->run[t->nrun - 1];

	free(r->ev);
	if (r->tree) {
		run_tree_free(r->tree);
		free(r->tree);
	}
	memset(r, 0, sizeof *r);
	t->nrun--;
}

/*
 * --cold-cache: empty the caches before a run. A helper that is gone (the
 * OOM killer's first choice: it is the largest process) ends the runs as
 * Ctrl-C does, with the runs made so far kept: -ECANCELED, ev->lost set.
 */
static int sweep(struct cache_evictor *ev)
{
	if (!ev || ev->lost)
		return ev ? -ECANCELED : 0;
	if (cache_evictor_sweep(ev, &ev->why)) {
		ev->lost = true;
		return -ECANCELED;
	}
	return 0;
}

static int one(struct launcher *l, bool profiled, bool warmup, struct trace *t,
	       struct cache_evictor *ev, struct errbuf *err)
{
	int ret = sweep(ev);
	if (ret)
		return ret;
	struct trace_run *r = trace_add_run(t);
	ret = launcher_run(l, profiled, t, r, err);

	r->warmup = warmup;
	/*
	 * A run that never started, that Ctrl-C cut short, or that stopped
	 * for the terminal is not a sample.
	 */
	if (ret)
		drop_last(t);
	return ret == -EAGAIN ? 0 : ret;
}

/*
 * --sample: a sampled run, uncounted. When the kernel refuses the event,
 * no run was made: the reason goes to the trace and sampling stops.
 */
static int sampled(struct launcher *l, struct trace *t, struct cache_evictor *ev,
		   struct errbuf *err)
{
	int ret = sweep(ev);
	if (ret)
		return ret;
	struct trace_run *r = trace_add_run(t);
	ret = launcher_run_sampled(l, t, r, (uint32_t)(t->nrun - 1), err);

	r->warmup = true; /* never in the timing */
	if (!ret)
		return 0;
	drop_last(t);
	if (l->sample_refused) {
		t->sampling->refused = xstrdup(err->msg);
		return 0;
	}
	return ret == -EAGAIN ? 0 : ret;
}

/* The sampled runs a side is owed: one per sample_every counted rounds, rounded up. */
static size_t samples_owed(const struct runner_side *sd, const struct run_plan *p)
{
	const struct trace_sampling *s = sd->t->sampling;

	if (!p->sample_every || !sd->profiled || !s || s->refused)
		return 0;
	size_t want = (runner_counted(sd->t, true) + p->sample_every - 1) / p->sample_every;
	return want > s->runs ? want - s->runs : 0;
}

/*
 * After the timed rounds, the sampled runs, side by side. Not interleaved
 * with the timed runs: for about a second after its last perf event closes,
 * the kernel keeps its context-switch hooks on (perf_sched_events, turned
 * off by delayed work), which made the timed runs of the sample shell 8%
 * slower when every other round was sampled (docs/design.md).
 */
static int sample_rounds(struct runner_side *sides, size_t n, const struct run_plan *p,
			 struct cache_evictor *ev, struct errbuf *err)
{
	int r = 0;
	bool more = true;

	while (!r && more && !interrupt_requested()) {
		more = false;
		for (size_t i = 0; i < n && !r; i++)
			if (samples_owed(&sides[i], p)) {
				r = sampled(sides[i].l, sides[i].t, ev, err);
				more = true;
			}
	}
	return r;
}

/*
 * A run that only puts the machine in the state its program leaves: made
 * and dropped, neither counted nor kept (a failure still ends the runs).
 */
static int lead_run(struct launcher *l, struct trace *t, struct errbuf *err)
{
	struct trace_run *r = trace_add_run(t);
	int ret = launcher_run(l, false, t, r, err);

	drop_last(t);
	return ret == -EAGAIN ? 0 : ret;
}

/*
 * One round for one side: its profiled run, then its plain run. So a
 * dynamic side's timed run follows a run of its own program; a side with
 * no profiled run (a static program) beside one that has them gets a lead
 * run first, so that its timed run does too, not the other program's
 * (lead). Without it bash-static's timed runs followed dynamic bash's
 * two, and bash's saving measured 257 to 318 us, against 404 to 474 with
 * either program after itself or each after the other (a harness of our
 * own, timing as ldprof does, 600 rounds an order: docs/model.md). With
 * --cold-cache every run starts swept, and no lead run is made.
 */
static int round_of(const struct runner_side *sd, const struct run_plan *p, bool warmup,
		    bool lead, struct cache_evictor *ev, struct errbuf *err)
{
	int r = 0;

	if (sd->profiled)
		r = one(sd->l, true, warmup, sd->t, ev, err);
	else if (lead && !ev)
		r = lead_run(sd->l, sd->t, err);
	if (!r && (!sd->profiled || p->plain))
		r = one(sd->l, false, warmup, sd->t, ev, err);
	return r;
}

/* Whether a side without profiled runs needs lead runs (round_of): another side has them. */
static bool needs_lead(const struct runner_side *sides, size_t n, const struct run_plan *p)
{
	if (!p->plain || n < 2)
		return false;
	for (size_t i = 0; i < n; i++)
		if (sides[i].profiled)
			return true;
	return false;
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

/* The first line of the profiled stderr that a plain run does not print. */
static char *first_new_line(const char *prof, const char *plain)
{
	for (const char *line = prof; line && *line;) {
		size_t len = strcspn(line, "\n");
		bool seen = false;
		for (const char *q = plain; q && *q && !seen;) {
			size_t qlen = strcspn(q, "\n");
			seen = qlen == len && !memcmp(q, line, len);
			q += qlen + (q[qlen] == '\n');
		}
		if (!seen && len)
			return xasprintf("%.*s", (int)(len < 400 ? len : 400), line);
		line += len + (line[len] == '\n');
	}
	return NULL;
}

/*
 * The profiled runs fail where the plain ones succeed: ld.so itself fails
 * under LD_AUDIT (it asserts on some programs). Its message went to the
 * program's stderr, which the runs hide; one run of each kind more, with
 * stderr captured, finds it without touching the measured runs.
 */
static void explain_profiled_failure(const struct runner_side *sd)
{
	enum { MAX = 64 * 1024 };
	char *prof, *plain;

	if (!sd->profiled || !trace_fails_only_profiled(sd->t))
		return;
	prof = launcher_stderr(sd->l, true, MAX);
	plain = launcher_stderr(sd->l, false, MAX);
	if (prof && plain) {
		free(sd->t->profiled_failure);
		sd->t->profiled_failure = first_new_line(prof, plain);
	}
	free(prof);
	free(plain);
}

/*
 * The shared cache's state through the runs (base/cacheprobe.h): a reading
 * after the warmup, then after a round whenever CACHE_PROBE_EVERY_NS have
 * passed, and one at the end. Each run is given, of the readings on either
 * side of it, the one slower after its idle spell: a run next to a
 * contended reading may have been contended.
 */
#define CACHE_PROBE_EVERY_NS 400000000ull /* 17 to 30 ms a reading: 4 to 7% of the time */
#define CACHE_DECAY_REPS     5		  /* 70 ms of idling, twice a session */

struct probe_log {
	bool on;
	uint64_t last_ns;
	size_t k, cap, nsides;
	struct cache_reading *ns;
	size_t *at; /* at[k * nsides + i]: side i's runs before reading k */
};

static void probe_log_init(struct probe_log *pl, size_t nsides)
{
	memset(pl, 0, sizeof *pl);
	pl->nsides = nsides;
	pl->on = true;
}

static void probe_take(struct probe_log *pl, const struct runner_side *sides, bool due_only)
{
	if (!pl->on || (due_only && mono_ns() - pl->last_ns < CACHE_PROBE_EVERY_NS))
		return;
	if (pl->k == pl->cap) {
		pl->cap = pl->cap ? 2 * pl->cap : 16;
		pl->ns = xrealloc(pl->ns, pl->cap * sizeof *pl->ns);
		pl->at = xrealloc(pl->at, pl->cap * pl->nsides * sizeof *pl->at);
	}
	struct errbuf err;
	/* Without a reading the runs just carry no state (line_ns 0), and probing stops. */
	/* The first and last readings take the short spells too (model/line-decay.h). */
	if (cache_probe_isolated(CACHE_PROBE_BYTES, due_only ? 0 : CACHE_DECAY_REPS, &pl->ns[pl->k],
				 &err)) {
		pl->on = false;
		return;
	}
	for (size_t i = 0; i < pl->nsides; i++)
		pl->at[pl->k * pl->nsides + i] = sides[i].t->nrun;
	pl->k++;
	pl->last_ns = mono_ns();
}

/* Each run's reading: of the readings before and after it, the slower after idling. */
static void probe_label(const struct probe_log *pl, const struct runner_side *sides)
{
	static const struct cache_reading none;

	for (size_t i = 0; i < pl->nsides; i++) {
		struct trace *t = sides[i].t;
		size_t k = 0;
		for (size_t j = 0; j < t->nrun; j++) {
			while (k < pl->k && pl->at[k * pl->nsides + i] <= j)
				k++;
			const struct cache_reading *before = k ? &pl->ns[k - 1] : &none,
						   *after = k < pl->k ? &pl->ns[k] : &none,
						   *r = before->idle_ns > after->idle_ns ? before : after;
			t->run[j].line_ns = r->idle_ns;
			t->run[j].line_hot_ns = r->hot_ns;
			memcpy(t->run[j].decay_ns, r->decay_ns, sizeof r->decay_ns);
		}
	}
}

static void probe_log_fini(struct probe_log *pl)
{
	free(pl->ns);
	free(pl->at);
}

int runner_execute_multi(struct runner_side *sides, size_t n, const struct run_plan *p,
			 bool *interrupted, struct errbuf *err)
{
	struct probe_log pl;
	struct cache_evictor *ev = p->evictor;
	bool lead = needs_lead(sides, n, p);
	uint64_t start;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		sides[i].t->cold_cache = ev != NULL; /* what was done, not what was asked */
	interrupt_begin();
	probe_log_init(&pl, n);
	for (unsigned long w = 0; w < p->warmup && !r; w++)
		for (size_t i = 0; i < n && !r; i++)
			r = round_of(&sides[i], p, true, lead, ev, err);
	if (!r)
		probe_take(&pl, sides, false);
	start = mono_ns();
	while (!r) {
		bool done = true;
		for (size_t i = 0; i < n && !r; i++)
			r = round_of(&sides[i], p, false, lead, ev, err);
		for (size_t i = 0; i < n && !r; i++)
			done = done && side_done(&sides[i], p, start);
		if (done)
			break;
		probe_take(&pl, sides, true);
	}
	if (!r && !interrupt_requested())
		probe_take(&pl, sides, false);
	probe_label(&pl, sides);
	probe_log_fini(&pl);
	if (!r)
		r = sample_rounds(sides, n, p, ev, err);
	*interrupted = interrupt_requested() || r == -ECANCELED;
	if (r == -EINTR || r == -ECANCELED)
		r = 0;
	for (size_t i = 0; i < n && !r && !*interrupted; i++)
		explain_profiled_failure(&sides[i]);
	interrupt_end();
	return r;
}
