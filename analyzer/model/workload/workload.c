/*
 * The workload report (workload.h): every exec of every counted run's
 * tree, grouped by binary; the workload's totals per run; the notes that
 * say what could not be measured and why.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "model/workload/workload-internal.h"
#include "trace/machine.h"

static void take_note(struct workload *w, char *s)
{
	GROW(w->notes, w->capnotes, w->nnotes);
	w->notes[w->nnotes++] = s;
}

static void note(struct workload *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	take_note(w, xvasprintf(fmt, ap));
	va_end(ap);
}

void workload_add_note(struct workload *w, const char *s)
{
	take_note(w, xstrdup(s));
}

/* Build-ids by path, read once per path: "" when none could be read. */
static const char *cached_build_id(struct strmap *ids, const char *path)
{
	char *id = strmap_get(ids, path);
	struct errbuf err;

	if (!id) {
		if (elf_build_id(path, &id, &err) || !id)
			id = xstrdup("");
		strmap_put(ids, path, id);
	}
	return id;
}

static size_t binary_index(struct workload *w, struct strmap *bins, struct strmap *ids,
			   const struct tree_exec *e, size_t *cap)
{
	char *path = e->path ? xstrdup(e->path)
			     : xasprintf("(unknown binary: %s)", e->comm ? e->comm : "no name");
	const char *id = e->path ? cached_build_id(ids, e->path) : "";
	char *key = xasprintf("%s%c%s", path, '\n', id);
	size_t *slot = strmap_get(bins, key);

	if (slot) {
		free(key);
		free(path);
		return *slot - 1;
	}
	GROW(w->bins, *cap, w->nbins);
	memset(&w->bins[w->nbins], 0, sizeof w->bins[0]);
	w->bins[w->nbins].path = path;
	w->bins[w->nbins].build_id = *id ? xstrdup(id) : NULL;
	slot = xmalloc(sizeof *slot);
	*slot = ++w->nbins;
	strmap_put(bins, key, slot);
	free(key);
	return w->nbins - 1;
}

static void add_exec(struct workload *w, size_t run, uint32_t p, uint32_t k, size_t bin,
		     size_t *cap)
{
	const struct trace *t = w->t;
	const struct tree_exec *e = &t->run[run].tree->proc[p].exec[k];
	struct wl_exec *x;

	GROW(w->ex, *cap, w->nex);
	x = &w->ex[w->nex++];
	*x = (struct wl_exec){.run = run, .proc = p, .exec = k, .bin = bin};
	uint64_t start = workload_exec_start(t, x);
	x->wall_us =
		e->end_ts >= start && e->end_ts ? trace_ticks_to_us(t, e->end_ts - start) : NAN;
	x->loader_us = x->startup_us = x->mapping_us = NAN;
	x->reason = e->kind == TREE_EXEC_SHIM ? NULL : workload_kind_name(e->kind);
	w->kind_count[e->kind <= TREE_EXEC_UNKNOWN ? e->kind : TREE_EXEC_UNKNOWN]++;
	struct wl_binary *b = &w->bins[bin];
	b->execs++;
	b->kind_count[e->kind <= TREE_EXEC_UNKNOWN ? e->kind : TREE_EXEC_UNKNOWN]++;
	b->dynamic = b->dynamic || (e->kind != TREE_EXEC_STATIC && e->kind != TREE_EXEC_UNKNOWN);
}

static bool run_has_tree(const struct trace_run *r)
{
	return trace_run_counted(r, true) && r->tree;
}

/* Every exec of every counted profiled run, in run, process and exec order. */
static void collect_execs(struct workload *w)
{
	const struct trace *t = w->t;
	struct strmap bins = {0}, ids = {0};
	size_t capex = 0, capbins = 0;

	w->proc_first = xcalloc(t->nrun + 1, sizeof *w->proc_first);
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (!run_has_tree(r))
			continue;
		w->runs++;
		w->lost_execs += r->tree->lost_execs;
		w->unmatched_execs += r->tree->unmatched_execs;
		w->lost_events += r->tree->lost_events;
		w->proc_first[i] = xcalloc(r->tree->nproc + 1, sizeof *w->proc_first[i]);
		for (uint32_t p = 0; p < r->tree->nproc; p++) {
			const struct tree_proc *tp = &r->tree->proc[p];
			w->proc_first[i][p] = tp->nexec ? w->nex : SIZE_MAX;
			w->orphans += tp->orphan;
			w->forks += !tp->nexec;
			w->forks_recorded += !tp->nexec && tp->fork_recorded;
			if (!tp->have_status)
				w->status_unknown++;
			else if (tp->status_from_shim)
				w->status_shim++;
			else
				w->status_reaped++;
			for (uint32_t k = 0; k < tp->nexec; k++)
				add_exec(w, i, p, k,
					 binary_index(w, &bins, &ids, &tp->exec[k], &capbins),
					 &capex);
		}
	}
	strmap_free(&bins, free);
	strmap_free(&ids, free);
}

