/*
 * The workload report per binary and per library (workload.h): each
 * binary's execs with records become the runs of a trace of their own,
 * which report_build analyses as it does any program's runs; the
 * libraries' figures are summed from those breakdowns.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "model/model.h"
#include "model/workload/workload-internal.h"

/* The trace.obj index -> sub-trace index map of one binary, grown as its execs name objects. */
struct objmap {
	uint32_t *to_sub; /* t->nobj entries; TRACE_NO_OBJ when not yet in sub */
};

static uint32_t sub_object(struct wl_binary *b, struct objmap *m, const struct trace *t, uint32_t o)
{
	struct trace *sub = b->sub;

	if (o == TRACE_NO_OBJ || o >= t->nobj)
		return TRACE_NO_OBJ;
	if (m->to_sub[o] == TRACE_NO_OBJ) {
		GROW(sub->obj, sub->capobj, sub->nobj);
		b->sub_obj = xrealloc(b->sub_obj, sub->capobj * sizeof *b->sub_obj);
		/* A shallow copy: the strings stay t's; only the model's counts are its own. */
		sub->obj[sub->nobj] = t->obj[o];
		b->sub_obj[sub->nobj] = o;
		m->to_sub[o] = (uint32_t)sub->nobj++;
	}
	return m->to_sub[o];
}

/* The end of an exec's window: its end, else its process's exit, else the run's reaping. */
static uint64_t exec_end(const struct trace_run *r, const struct tree_proc *p, size_t k)
{
	const struct tree_exec *e = &p->exec[k];

	if (e->end_ts)
		return e->end_ts;
	return p->exit_ts > e->ts ? p->exit_ts : r->reap_ts;
}

/*
 * One exec as a profiled run of the binary's trace (exec_ts = its exec
 * point). The launched process's first exec is the run itself: its records
 * and its start are the run's, exactly as without -f.
 */
static void add_exec_run(const struct trace *t, const struct wl_exec *x, struct wl_binary *b,
			 struct objmap *m)
{
	const struct trace_run *r = &t->run[x->run];
	const struct tree_proc *p = &r->tree->proc[x->proc];
	const struct tree_exec *e = &p->exec[x->exec];
	struct trace_run *v = trace_add_run(b->sub);
	bool top = workload_exec_is_run(t, x) && (r->nev || !e->nev);
	const struct trace_event *ev = top ? r->ev : e->ev;
	size_t nev = top ? r->nev : e->nev;

	v->profiled = true;
	v->shim_attached = top ? r->shim_attached : true;
	v->exec_ts = workload_exec_start(t, x);
	v->reap_ts = exec_end(r, p, x->exec);
	v->shm_flags = top ? r->shm_flags : e->shm_flags;
	v->wait_status = x->exec + 1 == p->nexec && p->have_status ? p->wait_status : 0;
	if (e->have_cpu) {
		v->usage.utime_us = e->utime_us;
		v->usage.stime_us = e->stime_us;
	}
	v->ev = xmalloc((nev ? nev : 1) * sizeof *v->ev);
	v->cap = nev;
	for (size_t i = 0; i < nev; i++) {
		v->ev[i] = ev[i];
		v->ev[i].obj = sub_object(b, m, t, ev[i].obj);
	}
	v->nev = nev;
}

/*
 * The cost model's counts for this binary's objects: its own replay of
 * ld.so, since a library's lookups depend on the process it is in; the
 * trace's own counts serve only the program they were computed for.
 */
static void binary_features(const struct trace *t, struct wl_binary *b)
{
	struct errbuf err;
	bool own = t->elf_path && !strcmp(t->elf_path, b->path) && t->model.valid;

	if (!b->dynamic)
		return;
	/*
	 * A static top process leaves the trace without coefficients (nothing
	 * of its own to model); its dynamic children still have a loader.
	 */
	if (!b->sub->model.valid)
		model_load(&b->sub->model);
	if (model_features(b->sub, &err) == 0) {
		b->have_features = true;
		return;
	}
	for (size_t i = 0; !own && i < b->sub->nobj; i++)
		b->sub->obj[i].have_feat = false;
	b->have_features = own;
}

static void binary_trace_init(const struct trace *t, struct wl_binary *b)
{
	struct trace *sub = b->sub = xcalloc(1, sizeof *sub);

	sub->argc = t->argc;
	sub->argv = t->argv;
	sub->program = b->path;
	sub->elf_path = b->path;
	sub->kind = t->kind;
	sub->tsc_hz = t->tsc_hz;
	sub->model = t->model;
	sub->cwd = t->cwd;
}

