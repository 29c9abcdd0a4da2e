/* The "ldprof-run/1" JSON schema; documented in docs/json.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/out/json.h"
#include "model/line-decay.h"
#include "model/model.h"
#include "render/render.h"
#include "model/samples.h"
#include "render/samples.h"
#include "model/timeline.h"
#include "base/version.h"

void render_json_summary(struct json *j, const char *key, const struct summary *s)
{
	if (!s->n) {
		json_null(j, key);
		return;
	}
	json_obj_open(j, key);
	json_num(j, "median", s->median);
	json_pair(j, "ci95", s->ci_lo, s->ci_hi);
	json_num(j, "min", s->min);
	json_num(j, "max", s->max);
	json_num(j, "mad", s->mad);
	json_num(j, "mean", s->mean);
	json_int(j, "n", (long long)s->n);
	json_obj_close(j);
}

void render_json_head(struct json *j, const char *key, const char *schema, const struct trace *t)
{
	json_obj_open(j, key);
	json_str(j, "schema", schema);
	json_str(j, "ldprof_version", LDPROF_VERSION);
	json_arr_open(j, "command");
	for (int i = 0; i < t->argc; i++)
		json_str(j, NULL, t->argv[i]);
	json_arr_close(j);
}

void render_json_notes(struct json *j, char *const *notes, size_t n)
{
	json_arr_open(j, "notes");
	for (size_t i = 0; i < n; i++)
		json_str(j, NULL, notes[i]);
	json_arr_close(j);
}

/* "key": median, "key_ci95": [lo, hi] */
static void median_and_ci(struct json *j, const char *key, const struct summary *s)
{
	char ci[64];

	snprintf(ci, sizeof ci, "%s_ci95", key);
	json_num(j, key, s->n ? s->median : NAN);
	if (!s->n) {
		json_null(j, ci);
		return;
	}
	json_pair(j, ci, s->ci_lo, s->ci_hi);
}

