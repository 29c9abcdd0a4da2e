/* --sample's per-phase aggregation (samples.h). */
#include "model/samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "base/util.h"

double samples_share(const struct phase_samples *ph, size_t n)
{
	return ph->n ? 100.0 * (double)n / (double)ph->n : 0;
}

/* A sampled run's milestones: from its exec to the start of each phase, and its end. */
struct run_marks {
	bool valid;
	double elapsed_us[PH_COUNT + 1];
};

/* The phase the time us (from the run's exec) falls in, by the run's own milestones. */
static int phase_at(const struct run_marks *m, double us)
{
	if (!m->valid || !(us < m->elapsed_us[PH_COUNT]))
		return SAMPLES_NO_PHASE;
	for (int p = PH_COUNT - 1; p >= 0; p--)
		if (isfinite(m->elapsed_us[p]) && m->elapsed_us[p] <= us)
			return p;
	return PH_EXEC; /* before the exec reading: the clocks' mapping, by a hair */
}

/* A sampled run's phase times, summed into phase_us (divided by the runs later). */
static void add_phases(struct sample_report *sr, const struct run_breakdown *bd)
{
	double whole = 0;

	sr->runs++;
	for (int p = 0; p < PH_COUNT; p++)
		if (isfinite(bd->phase_us[p])) {
			sr->ph[p].phase_us += bd->phase_us[p];
			whole += bd->phase_us[p];
		}
	sr->ph[PH_COUNT].phase_us += whole;
}

/*
 * Every sampled run's milestones (sampled runs are not in rep->bd), those
 * with no sample too: a run in which no sample fell still ran its phases,
 * so it counts in the time per run that the samples stand for.
 */
static struct run_marks *sampled_marks(const struct trace *t, struct sample_report *sr)
{
	struct run_marks *m = xcalloc(t->nrun + 1, sizeof *m);

	for (size_t i = 0; i < t->nrun; i++) {
		struct run_breakdown bd = {0};
		if (!t->run[i].sampled)
			continue;
		analyze_run(t, &t->run[i], &bd);
		if ((m[i].valid = bd.valid)) {
			memcpy(m[i].elapsed_us, bd.elapsed_us, sizeof m[i].elapsed_us);
			add_phases(sr, &bd);
		}
		run_breakdown_free(&bd);
	}
	return m;
}

/* Each sample's phase, by its time against its run's milestones. */
static void place(const struct report *rep, struct sample_report *sr)
{
	const struct trace *t = rep->t;
	const struct trace_sampling *s = sr->s;
	struct run_marks *m = sampled_marks(t, sr);

	for (size_t i = 0; i < s->n; i++) {
		const struct trace_sample *x = &s->s[i];
		const struct trace_run *r = &t->run[x->run];
		double us = x->ts >= r->exec_ts ? trace_ticks_to_us(t, x->ts - r->exec_ts) : 0;
		sr->phase_of[i] = phase_at(&m[x->run], us);
		if (sr->phase_of[i] == SAMPLES_NO_PHASE)
			sr->unplaced++;
		else
			sr->samples++;
	}
	free(m);
}

struct counts {
	size_t *self, *total, *stamp; /* per frame */
	uint64_t *caller_pair;	      /* leaf << 32 | caller, per sample of the phase */
	size_t npair;
	struct strmap stacks; /* "i,j,k" -> index + 1 into st */
};

static char *stack_key(const struct trace_sampling *s, const struct trace_sample *x)
{
	struct sbuf sb = {0};

	for (uint32_t k = 0; k < x->len; k++)
		sbuf_printf(&sb, "%u,", s->chain[x->first + k]);
	return sb.buf ? sb.buf : xstrdup("");
}

static void count_sample(const struct trace_sampling *s, size_t i, struct counts *c,
			 struct phase_samples *ph)
{
	const struct trace_sample *x = &s->s[i];
	const uint32_t *fr = s->chain + x->first;
	char *key;
	uintptr_t have;

