#include "model/analyze.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ldprof-record.h"
#include "model/model.h"

static const char *const phase_names[PH_COUNT] = {"exec", "load", "relocate",
						  "init", "main", "exit"};
static const char *const phase_helps[PH_COUNT] = {
	"execve until ld.so starts auditing: kernel exec and loader bootstrap",
	"finding and mapping the objects",
	"relocation, TLS setup and libc early init",
	"all constructors, the executable's too",
	"main, until exit() is called or main returns",
	"exit: atexit handlers, destructors, teardown, until reaped",
};

const char *phase_name(enum phase p)
{
	return phase_names[p];
}

const char *phase_help(enum phase p)
{
	return phase_helps[p];
}

const char *role_name(enum obj_role r)
{
	static const char *const names[] = {
		[ROLE_EXECUTABLE] = "executable", [ROLE_LOADER] = "loader", [ROLE_VDSO] = "vdso",
		[ROLE_LIBRARY] = "library",	  [ROLE_SHIM] = "shim",
	};
	return names[r];
}

/* Milestones of one run, as tick counts; 0 = not seen. */
enum { M_EXEC, M_VERSION, M_LOAD_END, M_CONSISTENT, M_PREINIT, M_MAIN_END, M_REAP, M_COUNT };

/* main ends where trace_run_main_end_index says (_dl_fini's LA_ACT_DELETE when unseen). */
static size_t find_milestones(const struct trace_run *r, uint64_t m[M_COUNT])
{
	size_t consistent_ix = r->nev, main_end = trace_run_main_end_index(r);

	memset(m, 0, sizeof(uint64_t) * M_COUNT);
	m[M_EXEC] = r->exec_ts;
	m[M_REAP] = r->reap_ts;
	for (size_t i = 0; i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		switch (e->type) {
		case LDPROF_REC_VERSION:
			if (!m[M_VERSION])
				m[M_VERSION] = e->ts;
			break;
		case LDPROF_REC_OBJOPEN:
			if (consistent_ix == r->nev)
				m[M_LOAD_END] = e->ts;
			break;
		case LDPROF_REC_ACTIVITY:
			if (e->u32 == 0 && consistent_ix == r->nev) {
				consistent_ix = i;
				m[M_CONSISTENT] = e->ts;
			}
			break;
		case LDPROF_REC_PREINIT:
			if (!m[M_PREINIT])
				m[M_PREINIT] = e->ts;
			break;
		}
	}
	if (main_end < r->nev)
		m[M_MAIN_END] = r->ev[main_end].ts;
	return consistent_ix;
}

/*
 * Phase i runs from milestone i to the next one seen. When a milestone is
 * missing (a crash in main has no exit call), the phase before it extends
 * to the next milestone and the skipped ones are unknown, so the known
 * phases still add up to the total.
 */
static void cut_phases(const struct trace *t, const uint64_t m[M_COUNT], double *ph)
{
	for (int i = 0; i < PH_COUNT; i++)
		ph[i] = NAN;
	for (int i = 0; i < PH_COUNT; i++) {
		if (!m[i])
			continue;
		int j = i + 1;
		while (j < M_COUNT && !m[j])
			j++;
		if (j < M_COUNT && m[j] >= m[i])
			ph[i] = trace_ticks_to_us(t, m[j] - m[i]);
	}
}

static bool loader_maps(enum obj_role role)
{
	return role == ROLE_LIBRARY || role == ROLE_SHIM;
}

void run_load_gaps(const struct trace *t, const struct trace_run *r,
		   void (*fn)(void *arg, uint32_t obj, uint64_t from, uint64_t to), void *arg)
{
	size_t consistent = trace_run_consistent_index(r);
	uint64_t prev = 0;

	for (size_t i = 0; i < consistent; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->type != LDPROF_REC_VERSION && e->type != LDPROF_REC_OBJOPEN &&
		    e->type != LDPROF_REC_ACTIVITY)
			continue;
		if (e->type == LDPROF_REC_OBJOPEN && e->obj != TRACE_NO_OBJ && prev &&
		    e->ts >= prev && loader_maps(t->obj[e->obj].role))
			fn(arg, e->obj, prev, e->ts);
		prev = e->ts;
	}
}

struct per_object {
	const struct trace *t;
	double *out;
};

static void add_load(void *arg, uint32_t obj, uint64_t from, uint64_t to)
{
	struct per_object *p = arg;

	p->out[obj] = trace_ticks_to_us(p->t, to - from);
}

/* Does every relocated object of the run have the analyzer's counts? */
static bool model_applies(const struct trace *t, const struct trace_run *r, size_t consistent_ix)
{
	if (!t->model.valid)
		return false;
	for (size_t i = 0; i < consistent_ix && i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->type == LDPROF_REC_OBJOPEN && e->obj != TRACE_NO_OBJ &&
		    t->obj[e->obj].role != ROLE_VDSO && !t->obj[e->obj].have_feat)
			return false;
	}
	return true;
}

/* An object's share of the relocate phase, before normalisation. */
static double reloc_weight(const struct trace *t, const struct trace_object *o, bool model)
{
	if (o->role == ROLE_VDSO)
		return 0;
	if (model)
		return model_object_us(&t->model, o->feat);
	return o->have_facts && o->role != ROLE_LOADER ? (double)reloc_counts_total(&o->relocs) : 0;
}

