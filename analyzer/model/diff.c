#include "model/diff.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/timeline.h"

#define ROUNDS 400

int diff_parse_threshold(const char *s, struct diff_threshold *th)
{
	char *end;
	double v = strtod(s, &end);

	memset(th, 0, sizeof *th);
	if (end == s || !(v > 0) || !isfinite(v))
		return -EINVAL;
	if (!strcmp(end, "%") || !*end)
		th->relative = true;
	else if (!strcmp(end, "ms"))
		v *= 1000;
	else if (strcmp(end, "us") && strcmp(end, "µs"))
		return -EINVAL;
	th->set = true;
	th->value = v;
	return 0;
}

/* One trace's runs, as the bootstrap resamples them. */
struct side {
	double *totals; /* the counted runs the report's total is about */
	size_t ntotals;
	const struct run_breakdown *bd; /* the report's counted profiled runs */
	size_t nbd;
	size_t *valid; /* indices into bd of the valid ones */
	size_t nvalid;
};

static void side_init(const struct report *rep, struct side *s)
{
	const struct trace *t = rep->t;

	s->totals = xmalloc((t->nrun + 1) * sizeof *s->totals);
	s->ntotals = trace_counted_totals(t, rep->profiled, s->totals);
	s->bd = rep->bd;
	s->nbd = rep->nbd;
	s->valid = xmalloc((rep->nbd + 1) * sizeof *s->valid);
	s->nvalid = report_valid_breakdowns(rep, s->valid);
}

static void side_free(struct side *s)
{
	free(s->totals);
	free(s->valid);
}

/* Matching key: the role for the executable and ld.so, else soname or file name. */
static const char *match_key(const struct trace_object *o)
{
	if (o->role == ROLE_EXECUTABLE)
		return "(executable)";
	if (o->role == ROLE_LOADER || o->role == ROLE_VDSO)
		return NULL;
	return object_label(o);
}

static const struct report_object *find_match(const struct report *rep, const char *key)
{
	for (size_t i = 0; i < rep->nobjs; i++) {
		const char *k = match_key(&rep->t->obj[rep->objs[i].obj]);
		if (k && !strcmp(k, key))
			return &rep->objs[i];
	}
	return NULL;
}

static void add_lib(struct diff *d, const struct report_object *b, const struct report_object *a)
{
	struct diff_lib *l = &d->libs[d->nlibs++];
	const struct report_object *any = b ? b : a;
	const struct trace *t = d->rep[b ? 0 : 1]->t;

	l->obj[0] = b ? &d->rep[0]->t->obj[b->obj] : NULL;
	l->obj[1] = a ? &d->rep[1]->t->obj[a->obj] : NULL;
	l->status = a && b ? DIFF_BOTH : b ? DIFF_REMOVED : DIFF_ADDED;
	l->name = t->obj[any->obj].role == ROLE_EXECUTABLE ? path_basename(t->program)
							   : object_label(&t->obj[any->obj]);
}

static void match_libs(struct diff *d)
{
	const struct report *b = d->rep[0], *a = d->rep[1];

	d->libs = xcalloc(b->nobjs + a->nobjs + 1, sizeof *d->libs);
	for (size_t i = 0; i < b->nobjs; i++) {
		const char *key = match_key(&b->t->obj[b->objs[i].obj]);
		if (key)
			add_lib(d, &b->objs[i], find_match(a, key));
	}
	for (size_t i = 0; i < a->nobjs; i++) {
		const char *key = match_key(&a->t->obj[a->objs[i].obj]);
		if (key && !find_match(b, key))
			add_lib(d, NULL, &a->objs[i]);
	}
}

/* Per breakdown, one object's total (load + reloc + init + fini); NaN where not
   seen or the run is not valid. */
static double *object_column(const struct side *s, const struct trace_object *o,
			     const struct trace *t)
{
	double *col = xmalloc((s->nbd + 1) * sizeof *col);
	uint32_t id = (uint32_t)(o - t->obj);

	for (size_t i = 0; i < s->nbd; i++) {
		const struct run_breakdown *bd = &s->bd[i];
		double part[4] = {bd->load_us[id], bd->reloc_us[id], bd->init_us[id],
				  bd->fini_us[id]};
		col[i] = NAN;
		for (int k = 0; bd->valid && k < 4; k++)
			if (!isnan(part[k]))
				col[i] = (isnan(col[i]) ? 0 : col[i]) + part[k];
	}
	return col;
}

