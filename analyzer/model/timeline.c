#include "model/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ldprof-record.h"

static int64_t ns_of(double us)
{
	return (int64_t)llround(us * 1000);
}

/* Nanoseconds from exec, with the same formula as the run breakdown's milestones. */
static int64_t event_ns(const struct trace *t, const struct trace_run *r, uint64_t ts)
{
	return ts >= r->exec_ts ? ns_of(trace_ticks_to_us(t, ts - r->exec_ts)) : 0;
}

static struct tl_slice *add(struct timeline *tl, enum tl_kind kind, uint32_t obj, int64_t a,
			    int64_t b)
{
	GROW(tl->s, tl->cap, tl->n);
	tl->s[tl->n] = (struct tl_slice){.kind = kind,
					 .phase = -1,
					 .obj = obj,
					 .start_ns = a,
					 .end_ns = b > a ? b : a,
					 .parent = SIZE_MAX};
	return &tl->s[tl->n++];
}

/* Phase p runs from its milestone to the next one seen, as the breakdown cuts it. */
static void add_phases(struct timeline *tl, const struct run_breakdown *bd, int64_t bound[])
{
	for (int k = 0; k <= PH_COUNT; k++)
		bound[k] = isnan(bd->elapsed_us[k]) ? -1 : ns_of(bd->elapsed_us[k]);
	for (int p = 0; p < PH_COUNT; p++) {
		int j = p + 1;
		while (j < PH_COUNT && bound[j] < 0)
			j++;
		if (isnan(bd->phase_us[p]) || bound[p] < 0 || bound[j] < bound[p])
			continue;
		add(tl, TL_PHASE, TRACE_NO_OBJ, bound[p], bound[j])->phase = p;
	}
}

struct walk {
	struct timeline *tl;
	const struct trace *t;
	const struct trace_run *r;
	enum tl_kind kind;
};

/* Loading: the gap before each la_objopen of an object ld.so maps. */
static void add_load(void *arg, uint32_t obj, uint64_t from, uint64_t to)
{
	struct walk *w = arg;

	add(w->tl, TL_LOAD, obj, event_ns(w->t, w->r, from), event_ns(w->t, w->r, to));
}

/*
 * Relocation: the breakdown's proportional split, laid end to end in the
 * order ld.so relocates (the last object loaded first, the executable last).
 */
static void add_relocs(struct timeline *tl, const struct trace_run *r,
		       const struct run_breakdown *bd, size_t consistent, int64_t from)
{
	double cum = 0;

	for (size_t i = consistent; i-- > 0;) {
		const struct trace_event *e = &r->ev[i];
		if (e->type != LDPROF_REC_OBJOPEN || e->obj == TRACE_NO_OBJ)
			continue;
		double us = bd->reloc_us[e->obj];
		if (isnan(us) || us <= 0)
			continue;
		int64_t a = from + ns_of(cum);
		cum += us;
		add(tl, TL_RELOC, e->obj, a, from + ns_of(cum))->estimated = true;
	}
}

/* Constructors or destructors: matched BEGIN/END pairs, nested as they ran. */
static void add_pair(void *arg, const struct trace_event *e, uint64_t begin, uint64_t nested)
{
	struct walk *w = arg;

	(void)nested;
	add(w->tl, w->kind, e->obj, event_ns(w->t, w->r, begin), event_ns(w->t, w->r, e->ts))
		->funcs = e->u32;
}

static int by_start(const void *a, const void *b)
{
	const struct tl_slice *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1; /* the longer one encloses */
	return (int)x->kind - (int)y->kind;
}

/*
 * Sort, then give each slice the innermost open slice that contains its
 * start as parent, clipping it to that parent: rounding to nanoseconds
 * must never make a child stick out.
 */
static void nest(struct timeline *tl)
{
	size_t *open = xmalloc((tl->n + 1) * sizeof *open), depth = 0;

	if (tl->n) /* qsort(NULL, 0) is undefined */
		qsort(tl->s, tl->n, sizeof *tl->s, by_start);
	for (size_t i = 0; i < tl->n; i++) {
		struct tl_slice *s = &tl->s[i];
		/* A point at a boundary stays in the earlier slice; anything longer moves on. */
		while (depth &&
		       (tl->s[open[depth - 1]].end_ns < s->start_ns ||
			(tl->s[open[depth - 1]].end_ns == s->start_ns && s->end_ns > s->start_ns)))
			depth--;
		if (depth) {
			const struct tl_slice *p = &tl->s[open[depth - 1]];
			s->parent = open[depth - 1];
			s->end_ns = s->end_ns < p->end_ns ? s->end_ns : p->end_ns;
			if (s->phase < 0)
				s->phase = p->phase;
		}
		s->depth = (int)depth;
		open[depth++] = i;
	}
	free(open);
}

void timeline_build(const struct report *rep, size_t run, struct timeline *tl)
{
	const struct trace *t = rep->t;
	const struct trace_run *r = &t->run[run];
	const struct run_breakdown *bd = report_breakdown(rep, run);
	int64_t bound[PH_COUNT + 1];

	add(tl, TL_RUN, TRACE_NO_OBJ, 0, event_ns(t, r, r->reap_ts));
	if (bd && bd->valid) {
		size_t consistent = trace_run_consistent_index(r);
		add_phases(tl, bd, bound);
		run_load_gaps(t, r, add_load, &(struct walk){tl, t, r, TL_LOAD});
		if (bound[PH_RELOCATE] >= 0)
			add_relocs(tl, r, bd, consistent, bound[PH_RELOCATE]);
		run_pairs(r, LDPROF_REC_INIT_BEGIN, LDPROF_REC_INIT_END, add_pair,
			  &(struct walk){tl, t, r, TL_INIT});
		run_pairs(r, LDPROF_REC_FINI_BEGIN, LDPROF_REC_FINI_END, add_pair,
			  &(struct walk){tl, t, r, TL_FINI});
	}
	nest(tl);
}

void timeline_free(struct timeline *tl)
{
	free(tl->s);
	memset(tl, 0, sizeof *tl);
}

int64_t timeline_self_ns(const struct timeline *tl, size_t i)
{
	int64_t self = tl->s[i].end_ns - tl->s[i].start_ns;

	for (size_t k = i + 1; k < tl->n && tl->s[k].depth > tl->s[i].depth; k++)
		if (tl->s[k].parent == i)
			self -= tl->s[k].end_ns - tl->s[k].start_ns;
	return self > 0 ? self : 0;
}

bool run_counted(const struct report *rep, size_t i)
{
	return trace_run_counted(&rep->t->run[i], rep->profiled);
}

size_t run_ordinal(const struct report *rep, size_t i)
{
	size_t n = 0;

	for (size_t k = 0; k <= i && k < rep->t->nrun; k++)
		n += trace_run_counted(&rep->t->run[k], rep->t->run[i].profiled);
	return n;
}

size_t median_run(const struct report *rep)
{
	const struct trace *t = rep->t;
	size_t best = SIZE_MAX;
	double best_gap = INFINITY;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (!run_counted(rep, i) || (r->profiled && !r->shim_attached))
			continue;
		double gap = fabs(trace_run_us(t, r) - rep->total.median);
		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	return best;
}

const char *tl_kind_name(enum tl_kind k)
{
	static const char *const names[] = {"run", "phase", "load", "reloc", "init", "fini"};
	return names[k];
}

bool object_shown(const struct trace_object *o)
{
	return o->role != ROLE_VDSO && o->role != ROLE_LOADER;
}

const char *object_label(const struct trace_object *o)
{
	return o->soname && *o->soname ? o->soname : path_basename(o->path);
}