/*
 * Relocation: the measured phase split by the cost model's prediction for
 * each object (its relocations, lookups and pages, as the analyzer replays
 * ld.so), or by relocation counts when the analyzer could not replay it.
 * The model's per-process intercept (TLS setup, libc early init) stays
 * unattributed.
 */
static void attribute_reloc(const struct trace *t, const struct trace_run *r, size_t consistent_ix,
			    double reloc_phase, struct run_breakdown *bd)
{
	bool model = model_applies(t, r, consistent_ix);
	double total = model ? t->model.intercept_us : 0;

	bd->reloc_by_model = model;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < consistent_ix && i < r->nev; i++) {
			const struct trace_event *e = &r->ev[i];
			if (e->type != LDPROF_REC_OBJOPEN || e->obj == TRACE_NO_OBJ)
				continue;
			double w = reloc_weight(t, &t->obj[e->obj], model);
			if (pass == 0)
				total += w;
			else
				bd->reloc_us[e->obj] = total > 0 ? reloc_phase * w / total : 0;
		}
	}
	bd->reloc_model_us = model ? total : NAN;
}

struct frame {
	uint32_t obj;
	uint64_t begin, nested;
};

void run_pairs(const struct trace_run *r, uint16_t begin, uint16_t end,
	       void (*fn)(void *arg, const struct trace_event *e, uint64_t begin_ts,
			  uint64_t nested),
	       void *arg)
{
	struct frame stack[64];
	size_t depth = 0;

	for (size_t i = 0; i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->obj == TRACE_NO_OBJ)
			continue;
		if (e->type == begin && depth < ARRAY_SIZE(stack)) {
			stack[depth++] = (struct frame){e->obj, e->ts, 0};
		} else if (e->type == end) {
			while (depth && stack[depth - 1].obj != e->obj)
				depth--; /* an unmatched begin: its function never returned */
			if (!depth)
				continue;
			struct frame f = stack[--depth];
			fn(arg, e, f.begin, f.nested);
			if (depth)
				stack[depth - 1].nested += e->ts >= f.begin ? e->ts - f.begin : 0;
		}
	}
}

/* Exclusive time: the pair's duration minus what ran nested inside it. */
static void add_exclusive(void *arg, const struct trace_event *e, uint64_t begin, uint64_t nested)
{
	struct per_object *p = arg;
	uint64_t dur = e->ts >= begin ? e->ts - begin : 0;

	p->out[e->obj] += trace_ticks_to_us(p->t, dur > nested ? dur - nested : 0);
}

static double *nan_array(size_t n)
{
	double *a = xmalloc((n ? n : 1) * sizeof *a);

	for (size_t i = 0; i < n; i++)
		a[i] = NAN;
	return a;
}

void analyze_run(const struct trace *t, const struct trace_run *r, struct run_breakdown *bd)
{
	uint64_t m[M_COUNT];
	size_t consistent_ix = find_milestones(r, m);

	bd->load_us = nan_array(t->nobj);
	bd->reloc_us = nan_array(t->nobj);
	bd->init_us = nan_array(t->nobj);
	bd->fini_us = nan_array(t->nobj);
	bd->symbind_us = nan_array(t->nobj);
	bd->symbind_calls = xcalloc(t->nobj + 1, sizeof *bd->symbind_calls);
	cut_phases(t, m, bd->phase_us);
	for (int k = 0; k < M_COUNT; k++)
		bd->elapsed_us[k] =
			m[k] && m[k] >= m[M_EXEC] ? trace_ticks_to_us(t, m[k] - m[M_EXEC]) : NAN;
	/* The validation step: nothing from data that fails it is analysed. */
	bd->valid = r->profiled && r->shim_attached && !(r->shm_flags & TRACE_SHM_CORRUPT) &&
		    trace_run_events_ok(t, r) && m[M_VERSION] && m[M_CONSISTENT];
	if (!bd->valid)
		return;
	for (size_t i = 0; i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->type != LDPROF_REC_OBJOPEN || e->obj == TRACE_NO_OBJ)
			continue;
		bool timed = !t->obj[e->obj].untimed_seen;
		bd->init_us[e->obj] = bd->fini_us[e->obj] = timed ? 0 : NAN;
		if (i < consistent_ix)
			bd->load_us[e->obj] = bd->reloc_us[e->obj] = 0;
	}
	run_load_gaps(t, r, add_load, &(struct per_object){t, bd->load_us});
	attribute_reloc(t, r, consistent_ix, bd->phase_us[PH_RELOCATE], bd);
	run_pairs(r, LDPROF_REC_INIT_BEGIN, LDPROF_REC_INIT_END, add_exclusive,
		  &(struct per_object){t, bd->init_us});
	run_pairs(r, LDPROF_REC_FINI_BEGIN, LDPROF_REC_FINI_END, add_exclusive,
		  &(struct per_object){t, bd->fini_us});
	for (size_t i = 0; i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->type == LDPROF_REC_SYMBIND && e->obj != TRACE_NO_OBJ && e->b >= e->a) {
			bd->symbind_us[e->obj] = trace_ticks_to_us(t, e->b - e->a);
			bd->symbind_calls[e->obj] = e->u32;
		}
	}
}

void run_breakdown_free(struct run_breakdown *bd)
{
	free(bd->load_us);
	free(bd->reloc_us);
	free(bd->init_us);
	free(bd->fini_us);
	free(bd->symbind_us);
	free(bd->symbind_calls);
	memset(bd, 0, sizeof *bd);
}