/* Resampled statistics, one row per round: total, phases, then each matched library. */
struct boot {
	size_t nstat;
	double *diff;	 /* [ROUNDS][nstat] */
	double **col[2]; /* per library, per side: object_column, or NULL */
};

static void pick_runs(size_t *pick, size_t n, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++)
		pick[i] = bootstrap_rand(seed) % n;
}

/* As pick_runs over the valid breakdowns: indices into s->bd. */
static void pick_valid(size_t *pick, const struct side *s, uint64_t *seed)
{
	for (size_t i = 0; i < s->nvalid; i++)
		pick[i] = s->valid[bootstrap_rand(seed) % s->nvalid];
}

/* The statistics of one side over the picked runs: pt of the totals, pv of the valid ones. */
static void stats_of(const struct diff *d, const struct boot *bo, const struct side *s, int k,
		     const size_t *pt, const size_t *pv, double *buf, double *out)
{
	double est[PH_COUNT];

	out[0] = median_picked(s->totals, pt, s->ntotals, buf);
	if (d->phases && s->nvalid)
		phase_estimates(s->bd, pv, s->nvalid, buf, est);
	for (int p = 0; p < PH_COUNT; p++)
		out[1 + p] = d->phases && s->nvalid ? est[p] : NAN;
	for (size_t j = 0; j < d->nlibs; j++)
		out[1 + PH_COUNT + j] =
			bo->col[k][j] ? median_picked(bo->col[k][j], pv, s->nvalid, buf) : NAN;
}

static void bootstrap(const struct diff *d, struct boot *bo, const struct side s[2])
{
	size_t cap = s[0].ntotals + s[1].ntotals + 1;
	size_t *pt = xmalloc(cap * sizeof *pt), *pv = xmalloc(cap * sizeof *pv);
	double *buf = xmalloc(cap * sizeof *buf), *st[2];
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	st[0] = xmalloc(bo->nstat * sizeof *st[0]);
	st[1] = xmalloc(bo->nstat * sizeof *st[1]);
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < 2; k++) {
			pick_runs(pt, s[k].ntotals, &seed);
			pick_valid(pv, &s[k], &seed);
			stats_of(d, bo, &s[k], k, pt, pv, buf, st[k]);
		}
		for (size_t i = 0; i < bo->nstat; i++)
			bo->diff[(size_t)r * bo->nstat + i] = st[1][i] - st[0][i];
	}
	free(st[0]);
	free(st[1]);
	free(pt);
	free(pv);
	free(buf);
}

/* The point estimate from the reports, and the 95% percentile interval of statistic i. */
static void estimate(const struct boot *bo, size_t i, double before, double after,
		     struct diff_est *e)
{
	double *v = xmalloc(ROUNDS * sizeof *v);
	size_t m = 0;

	e->before = before;
	e->after = after;
	e->change = after - before;
	e->pct = before > 0 ? 100 * e->change / before : NAN;
	for (int r = 0; r < ROUNDS; r++)
		if (!isnan(bo->diff[(size_t)r * bo->nstat + i]))
			v[m++] = bo->diff[(size_t)r * bo->nstat + i];
	e->lo = e->hi = NAN;
	if (m && !isnan(e->change))
		percentile_ci95(v, m, &e->lo, &e->hi);
	e->significant = !isnan(e->lo) && (e->lo > 0 || e->hi < 0);
	free(v);
}

static double median_of(const struct summary *s)
{
	return s->n ? s->median : NAN;
}

static void note(struct diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct diff *d, const char *fmt, ...)
{
	va_list ap;
	struct sbuf sb = {0};

	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	GROW(d->notes, d->capnotes, d->nnotes);
	d->notes[d->nnotes++] = sb.buf;
}

static bool differs(const char *a, const char *b)
{
	return a && b && strcmp(a, b);
}