/* The runs without their records: report_build gives totals, outcomes and overhead. */
static void whole_workload(struct workload *w)
{
	const struct trace *t = w->t;
	struct trace *v = &w->whole_t;

	*v = *t;
	v->obj = NULL;
	v->nobj = v->capobj = 0;
	v->run = xcalloc(t->nrun + 1, sizeof *v->run);
	v->caprun = t->nrun + 1;
	for (size_t i = 0; i < t->nrun; i++) {
		w->warmup_runs += t->run[i].warmup;
		w->treeless_runs += trace_run_counted(&t->run[i], true) && !t->run[i].tree;
		v->run[i] = t->run[i];
		v->run[i].ev = NULL;
		v->run[i].nev = v->run[i].cap = 0;
		v->run[i].shim_attached = false;
		/* A profiled run without a tree has nothing to say about the workload. */
		if (t->run[i].profiled && !t->run[i].tree)
			v->run[i].warmup = true;
	}
	report_build(v, &w->whole);
	w->wall = w->whole.total;
	w->plain_wall = w->whole.plain_total;
	w->plain_runs = w->whole.plain_runs;
}

static void summarize_copy(const double *v, size_t n, struct summary *out)
{
	double *c = xmalloc((n + 1) * sizeof *c);

	memcpy(c, v, n * sizeof *c);
	summarize(c, n, out);
	free(c);
}

enum {
	S_USER,
	S_SYS,
	S_CPU,
	S_PROCS,
	S_EXECS,
	S_LOADER,
	S_SHARE_WALL,
	S_SHARE_CPU,
	S_MAPPING,
	S_MAPPING_SHARE,
	S_N
};

/* One run's figures, from its tree and its execs' breakdowns. */
static void run_figures(const struct workload *w, size_t run, size_t first, double f[S_N])
{
	const struct trace *t = w->t;
	const struct run_tree *tr = t->run[run].tree;
	double wall = trace_run_us(t, &t->run[run]), loader = 0, mapping = 0;
	size_t execs = 0;

	for (size_t i = first; i < w->nex && w->ex[i].run == run; i++, execs++)
		if (!isnan(w->ex[i].loader_us)) {
			loader += w->ex[i].loader_us;
			mapping += w->ex[i].mapping_us;
		}
	f[S_USER] = tr->have_cpu ? tr->cpu_user_us : NAN;
	f[S_SYS] = tr->have_cpu ? tr->cpu_sys_us : NAN;
	f[S_CPU] = tr->have_cpu ? tr->cpu_user_us + tr->cpu_sys_us : NAN;
	f[S_PROCS] = (double)tr->nproc;
	f[S_EXECS] = (double)execs;
	f[S_LOADER] = loader;
	f[S_SHARE_WALL] = wall > 0 ? loader / wall : NAN;
	f[S_SHARE_CPU] = f[S_CPU] > 0 ? loader / f[S_CPU] : NAN;
	f[S_MAPPING] = mapping;
	f[S_MAPPING_SHARE] = wall > 0 ? mapping / wall : NAN;
}

static void per_run(struct workload *w)
{
	const struct trace *t = w->t;
	double *col[S_N];
	size_t n = 0, first = 0;
	struct summary *dst[S_N] = {&w->cpu_user,
				    &w->cpu_sys,
				    &w->cpu,
				    &w->procs,
				    &w->execs,
				    &w->loader_us,
				    &w->loader_share_wall,
				    &w->loader_share_cpu,
				    &w->mapping_us,
				    &w->mapping_share_wall};

	for (int k = 0; k < S_N; k++)
		col[k] = xmalloc((t->nrun + 1) * sizeof(double));
	for (size_t i = 0; i < t->nrun; i++) {
		double f[S_N];
		if (!run_has_tree(&t->run[i]))
			continue;
		run_figures(w, i, first, f);
		for (int k = 0; k < S_N; k++)
			col[k][n] = f[k];
		while (first < w->nex && w->ex[first].run <= i)
			first++;
		n++;
	}
	for (int k = 0; k < S_N; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (!isnan(col[k][i]))
				col[k][m++] = col[k][i];
		summarize_copy(col[k], m, dst[k]);
		free(col[k]);
	}
}