	ph->n++;
	if (!x->len)
		return;
	c->self[fr[0]]++;
	for (uint32_t k = 0; k < x->len; k++)
		if (c->stamp[fr[k]] != i + 1) { /* recursion counts once */
			c->stamp[fr[k]] = i + 1;
			c->total[fr[k]]++;
		}
	c->caller_pair[c->npair++] =
		(uint64_t)fr[0] << 32 | (x->len > 1 ? fr[1] : SAMPLES_NO_FRAME);
	key = stack_key(s, x);
	if ((have = (uintptr_t)strmap_get(&c->stacks, key))) {
		ph->st[have - 1].count++;
	} else {
		GROW(ph->st, ph->capst, ph->nst);
		ph->st[ph->nst] = (struct sample_stack){i, 1};
		strmap_put(&c->stacks, key, (void *)(uintptr_t)(++ph->nst));
	}
	free(key);
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int by_self(const void *a, const void *b)
{
	const struct sample_fn *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int by_count(const void *a, const void *b)
{
	const struct sample_stack *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->sample < y->sample ? -1 : x->sample > y->sample;
}

/*
 * Each leaf's most frequent caller, from the sorted (leaf, caller) pairs:
 * best[2 * leaf] the caller, best[2 * leaf + 1] how often.
 */
static void callers(struct counts *c, uint32_t *best)
{
	qsort(c->caller_pair, c->npair, sizeof *c->caller_pair, by_u64);
	for (size_t i = 0, j; i < c->npair; i = j) {
		for (j = i; j < c->npair && c->caller_pair[j] == c->caller_pair[i]; j++)
			;
		uint32_t leaf = (uint32_t)(c->caller_pair[i] >> 32);
		uint32_t caller = (uint32_t)c->caller_pair[i];
		if (caller != SAMPLES_NO_FRAME && j - i > best[2 * leaf + 1]) {
			best[2 * leaf] = caller;
			best[2 * leaf + 1] = (uint32_t)(j - i);
		}
	}
}

static void finish_phase(const struct trace_sampling *s, struct counts *c, struct phase_samples *ph)
{
	uint32_t *best = xcalloc(2 * s->nframe + 2, sizeof *best);

	callers(c, best);
	for (size_t f = 0; f < s->nframe; f++) {
		if (!c->total[f])
			continue;
		GROW(ph->fn, ph->capfn, ph->nfn);
		ph->fn[ph->nfn++] =
			(struct sample_fn){(uint32_t)f, c->self[f], c->total[f],
					   best[2 * f + 1] ? best[2 * f] : SAMPLES_NO_FRAME};
	}
	if (ph->nfn) /* qsort takes no NULL, even for nothing */
		qsort(ph->fn, ph->nfn, sizeof *ph->fn, by_self);
	if (ph->nst)
		qsort(ph->st, ph->nst, sizeof *ph->st, by_count);
	free(best);
}

/* Phase p's aggregate (PH_COUNT: every placed sample). */
static void aggregate(struct sample_report *sr, int p)
{
	const struct trace_sampling *s = sr->s;
	struct phase_samples *ph = &sr->ph[p];
	struct counts c = {
		.self = xcalloc(s->nframe + 1, sizeof(size_t)),
		.total = xcalloc(s->nframe + 1, sizeof(size_t)),
		.stamp = xcalloc(s->nframe + 1, sizeof(size_t)),
		.caller_pair = xcalloc(s->n + 1, sizeof(uint64_t)),
	};

	for (size_t i = 0; i < s->n; i++)
		if (sr->phase_of[i] != SAMPLES_NO_PHASE && (p == PH_COUNT || sr->phase_of[i] == p))
			count_sample(s, i, &c, ph);
	finish_phase(s, &c, ph);
	if (sr->runs) {
		ph->sampled_us = (double)ph->n * (double)s->period_ns / 1000.0 / (double)sr->runs;
		ph->phase_us /= (double)sr->runs;
	}
	free(c.self);
	free(c.total);
	free(c.stamp);
	free(c.caller_pair);
	strmap_free(&c.stacks, NULL);
}

/* The sampled runs' totals, to set against the plain runs' (the cost of sampling). */
static void sampled_totals(const struct trace *t, struct sample_report *sr)
{
	double *v = xmalloc((t->nrun + 1) * sizeof *v);
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++)
		if (t->run[i].sampled)
			v[n++] = trace_run_us(t, &t->run[i]);
	summarize(v, n, &sr->total_us);
	free(v);
}

void samples_build(const struct report *rep, struct sample_report *sr)
{
	memset(sr, 0, sizeof *sr);
	sr->s = rep->t->sampling;
	if (!sr->s)
		return;
	sampled_totals(rep->t, sr);
	sr->phase_of = xcalloc(sr->s->n + 1, sizeof *sr->phase_of);
	place(rep, sr);
	for (int p = 0; p <= PH_COUNT; p++)
		aggregate(sr, p);
}

void samples_free(struct sample_report *sr)
{
	for (int p = 0; p <= PH_COUNT; p++) {
		free(sr->ph[p].fn);
		free(sr->ph[p].st);
	}
	free(sr->phase_of);
	memset(sr, 0, sizeof *sr);
}
