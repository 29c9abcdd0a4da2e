/* The "ldprof-workload/1" JSON schema (ldprof -f); documented in docs/json.md. */
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "base/out/json.h"
#include "render/workload/workload-render.h"

/* As the per-run JSON says it: the exit status, or the signal's name. */
static void status(struct json *j, bool have, int st)
{
	char name[SIGNAL_NAME_MAX];

	json_num(j, "exit_status", have && WIFEXITED(st) ? WEXITSTATUS(st) : NAN);
	json_str(j, "signal",
		 have && WIFSIGNALED(st) && signal_name(WTERMSIG(st), name) ? name : NULL);
}

static void workload_obj(struct json *j, const struct workload *w)
{
	const struct report *r = &w->whole;

	json_obj_open(j, "workload");
	render_json_summary(j, "wall_us", &w->wall);
	render_json_summary(j, "plain_wall_us", &w->plain_wall);
	render_json_summary(j, "cpu_user_us", &w->cpu_user);
	render_json_summary(j, "cpu_sys_us", &w->cpu_sys);
	render_json_summary(j, "cpu_us", &w->cpu);
	render_json_summary(j, "processes", &w->procs);
	render_json_summary(j, "execs", &w->execs);
	json_obj_open(j, "loader");
	json_arr_open(j, "phases");
	for (int p = PH_EXEC; p <= PH_RELOCATE; p++)
		json_str(j, NULL, phase_name(p));
	json_arr_close(j);
	render_json_summary(j, "us", &w->loader_us);
	render_json_summary(j, "share_of_wall", &w->loader_share_wall);
	render_json_summary(j, "share_of_cpu", &w->loader_share_cpu);
	render_json_summary(j, "load_relocate_us", &w->mapping_us);
	render_json_summary(j, "load_relocate_share_of_wall", &w->mapping_share_wall);
	json_obj_close(j);
	json_obj_open(j, "exec_kinds");
	for (int k = 0; k <= TREE_EXEC_UNKNOWN; k++)
		json_int(j, tree_exec_kind_name((enum tree_exec_kind)k),
			 (long long)w->kind_count[k]);
	json_obj_close(j);
	json_int(j, "execs_unanalyzed", (long long)w->unanalyzed_shim);
	json_int(j, "lost_execs", (long long)w->lost_execs);
	json_int(j, "unmatched_execs", (long long)w->unmatched_execs);
	json_int(j, "lost_events", (long long)w->lost_events);
	json_int(j, "orphans", (long long)w->orphans);
	json_int(j, "forks_without_exec", (long long)w->forks);
	json_obj_open(j, "exit_status_from");
	json_int(j, "ldprof", (long long)w->status_reaped);
	json_int(j, "shim", (long long)w->status_shim);
	json_int(j, "unknown", (long long)w->status_unknown);
	json_obj_close(j);
	if (r->have_overhead) {
		json_obj_open(j, "overhead");
		json_num(j, "us", r->overhead_us);
		json_num(j, "pct", r->overhead_pct);
		json_pair(j, "ci95_us", r->overhead_ci_lo, r->overhead_ci_hi);
		json_int(j, "plain_runs", (long long)r->plain_runs);
		json_obj_close(j);
	} else {
		json_null(j, "overhead");
	}
	json_obj_close(j);
}