/* The counted run whose wall time is the (lower) median: the one the tree shows. */
static void pick_median_run(struct workload *w)
{
	const struct trace *t = w->t;
	double *v = xmalloc((t->nrun + 1) * sizeof *v), best = INFINITY;
	size_t n = 0;

	w->median_run = SIZE_MAX;
	for (size_t i = 0; i < t->nrun; i++)
		if (run_has_tree(&t->run[i]))
			v[n++] = trace_run_us(t, &t->run[i]);
	if (n) {
		qsort(v, n, sizeof *v, cmp_double);
		double med = v[(n - 1) / 2];
		for (size_t i = 0; i < t->nrun; i++) {
			if (!run_has_tree(&t->run[i]))
				continue;
			double d = fabs(trace_run_us(t, &t->run[i]) - med);
			if (d < best)
				best = d, w->median_run = i;
		}
	}
	free(v);
}

static void binary_totals(struct workload *w)
{
	double runs = (double)w->runs;

	for (size_t i = 0; i < w->nex; i++) {
		const struct wl_exec *x = &w->ex[i];
		struct wl_binary *b = &w->bins[x->bin];
		if (!isnan(x->wall_us))
			b->wall_us_per_run += x->wall_us / runs;
		if (x->bd) {
			b->analyzed++;
			if (!isnan(x->loader_us)) {
				b->loader_n++;
				b->loader_us_per_run += x->loader_us / runs;
			}
			if (!isnan(x->startup_us))
				b->startup_us_per_run += x->startup_us / runs;
		}
	}
	for (size_t bi = 0; bi < w->nbins; bi++) {
		struct wl_binary *b = &w->bins[bi];
		b->execs_per_run = (double)b->execs / runs;
		if (!b->analyzed)
			b->startup_us_per_run = NAN;
		if (!b->loader_n)
			b->loader_us_per_run = NAN;
		b->startup_share =
			w->wall.median > 0 ? b->startup_us_per_run / w->wall.median : NAN;
		if (b->have_rep && b->rep.have_verdict && b->dynamic) {
			/* Every exec of it pays the loader, recorded or not. */
			b->have_static = true;
			b->static_saved_us_per_run = b->rep.static_saved_us * b->execs_per_run;
			b->static_lo_per_run = b->rep.static_saved_lo * b->execs_per_run;
			b->static_hi_per_run = b->rep.static_saved_hi * b->execs_per_run;
		}
	}
}

static double sort_key(const struct wl_binary *b)
{
	return isnan(b->startup_us_per_run) ? -1 : b->startup_us_per_run;
}

static int by_startup(const void *pa, const void *pb)
{
	const struct wl_binary *a = pa, *b = pb;

	if (sort_key(a) != sort_key(b))
		return sort_key(a) < sort_key(b) ? 1 : -1;
	if (a->execs != b->execs)
		return a->execs < b->execs ? 1 : -1;
	return strcmp(a->path, b->path);
}

static int by_startup_ix(const void *pa, const void *pb, void *arg)
{
	const struct wl_binary *bins = arg;

	return by_startup(&bins[*(const size_t *)pa], &bins[*(const size_t *)pb]);
}

/* Costliest first; the execs' binary indices follow (their breakdowns live in the binaries'
 * reports). */
static void sort_binaries(struct workload *w)
{
	size_t n = w->nbins, *order, *old_to_new;
	struct wl_binary *sorted;

	if (!n) /* no bins, no array: memcpy(NULL, ...) is undefined */
		return;
	order = xmalloc(n * sizeof *order);
	old_to_new = xmalloc(n * sizeof *old_to_new);
	sorted = xmalloc(n * sizeof *sorted);

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, by_startup_ix, w->bins);
	for (size_t i = 0; i < n; i++) {
		sorted[i] = w->bins[order[i]];
		old_to_new[order[i]] = i;
	}
	memcpy(w->bins, sorted, n * sizeof *sorted);
	for (size_t i = 0; i < w->nex; i++)
		w->ex[i].bin = old_to_new[w->ex[i].bin];
	free(sorted);
	free(old_to_new);
	free(order);
}

static void count_unanalyzed(struct workload *w)
{
	for (size_t i = 0; i < w->nex; i++)
		w->unanalyzed_shim += workload_exec_has_records(w->t, &w->ex[i]) && !w->ex[i].bd;
}