/* What makes the comparison less than like for like. */
static void add_notes(struct diff *d)
{
	const struct trace *b = d->rep[0]->t, *a = d->rep[1]->t;

	if (strcmp(path_basename(b->program), path_basename(a->program)))
		note(d, "the traces ran different programs: %s, then %s", b->program, a->program);
	if (differs(b->machine.hostname, a->machine.hostname) ||
	    differs(b->machine.cpu_model, a->machine.cpu_model) ||
	    differs(b->machine.kernel, a->machine.kernel) ||
	    differs(b->machine.glibc, a->machine.glibc))
		note(d,
		     "the traces were recorded on different machines or systems (%s, %s; then "
		     "%s, %s): the change may be the machine's",
		     b->machine.hostname, b->machine.kernel, a->machine.hostname,
		     a->machine.kernel);
	if (b->cold_cache != a->cold_cache)
		note(d,
		     "the %s trace's runs emptied the CPU caches before each (--cold-cache) and the "
		     "%s's did not: the change may be that",
		     b->cold_cache ? "first" : "second", b->cold_cache ? "second" : "first");
	if (d->rep[0]->is_static != d->rep[1]->is_static || !d->phases)
		note(d, "phases and libraries are compared only when both traces hold the shim's "
			"data of a dynamic program");
	if (d->rep[0]->runs < 10 || d->rep[1]->runs < 10)
		note(d, "fewer than 10 runs on a side: the confidence intervals are wide");
}

static void judge(struct diff *d)
{
	const struct diff_est *t = &d->total;
	const struct diff_threshold *th = &d->threshold;

	if (!th->set || !t->significant || !(t->change > 0))
		return;
	d->regression = th->relative ? t->pct > th->value : t->change > th->value;
}

void diff_build(const struct report *before, const struct report *after,
		const struct diff_threshold *th, struct diff *d)
{
	struct side s[2];
	struct boot bo = {0};

	memset(d, 0, sizeof *d);
	d->rep[0] = before;
	d->rep[1] = after;
	d->threshold = *th;
	side_init(before, &s[0]);
	side_init(after, &s[1]);
	d->phases = before->profiled && after->profiled && s[0].nvalid && s[1].nvalid;
	if (d->phases)
		match_libs(d);
	bo.nstat = 1 + PH_COUNT + d->nlibs;
	bo.diff = xmalloc(ROUNDS * bo.nstat * sizeof *bo.diff);
	for (int k = 0; k < 2; k++) {
		bo.col[k] = xcalloc(d->nlibs + 1, sizeof *bo.col[k]);
		for (size_t j = 0; j < d->nlibs; j++)
			if (d->libs[j].obj[k])
				bo.col[k][j] =
					object_column(&s[k], d->libs[j].obj[k], d->rep[k]->t);
	}
	bootstrap(d, &bo, s);
	estimate(&bo, 0, before->total.median, after->total.median, &d->total);
	for (int p = 0; p < PH_COUNT; p++)
		estimate(&bo, 1 + (size_t)p, median_of(&before->phase[p]),
			 median_of(&after->phase[p]), &d->phase[p]);
	for (size_t j = 0; j < d->nlibs; j++) {
		double m[2] = {NAN, NAN};
		double *buf = xmalloc((s[0].nbd + s[1].nbd + 1) * sizeof *buf);
		for (int k = 0; k < 2; k++)
			if (bo.col[k][j])
				m[k] = median_picked(bo.col[k][j], NULL, s[k].nbd, buf);
		free(buf);
		/* An object on one side only: the change is all of it, with no CI. */
		estimate(&bo, 1 + PH_COUNT + j, isnan(m[0]) ? 0 : m[0], isnan(m[1]) ? 0 : m[1],
			 &d->libs[j].est);
		d->libs[j].est.before = m[0];
		d->libs[j].est.after = m[1];
	}
	add_notes(d);
	judge(d);
	for (int k = 0; k < 2; k++) {
		for (size_t j = 0; j < d->nlibs; j++)
			free(bo.col[k][j]);
		free(bo.col[k]);
		side_free(&s[k]);
	}
	free(bo.diff);
}

void diff_free(struct diff *d)
{
	for (size_t i = 0; i < d->nnotes; i++)
		free(d->notes[i]);
	free(d->notes);
	free(d->libs);
	memset(d, 0, sizeof *d);
}