static void binary_obj(struct json *j, const struct wl_binary *b)
{
	json_obj_open(j, NULL);
	json_str(j, "path", b->path);
	json_str(j, "build_id", b->build_id);
	json_bool(j, "dynamic", b->dynamic);
	json_int(j, "execs", (long long)b->execs);
	json_int(j, "execs_analyzed", (long long)b->analyzed);
	json_num(j, "execs_per_run", b->execs_per_run);
	json_obj_open(j, "phases_per_exec_us");
	for (int p = 0; p < PH_COUNT; p++) {
		const struct summary *s = &b->rep.phase[p];
		if (b->have_rep && s->n) {
			json_obj_open(j, phase_name(p));
			json_num(j, "median", s->median);
			json_pair(j, "ci95", s->ci_lo, s->ci_hi);
			json_obj_close(j);
		} else {
			json_null(j, phase_name(p));
		}
	}
	json_obj_close(j);
	json_num(j, "wall_us_per_run", b->wall_us_per_run);
	json_num(j, "loader_us_per_run", b->loader_us_per_run);
	json_num(j, "startup_us_per_run", b->startup_us_per_run);
	json_num(j, "startup_share", b->startup_share);
	json_num(j, "static_link_saved_us_per_exec", b->have_static ? b->rep.static_saved_us : NAN);
	if (b->have_static)
		json_pair(j, "static_link_saved_us_per_run_ci", b->static_lo_per_run,
			  b->static_hi_per_run);
	json_num(j, "static_link_saved_us_per_run",
		 b->have_static ? b->static_saved_us_per_run : NAN);
	json_obj_open(j, "exec_kinds");
	for (int k = 0; k <= TREE_EXEC_UNKNOWN; k++)
		json_int(j, tree_exec_kind_name((enum tree_exec_kind)k),
			 (long long)b->kind_count[k]);
	json_obj_close(j);
	json_obj_close(j);
}

static void library_obj(struct json *j, const struct wl_library *l)
{
	json_obj_open(j, NULL);
	json_str(j, "path", l->path);
	json_str(j, "soname", l->soname);
	json_int(j, "execs", (long long)l->execs);
	json_num(j, "execs_per_run", l->execs_per_run);
	json_num(j, "load_us_per_run", l->load_us);
	json_num(j, "reloc_us_per_run", l->reloc_us);
	json_num(j, "init_us_per_run", l->init_us);
	json_num(j, "total_us_per_run", l->total_us);
	json_num(j, "share", l->share);
	json_obj_close(j);
}

static void exec_obj(struct json *j, const struct workload *w, const struct wl_exec *x)
{
	const struct trace *t = w->t;
	const struct tree_proc *p = &t->run[x->run].tree->proc[x->proc];
	const struct tree_exec *e = &p->exec[x->exec];
	bool last = x->exec + 1 == p->nexec;

	json_obj_open(j, NULL);
	json_int(j, "pid", p->pid);
	json_int(j, "ppid", p->ppid);
	json_int(j, "process", x->proc);
	json_str(j, "path", e->path);
	json_str(j, "comm", e->comm);
	size_t argc;
	char *const *argv = workload_exec_argv(t, x, &argc);
	if (argv) {
		json_arr_open(j, "argv");
		for (size_t i = 0; i < argc; i++)
			json_str(j, NULL, argv[i]);
		json_arr_close(j);
	} else {
		json_null(j, "argv");
	}
	json_num(j, "start_us", workload_run_us(w, x->run, workload_exec_start(t, x)));
	json_num(j, "end_us", e->end_ts ? workload_run_us(w, x->run, e->end_ts) : NAN);
	json_num(j, "wall_us", x->wall_us);
	json_str(j, "kind", tree_exec_kind_name(e->kind));
	json_str(j, "reason", x->reason);
	if (x->bd) {
		json_obj_open(j, "phases_us");
		for (int k = 0; k < PH_COUNT; k++)
			json_num(j, phase_name(k), x->bd->phase_us[k]);
		json_obj_close(j);
	} else {
		json_null(j, "phases_us");
	}
	/* The top's first exec: its records may be the run's alone. */
	bool top = x->proc == 0 && x->exec == 0;
	json_int(j, "records", (long long)(e->nev || !top ? e->nev : t->run[x->run].nev));
	json_num(j, "user_us", e->have_cpu ? e->utime_us : NAN);
	json_num(j, "sys_us", e->have_cpu ? e->stime_us : NAN);
	json_num(j, "loader_us", x->loader_us);
	json_num(j, "startup_us", x->startup_us);
	json_num(j, "load_relocate_us", x->mapping_us);
	json_bool(j, "replaced_by_exec", !last);
	status(j, last && p->have_status, p->wait_status);
	json_obj_close(j);
}