static void add_notes(struct workload *w)
{
	double runs = (double)w->runs;

	for (int k = TREE_EXEC_STATIC; k <= TREE_EXEC_UNKNOWN; k++)
		if (w->kind_count[k] && k != TREE_EXEC_LOST) /* said below, with the shim's count */
			note(w, "%zu %s (%.1f per run): %s", w->kind_count[k],
			     w->kind_count[k] == 1 ? "exec" : "execs",
			     (double)w->kind_count[k] / runs,
			     workload_kind_name((enum tree_exec_kind)k));
	if (w->unanalyzed_shim)
		note(w,
		     "%zu execs had records that were incomplete or failed validation: their "
		     "wall time is counted, their phases are not",
		     w->unanalyzed_shim);
	if (w->lost_execs || w->kind_count[TREE_EXEC_LOST]) {
		/* The shim counts what it could not write; the tree, which execs lack records. */
		uint64_t lost = w->lost_execs > w->kind_count[TREE_EXEC_LOST]
					? w->lost_execs
					: w->kind_count[TREE_EXEC_LOST];
		note(w,
		     "%llu %s not recorded: the record buffer was full; their wall time is "
		     "counted, their phases are not",
		     (unsigned long long)lost, lost == 1 ? "exec" : "execs");
	}
	if (w->lost_events)
		note(w, "the kernel dropped %llu task events: the trees may miss processes",
		     (unsigned long long)w->lost_events);
	if (w->unmatched_execs)
		note(w,
		     "%llu %s the shim recorded matched no process of the tree (a process in "
		     "another PID namespace, or task records the kernel lost): not counted",
		     (unsigned long long)w->unmatched_execs,
		     w->unmatched_execs == 1 ? "exec" : "execs");
	if (w->orphans)
		note(w, "%zu processes outlived their parent; ldprof reaped them as subreaper",
		     w->orphans);
	if (w->forks)
		note(w,
		     "%zu %s never executed (%zu seen by the shim: their exit call and CPU); "
		     "the tree shows each with its wall time and exit status",
		     w->forks, w->forks == 1 ? "fork" : "forks", w->forks_recorded);
	if (w->status_shim || w->status_unknown)
		note(w,
		     "exit statuses: %zu reaped by ldprof, %zu as the shim recorded the exit call "
		     "(their parent reaped them), %zu unknown (killed by a signal, a raw exit "
		     "system call, or an image the shim did not enter, reaped by its parent)",
		     w->status_reaped, w->status_shim, w->status_unknown);
	for (size_t i = 0; i < w->nbins; i++) {
		const struct wl_binary *b = &w->bins[i];
		if (b->dynamic && b->analyzed && !b->have_static)
			note(w, "no static-link estimate for %s: %s", b->path,
			     !b->have_features ? "the cost model could not replay it"
					       : "the model does not apply to its records");
	}
	if (trace_fails_only_profiled(w->t))
		note(w,
		     "the profiled runs end otherwise than the plain runs: the workload fails only "
		     "under ldprof (LD_AUDIT in every child)%s%s%s",
		     w->t->profiled_failure ? "; ld.so said: \"" : "",
		     w->t->profiled_failure ? w->t->profiled_failure : "",
		     w->t->profiled_failure ? "\"" : "");
	if (w->treeless_runs)
		note(w, "%zu profiled %s no process tree and %s left out", w->treeless_runs,
		     w->treeless_runs == 1 ? "run has" : "runs have",
		     w->treeless_runs == 1 ? "is" : "are");
	if (w->t->interrupted)
		note(w, "interrupted: the report covers the %zu runs completed", w->runs);
}

void workload_build(const struct trace *t, struct workload *w)
{
	memset(w, 0, sizeof *w);
	w->t = t;
	collect_execs(w);
	whole_workload(w);
	workload_analyze_binaries(t, w);
	count_unanalyzed(w);
	per_run(w);
	binary_totals(w);
	workload_libraries(t, w);
	sort_binaries(w);
	pick_median_run(w);
	add_notes(w);
}

void workload_free(struct workload *w)
{
	for (size_t i = 0; i < w->nbins; i++)
		workload_free_binary(&w->bins[i]);
	free(w->bins);
	free(w->libs);
	free(w->ex);
	for (size_t i = 0; w->proc_first && i < w->t->nrun; i++)
		free(w->proc_first[i]);
	free(w->proc_first);
	report_free(&w->whole);
	free(w->whole_t.run);
	for (size_t i = 0; i < w->nnotes; i++)
		free(w->notes[i]);
	free(w->notes);
	memset(w, 0, sizeof *w);
}