static void phases(struct json *j, const struct report *rep)
{
	json_arr_open(j, "phases");
	for (int p = 0; rep->profiled && p < PH_COUNT; p++) {
		const struct summary *s = &rep->phase[p];
		json_obj_open(j, NULL);
		json_str(j, "name", phase_name(p));
		median_and_ci(j, "median_us", s);
		json_num(j, "min_us", s->n ? s->min : NAN);
		json_num(j, "max_us", s->n ? s->max : NAN);
		json_int(j, "runs", (long long)s->n);
		json_str(j, "description", phase_help(p));
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void relocations(struct json *j, const struct reloc_counts *r)
{
	json_obj_open(j, "relocations");
	json_int(j, "total", (long long)reloc_counts_total(r));
	json_int(j, "relative", (long long)r->relative);
	json_int(j, "relr", (long long)r->relr);
	json_int(j, "glob_dat", (long long)r->glob_dat);
	json_int(j, "jump_slot", (long long)r->jump_slot);
	json_int(j, "symbolic", (long long)r->symbolic);
	json_int(j, "tls", (long long)r->tls);
	json_int(j, "irelative", (long long)r->irelative);
	json_int(j, "copy", (long long)r->copy);
	json_int(j, "other", (long long)r->other);
	json_obj_close(j);
}

/*
 * What the model's figure for an object is made of: each count times its
 * price, the non-zero ones; and the counts themselves, so that another
 * calibration can be held against the same runs.
 */
static void model_terms(struct json *j, const struct model_coefs *m, const double *feat)
{
	json_obj_open(j, "reloc_model_terms_us");
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (m->coef_us[k] * feat[k] != 0)
			json_num(j, model_feat_name(k), m->coef_us[k] * feat[k]);
	json_obj_close(j);
	json_obj_open(j, "reloc_model_counts");
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (feat[k] != 0)
			json_num(j, model_feat_name(k), feat[k]);
	json_obj_close(j);
}

static void libraries(struct json *j, const struct report *rep)
{
	json_arr_open(j, "libraries");
	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct report_object *ro = &rep->objs[i];
		const struct trace_object *o = &rep->t->obj[ro->obj];
		json_obj_open(j, NULL);
		json_str(j, "path", o->path);
		json_str(j, "soname", o->soname);
		json_str(j, "role", role_name(o->role));
		json_bool(j, "dlopened", o->dlopened);
		json_bool(j, "timed", !o->untimed_seen);
		median_and_ci(j, "load_us", &ro->load);
		median_and_ci(j, "reloc_us", &ro->reloc);
		median_and_ci(j, "init_us", &ro->init);
		median_and_ci(j, "fini_us", &ro->fini);
		median_and_ci(j, "total_us", &ro->total);
		json_num(j, "share", ro->share);
		json_int(j, "runs", (long long)ro->runs);
		if (ro->symbind.n) {
			median_and_ci(j, "symbind_us", &ro->symbind);
			json_int(j, "symbind_calls", (long long)ro->symbind_calls);
		}
		if (rep->have_verdict && o->role == ROLE_LIBRARY) {
			json_num(j, "static_link_saved_us", ro->link_saved_us);
			json_num(j, "exit_path_us", ro->exit_us);
			json_num(j, "crt_faults", o->crt_faults16 / 16.0);
			json_num(j, "crt_us", ro->crt_us);
			if (o->have_mapped)
				json_int(j, "mapped_pages", o->mapped_pages);
			else
				json_null(j, "mapped_pages");
		}
		if (rep->have_verdict && o->role != ROLE_VDSO) {
			json_int(j, "lazy_binds", o->lazy_binds);
			json_num(j, "lazy_us", ro->lazy_us);
		}
		if (o->have_feat && rep->t->model.valid) {
			json_num(j, "reloc_model_us", model_object_us(&rep->t->model, o->feat));
			model_terms(j, &rep->t->model, o->feat);
		}
		if (o->have_facts) {
			relocations(j, &o->relocs);
			json_int(j, "init_functions", o->init_funcs);
			json_int(j, "fini_functions", o->fini_funcs);
			json_bool(j, "bind_now", o->bind_now);
		}
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void status_fields(struct json *j, int st)
{
	if (WIFEXITED(st))
		json_int(j, "exit_status", WEXITSTATUS(st));
	else
		json_null(j, "exit_status");
	if (WIFSIGNALED(st)) {
		char name[SIGNAL_NAME_MAX];
		signal_name(WTERMSIG(st), name);
		json_str(j, "signal", name);
	} else {
		json_null(j, "signal");
	}
}

/* Microseconds from the run's start; null when the moment was not seen. */
static void tree_time(struct json *j, const char *key, const struct trace *t,
		      const struct trace_run *r, uint64_t ts)
{
	if (!ts)
		json_null(j, key);
	else
		json_num(j, key,
			 ts >= r->exec_ts ? trace_ticks_to_us(t, ts - r->exec_ts)
					  : -trace_ticks_to_us(t, r->exec_ts - ts));
}

static void tree_exec_obj(struct json *j, const struct trace *t, const struct trace_run *r,
			  const struct tree_proc *p, size_t k)
{
	const struct tree_exec *e = &p->exec[k];

	json_obj_open(j, NULL);
	json_int(j, "pid", p->pid);
	json_int(j, "ppid", p->ppid);
	json_str(j, "path", e->path);
	json_str(j, "comm", e->comm);
	if (e->argv) {
		json_arr_open(j, "argv");
		for (size_t a = 0; a < e->argc; a++)
			json_str(j, NULL, e->argv[a]);
		json_arr_close(j);
	} else {
		json_null(j, "argv");
	}
	tree_time(j, "start_us", t, r, e->ts);
	tree_time(j, "end_us", t, r, e->end_ts);
	json_str(j, "kind", tree_exec_kind_name(e->kind));
	json_int(j, "records", (long long)e->nev);
	json_num(j, "user_us", e->have_cpu ? e->utime_us : NAN);
	json_num(j, "sys_us", e->have_cpu ? e->stime_us : NAN);
	/* A process's status is its last image's. */
	if (k + 1 == p->nexec && p->have_status) {
		status_fields(j, p->wait_status);
	} else {
		json_null(j, "exit_status");
		json_null(j, "signal");
	}
	json_obj_close(j);
}

/* -f: the run's process tree, every process and every exec (tree.h). */
static void tree_obj(struct json *j, const struct trace *t, const struct trace_run *r)
{
	const struct run_tree *tr = r->tree;

	json_obj_open(j, "tree");
	json_int(j, "lost_events", (long long)tr->lost_events);
	json_int(j, "lost_execs", (long long)tr->lost_execs);
	json_int(j, "unmatched_execs", (long long)tr->unmatched_execs);
	json_num(j, "cpu_user_us", tr->have_cpu ? tr->cpu_user_us : NAN);
	json_num(j, "cpu_sys_us", tr->have_cpu ? tr->cpu_sys_us : NAN);
	json_arr_open(j, "processes");
	for (size_t i = 0; i < tr->nproc; i++) {
		const struct tree_proc *p = &tr->proc[i];
		json_obj_open(j, NULL);
		json_int(j, "pid", p->pid);
		json_int(j, "ppid", p->ppid);
		if (p->parent == TREE_NO_PROC)
			json_null(j, "parent");
		else
			json_int(j, "parent", p->parent);
		tree_time(j, "fork_us", t, r, p->fork_ts);
		tree_time(j, "exit_us", t, r, p->exit_ts);
		json_bool(j, "orphan", p->orphan);
		json_int(j, "execs", (long long)p->nexec);
		if (p->have_status) {
			status_fields(j, p->wait_status);
		} else {
			json_null(j, "exit_status");
			json_null(j, "signal");
		}
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "execs");
	for (size_t i = 0; i < tr->nproc; i++)
		for (size_t k = 0; k < tr->proc[i].nexec; k++)
			tree_exec_obj(j, t, r, &tr->proc[i], k);
	json_arr_close(j);
	json_obj_close(j);
}

/* Each counted run: its total and how it ended. */
static void per_run(struct json *j, const struct report *rep)
{
	const struct trace *t = rep->t;

	json_arr_open(j, "per_run");
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (!run_counted(rep, i))
			continue;
		json_obj_open(j, NULL);
		json_num(j, "total_us", trace_run_us(t, r));
		status_fields(j, r->wait_status);
		json_int(j, "minflt", r->usage.minflt);
		if (r->usage.nivcsw >= 0)
			json_int(j, "preemptions", r->usage.nivcsw);
		else
			json_null(j, "preemptions");
		size_t cpu = trace_run_cpu_index(r);
		json_num(j, "cpu_us", cpu < r->nev ? (double)r->ev[cpu].a : NAN);
		json_num(j, "tree_cpu_us", r->usage.tree_cpu_us);
		const struct run_breakdown *bd = report_breakdown(rep, i);
		if (bd) {
			json_arr_open(j, "phases_us");
			for (int p = 0; p < PH_COUNT; p++)
				json_num(j, NULL, bd->valid ? bd->phase_us[p] : NAN);
			json_arr_close(j);
		}
		if (r->tree)
			tree_obj(j, t, r);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void outcomes(struct json *j, const struct report *rep)
{
	bool uniform = rep->noutcomes == 1 && WIFEXITED(rep->outcomes[0].wait_status);

	if (uniform)
		json_int(j, "exit_status", WEXITSTATUS(rep->outcomes[0].wait_status));
	else
		json_null(j, "exit_status");
	json_arr_open(j, "outcomes");
	for (size_t i = 0; i < rep->noutcomes; i++) {
		int st = rep->outcomes[i].wait_status;
		char *d = describe_status(st);
		json_obj_open(j, NULL);
		json_str(j, "description", d);
		status_fields(j, st);
		json_int(j, "runs", (long long)rep->outcomes[i].runs);
		json_obj_close(j);
		free(d);
	}
	json_arr_close(j);
}

static void overhead(struct json *j, const struct report *rep)
{
	json_num(j, "overhead_us", rep->have_overhead ? rep->overhead_us : NAN);
	if (rep->have_overhead) {
		json_pair(j, "overhead_us_ci95", rep->overhead_ci_lo, rep->overhead_ci_hi);
	} else {
		json_null(j, "overhead_us_ci95");
	}
	json_num(j, "overhead_pct", rep->have_overhead ? rep->overhead_pct : NAN);
	json_num(j, "overhead_minflt", rep->have_overhead ? rep->overhead_minflt : NAN);
}

/* The relocation cost model next to the measured relocate phase. */
static void reloc_model(struct json *j, const struct report *rep)
{
	const struct model_coefs *m = &rep->t->model;

	if (!rep->reloc_by_model) {
		json_null(j, "reloc_model");
		return;
	}
	json_obj_open(j, "reloc_model");
	json_bool(j, "calibrated", m->calibrated);
	json_bool(j, "cold_cache", m->cold_cache);
	json_str(j, "source", m->source);
	json_str(j, "machine", m->machine);
	json_str(j, "created", m->created[0] ? m->created : NULL);
	json_num(j, "predicted_us", rep->reloc_model_us);
	json_num(j, "measured_us", rep->reloc_measured_us);
	json_num(j, "contended_blocks_pct", m->contended_blocks_pct);
	json_str(j, "measured_runs",
		 rep->reloc_measured_runs == RELOC_RUNS_CALM	     ? "uncontended"
		 : rep->reloc_measured_runs == RELOC_RUNS_CONTENDED ? "contended"
								    : "all");
	json_num(j, "residual_us", rep->reloc_residual_us);
	json_num(j, "footprint_kib", model_reloc_footprint(rep->t) / 1024);
	json_bool(j, "warm_lines", model_warm_share(rep->t) > 0);
	json_num(j, "warm_share", model_warm_share(rep->t));
	json_num(j, "own_work_us", model_own_work_us(rep->t));
	json_num(j, "own_faults", model_own_faults(rep->t));
	double interval = line_decay_interval_us(rep->t);
	json_num(j, "interval_us", interval);
	json_num(j, "lines_surviving", line_decay_surviving(rep->t, interval));
	json_num(j, "priced_line_ns", m->priced_line_ns > 0 ? m->priced_line_ns : NAN);
	json_num(j, "cold_line_calibrated_us",
		 rep->t->cold_line_shifted ? rep->t->cold_line_cal_us : NAN);
	json_num(j, "intercept_us", m->intercept_us);
	json_obj_open(j, "coef_us");
	for (int k = 0; k < MODEL_NFEAT; k++)
		json_num(j, model_feat_name(k), m->coef_us[k]);
	json_obj_close(j);
	json_obj_close(j);
}

/* The shared cache's state during the runs (model/cache-state.h). */
static void cache_state(struct json *j, const struct report *rep)
{
	const struct cache_state *c = &rep->cache;

	if (!c->probed) {
		json_null(j, "shared_cache");
		return;
	}
	json_obj_open(j, "shared_cache");
	json_num(j, "probed_runs", (double)c->probed);
	json_num(j, "contended_runs", (double)c->contended);
	json_num(j, "line_ns", c->line_ns);
	json_num(j, "line_hot_ns", c->hot_ns);
	json_num(j, "contended_line_ns", c->contended ? c->contended_line_ns : NAN);
	json_num(j, "relocate_uncontended_us", c->reloc_calm.n ? c->reloc_calm.median : NAN);
	json_num(j, "relocate_contended_us",
		 c->reloc_contended.n ? c->reloc_contended.median : NAN);
	json_obj_close(j);
}

/* The scheduler's preemptions during the runs (model/sched-state.h). */
static void sched_state(struct json *j, const struct report *rep)
{
	const struct sched_state *ss = &rep->sched;

	if (!ss->runs) {
		json_null(j, "scheduler");
		return;
	}
	json_obj_open(j, "scheduler");
	json_num(j, "runs", (double)ss->runs);
	json_num(j, "preempted_runs", (double)ss->preempted);
	json_num(j, "preempted_pct", sched_state_pct(ss));
	json_num(j, "total_preempted_us",
		 ss->total_preempted.n ? ss->total_preempted.median : NAN);
	json_num(j, "total_other_us", ss->total_other.n ? ss->total_other.median : NAN);
	json_obj_close(j);
}

static const char *static_verdict_name(enum static_verdict v)
{
	return v == SV_SAVES ? "saves" : v == SV_HURTS ? "hurts" : "no_gain";
}

/*
 * How far the machine stretched the program's tree of processes
 * (sched-state.h), which the saving is multiplied by when its processes
 * started others; null without runs that have their tree's CPU time.
 */
static void json_stretch(struct json *j, const struct report *rep)
{
	const struct summary *s = &rep->tree_stretch;

	if (!s->n) {
		json_null(j, "stretch");
		return;
	}
	json_obj_open(j, "stretch");
	json_num(j, "ratio", s->median);
	json_pair(j, "ci95", s->ci_lo, s->ci_hi);
	json_int(j, "runs", (long long)s->n);
	json_bool(j, "applied", rep->stretch_applied);
	json_obj_close(j);
}

/* The static-link estimate and the ranked recommendations. */
static void verdict(struct json *j, const struct report *rep)
{
	if (!rep->have_verdict) {
		json_null(j, "verdict");
	} else {
		json_obj_open(j, "verdict");
		json_num(j, "static_link_saved_us", rep->static_saved_us);
		json_pair(j, "ci95", rep->static_saved_lo, rep->static_saved_hi);
		json_num(j, "pct", rep->static_saved_pct);
		json_num(j, "kept_ifunc_us", rep->static_kept_us);
		json_str(j, "judgement", static_verdict_name(rep->static_verdict));
		json_num(j, "static_total_us", rep->static_total_us);
		json_obj_open(j, "parts_us");
		json_num(j, "dynamic_fixed", rep->static_fixed_us);
		json_num(j, "executable_relocation", rep->static_exe_us);
		json_num(j, "libraries", rep->static_libs_us);
		json_num(j, "exit_path", rep->static_exit_us);
		json_num(j, "lazy_binding", rep->static_lazy_us);
		json_num(j, "crt_code", rep->static_crt_us);
		json_num(j, "forks", rep->static_fork_us);
		json_num(j, "nss_lookups", rep->static_nss_us);
		json_num(j, "no_allocation", -rep->static_noalloc_us);
		json_num(j, "static_own_start", -rep->static_own_us);
		json_num(j, "static_first_unwind", -rep->static_unwind_us);
		json_num(j, "machine_load", rep->static_load_us);
		json_obj_close(j);
		json_num(j, "fault_us", rep->static_fault_us);
		json_stretch(j, rep);
		/* The forks of the program's own image in one run; null: not counted. */
		if (rep->t->forks_counted) {
			json_int(j, "image_forks", rep->t->image_forks);
			json_int(j, "image_vforks", rep->t->image_vforks);
			json_arr_open(j, "fork_us");
			json_num(j, NULL, rep->t->model.fork_fixed_us);
			json_num(j, NULL, rep->t->model.fork_per_object_us);
			json_arr_close(j);
			json_bool(j, "fork_lazy", rep->t->static_side.fork_lazy);
			json_arr_open(j, "fork_lazy_us");
			json_num(j, NULL, rep->t->model.fork_lazy_fixed_us);
			json_num(j, NULL, rep->t->model.fork_lazy_per_object_us);
			json_arr_close(j);
			json_bool(j, "fork_price_now", rep->t->fork_price_now);
			json_int(j, "image_nss", rep->t->image_nss);
			json_num(j, "nss_us", rep->t->model.nss_us);
			json_bool(j, "nss_price_now", rep->t->nss_price_now);
			/* null: the calibration has no price of its own. */
			if (rep->t->nss_price_now)
				json_num(j, "nss_calibrated_us",
					 rep->t->nss_cal_us > 0 ? rep->t->nss_cal_us : NAN);
			if (rep->t->heap_seen)
				json_bool(j, "image_heap", rep->t->image_heap);
			else
				json_null(j, "image_heap");
			json_num(j, "malloc_us", rep->t->model.malloc_us);
		} else {
			json_null(j, "image_forks");
			json_null(j, "image_vforks");
			json_null(j, "image_nss");
			json_null(j, "image_heap");
		}
		/* --fixed-runs: parts_us.dynamic_fixed measured in so many rounds. */
		json_int(j, "dynamic_fixed_runs", rep->t->fixed_runs);
		if (rep->t->fixed_runs) {
			json_num(j, "dynamic_fixed_calibrated_us", rep->t->fixed_cal_us);
			json_bool(j, "dynamic_fixed_interleaved", rep->t->fixed_interleaved);
		}
		if (rep->t->static_side.known) {
			json_int(j, "static_ifunc_extra", rep->t->static_side.ifunc_extra);
			json_int(j, "static_ifunc_bound", rep->t->static_side.ifunc_bound);
			json_int(j, "static_fdes", rep->t->static_side.fdes);
			json_int(j, "static_fdes_erratic", rep->t->static_side.fdes_erratic);
			if (rep->t->static_side.have_kept) {
				json_int(j, "static_fdes_runtime_kept",
					 rep->t->static_side.fdes_runtime_kept);
				json_int(j, "static_fdes_erratic_kept",
					 rep->t->static_side.fdes_erratic_kept);
			}
		}
		json_num(j, "unwind_price_us", rep->t->model.fde_sort_us);
		json_bool(j, "unwind_price_now", rep->t->unwind_price_now);
		if (rep->t->unwind_price_now)
			json_num(j, "unwind_price_calibrated_us", rep->t->unwind_cal_price);
		json_num(j, "model_error_us", rep->static_model_err_us);
		json_bool(j, "calibrated", rep->t->model.calibrated);
		json_obj_close(j);
	}
	json_arr_open(j, "advice");
	for (size_t i = 0; i < rep->nadvice; i++) {
		const struct advice *a = &rep->advice[i];
		json_obj_open(j, NULL);
		json_str(j, "what", a->what);
		json_str(j, "why", a->why);
		json_num(j, "saved_us", a->saved_us);
		json_pair(j, "ci95", a->saved_lo, a->saved_hi);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void usage(struct json *j, const struct report *rep)
{
	json_obj_open(j, "usage");
	json_num(j, "utime_us", rep->utime.median);
	json_num(j, "stime_us", rep->stime.median);
	json_num(j, "minflt", rep->minflt.median);
	json_num(j, "maxrss_kb", rep->maxrss.median);
	json_bool(j, "maxrss_is_bound", rep->maxrss_is_bound);
	json_num(j, "launcher_rss_kb", rep->launcher_rss_kb);
	json_obj_close(j);
}

void render_json(FILE *f, const struct report *rep)
{
	struct json j;

	json_begin(&j, f);
	render_json_obj(&j, NULL, rep);
	json_end(&j);
}

void render_json_obj(struct json *jw, const char *key, const struct report *rep)
{
	const struct trace *t = rep->t;
	struct json j = *jw;

	render_json_head(&j, key, "ldprof-run/1", t);
	json_str(&j, "program", t->program);
	json_str(&j, "elf_kind", elf_kind_name(t->kind));
	json_bool(&j, "static", rep->is_static);
	json_int(&j, "runs", (long long)rep->runs);
	json_int(&j, "warmup_runs", (long long)rep->warmup_runs);
	json_int(&j, "plain_runs", (long long)(rep->profiled ? rep->plain_runs : 0));
	json_int(&j, "valid_runs", (long long)rep->valid_runs);
	json_bool(&j, "interrupted", rep->interrupted);
	json_bool(&j, "cold_cache", t->cold_cache);
	json_num(&j, "tsc_hz", t->tsc_hz);
	render_json_summary(&j, "total_us", &rep->total);
	if (rep->profiled)
		render_json_summary(&j, "plain_total_us", &rep->plain_total);
	else
		json_null(&j, "plain_total_us");
	if (rep->samples) /* --sample: what sampling costs the runs it samples */
		render_json_summary(&j, "sampled_total_us", &rep->samples->total_us);
	phases(&j, rep);
	json_num(&j, "phase_sum_us", rep->profiled ? rep->phase_sum_us : NAN);
	libraries(&j, rep);
	reloc_model(&j, rep);
	cache_state(&j, rep);
	sched_state(&j, rep);
	verdict(&j, rep);
	overhead(&j, rep);
	outcomes(&j, rep);
	usage(&j, rep);
	per_run(&j, rep);
	render_samples_json(&j, rep);
	render_json_notes(&j, rep->notes, rep->nnotes);
	json_obj_close(&j);
	*jw = j;
}