/* A fork that never executed: what the shim saw of it (null when it did not). */
static void fork_fields(struct json *j, const struct workload *w, size_t run,
			const struct tree_proc *p)
{
	bool seen = !p->nexec && p->fork_recorded;
	double exit_call = p->exit_call_ts ? workload_run_us(w, run, p->exit_call_ts) : NAN;

	json_num(j, "fork_records", seen ? p->fork_records : NAN);
	if (seen && p->exit_call_ts && p->exit_ts) {
		json_obj_open(j, "fork_phases_us");
		json_num(j, "main", exit_call - workload_run_us(w, run, p->fork_ts));
		json_num(j, "exit", workload_run_us(w, run, p->exit_ts) - exit_call);
		json_obj_close(j);
	} else {
		json_null(j, "fork_phases_us");
	}
	json_num(j, "user_us", seen && p->have_cpu ? p->utime_us : NAN);
	json_num(j, "sys_us", seen && p->have_cpu ? p->stime_us : NAN);
}

static void run_obj(struct json *j, const struct workload *w, size_t run)
{
	const struct trace_run *r = &w->t->run[run];
	const struct run_tree *tr = r->tree;

	json_obj_open(j, NULL);
	json_int(j, "run", (long long)workload_run_ordinal(w, run));
	json_num(j, "total_us", trace_run_us(w->t, r)); /* as ldprof-run/1's per_run */
	status(j, true, r->wait_status);
	json_obj_open(j, "tree");
	json_num(j, "cpu_user_us", tr->have_cpu ? tr->cpu_user_us : NAN);
	json_num(j, "cpu_sys_us", tr->have_cpu ? tr->cpu_sys_us : NAN);
	json_int(j, "lost_events", (long long)tr->lost_events);
	json_int(j, "lost_execs", (long long)tr->lost_execs);
	json_int(j, "unmatched_execs", (long long)tr->unmatched_execs);
	json_arr_open(j, "processes");
	for (size_t i = 0; i < tr->nproc; i++) {
		const struct tree_proc *p = &tr->proc[i];
		json_obj_open(j, NULL);
		json_int(j, "pid", p->pid);
		json_int(j, "ppid", p->ppid);
		json_num(j, "parent", p->parent == TREE_NO_PROC ? NAN : p->parent);
		json_num(j, "fork_us", workload_run_us(w, run, p->fork_ts));
		json_num(j, "exit_us", p->exit_ts ? workload_run_us(w, run, p->exit_ts) : NAN);
		json_bool(j, "orphan", p->orphan);
		json_int(j, "execs", (long long)p->nexec);
		status(j, p->have_status, p->wait_status);
		json_str(j, "exit_status_from",
			 !p->have_status ? NULL : p->status_from_shim ? "shim" : "ldprof");
		fork_fields(j, w, run, p);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "execs");
	size_t first, n = workload_run_execs(w, run, &first);
	for (size_t i = first; i < first + n; i++)
		exec_obj(j, w, &w->ex[i]);
	json_arr_close(j);
	json_obj_close(j);
	json_obj_close(j);
}

void render_workload_json_obj(struct json *j, const char *key, const struct workload *w)
{
	const struct trace *t = w->t;

	render_json_head(j, key, "ldprof-workload/1", t);
	json_str(j, "cwd", t->cwd);
	json_int(j, "runs", (long long)w->runs);
	json_int(j, "plain_runs", (long long)w->plain_runs);
	json_int(j, "warmup_runs", (long long)w->warmup_runs);
	json_int(j, "runs_without_tree", (long long)w->treeless_runs);
	json_bool(j, "cold_cache", t->cold_cache);
	json_num(j, "median_run",
		 w->median_run == SIZE_MAX ? NAN : (double)workload_run_ordinal(w, w->median_run));
	workload_obj(j, w);
	json_arr_open(j, "binaries");
	for (size_t i = 0; i < w->nbins; i++)
		binary_obj(j, &w->bins[i]);
	json_arr_close(j);
	json_arr_open(j, "libraries");
	for (size_t i = 0; i < w->nlibs; i++)
		library_obj(j, &w->libs[i]);
	json_arr_close(j);
	render_json_notes(j, w->notes, w->nnotes);
	json_arr_open(j, "per_run");
	for (size_t i = 0; i < t->nrun; i++)
		if (w->proc_first[i])
			run_obj(j, w, i);
	json_arr_close(j);
	json_obj_close(j);
}

void render_workload_json(FILE *f, const struct workload *w)
{
	struct json j;

	json_begin(&j, f);
	render_workload_json_obj(&j, NULL, w);
	json_end(&j);
}