/* Build each binary's trace from its execs with records and analyse it. */
void workload_analyze_binaries(const struct trace *t, struct workload *w)
{
	struct objmap m = {xmalloc((t->nobj + 1) * sizeof(uint32_t))};

	for (size_t bi = 0; bi < w->nbins; bi++) {
		struct wl_binary *b = &w->bins[bi];
		size_t k = 0;
		for (size_t o = 0; o < t->nobj; o++)
			m.to_sub[o] = TRACE_NO_OBJ;
		binary_trace_init(t, b);
		for (size_t i = 0; i < w->nex; i++)
			if (w->ex[i].bin == bi && workload_exec_has_records(t, &w->ex[i]))
				add_exec_run(t, &w->ex[i], b, &m);
		if (!b->sub->nrun)
			continue;
		binary_features(t, b);
		report_build(b->sub, &b->rep);
		b->have_rep = true;
		/* rep.bd holds one breakdown per sub-run, in order: exec i of the binary is bd[k].
		 */
		for (size_t i = 0; i < w->nex; i++)
			if (w->ex[i].bin == bi && workload_exec_has_records(t, &w->ex[i]))
				workload_exec_set_breakdown(&w->ex[i], &b->rep.bd[k++]);
	}
	free(m.to_sub);
}

void workload_free_binary(struct wl_binary *b)
{
	if (b->have_rep)
		report_free(&b->rep);
	if (b->sub) {
		for (size_t i = 0; i < b->sub->nrun; i++)
			free(b->sub->run[i].ev);
		free(b->sub->run);
		free(b->sub->obj);
		free(b->sub);
	}
	free(b->sub_obj);
	free(b->path);
	free(b->build_id);
}

/* Sums over every analysed exec of every library it loaded at startup. */
struct lib_acc {
	size_t execs;
	double load, reloc, init;
};

static double or0(double v)
{
	return isnan(v) ? 0 : v;
}

static void add_library_costs(const struct trace *t, const struct wl_binary *b, struct lib_acc *acc)
{
	for (size_t k = 0; k < b->rep.nbd; k++) {
		const struct run_breakdown *bd = &b->rep.bd[k];
		if (!bd->valid)
			continue;
		for (size_t o = 0; o < b->sub->nobj; o++) {
			uint32_t to = b->sub_obj[o];
			/* Loaded at startup: the breakdown gave it a load time. */
			if (t->obj[to].role != ROLE_LIBRARY || isnan(bd->load_us[o]))
				continue;
			acc[to].execs++;
			acc[to].load += or0(bd->load_us[o]);
			acc[to].reloc += or0(bd->reloc_us[o]);
			acc[to].init += or0(bd->init_us[o]);
		}
	}
}

static int by_total(const void *a, const void *b)
{
	const struct wl_library *x = a, *y = b;

	if (x->total_us != y->total_us)
		return x->total_us < y->total_us ? 1 : -1;
	return strcmp(x->path, y->path);
}

/*
 * The library a path names: one file may be reached by two paths (a
 * merged /usr: /lib/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu), and
 * the question "which library should we fix" is about the file.
 */
static char *library_key(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : xstrdup(path);
}

static struct wl_library *library_for(struct workload *w, struct strmap *by_file,
				      const struct trace_object *o)
{
	char *key = library_key(o->path);
	size_t *slot = strmap_get(by_file, key);

	if (!slot) {
		slot = xmalloc(sizeof *slot);
		*slot = w->nlibs++;
		strmap_put(by_file, key, slot);
		w->libs[*slot] = (struct wl_library){.path = o->path, .soname = o->soname};
	}
	free(key);
	return &w->libs[*slot];
}

void workload_libraries(const struct trace *t, struct workload *w)
{
	struct lib_acc *acc = xcalloc(t->nobj + 1, sizeof *acc);
	struct strmap by_file = {0};
	double runs = (double)w->runs;

	for (size_t bi = 0; bi < w->nbins; bi++)
		if (w->bins[bi].have_rep)
			add_library_costs(t, &w->bins[bi], acc);
	w->libs = xcalloc(t->nobj + 1, sizeof *w->libs);
	for (size_t o = 0; o < t->nobj; o++) {
		if (!acc[o].execs)
			continue;
		struct wl_library *l = library_for(w, &by_file, &t->obj[o]);
		l->execs += acc[o].execs;
		l->load_us += acc[o].load / runs;
		l->reloc_us += acc[o].reloc / runs;
		l->init_us += acc[o].init / runs;
	}
	for (size_t i = 0; i < w->nlibs; i++) {
		struct wl_library *l = &w->libs[i];
		l->execs_per_run = (double)l->execs / runs;
		l->total_us = l->load_us + l->reloc_us + l->init_us;
		l->share = w->wall.median > 0 ? l->total_us / w->wall.median : NAN;
	}
	if (w->nlibs)
		qsort(w->libs, w->nlibs, sizeof *w->libs, by_total);
	strmap_free(&by_file, free);
	free(acc);
}
