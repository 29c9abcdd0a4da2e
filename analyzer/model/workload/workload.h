/*
 * The workload report (`ldprof -f`): from the runs' process trees, the
 * whole workload's wall time and CPU, its processes and execs, the
 * loader's share, and the same per binary (grouped by path and build-id)
 * and per library across the tree. Each exec's phases come from the
 * per-run analysis itself (report_build on a trace whose runs are that
 * binary's execs), so an exec in a tree and a lone `ldprof run` of the
 * same binary are measured by one code path.
 *
 * The loader's work of an exec is its exec, load and relocate phases:
 * from the kernel's exec point to the first constructor. Its startup adds
 * the constructors (init): from the exec point to main.
 */
#ifndef LDPROF_WORKLOAD_H
#define LDPROF_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "model/analyze.h"

/* One exec of one counted profiled run. */
struct wl_exec {
	size_t run;	     /* index into trace.run */
	uint32_t proc, exec; /* indices into that run's tree */
	size_t bin;	     /* index into workload.bins */
	/* The breakdown in bins[bin].rep, or NULL: no records, or records that failed. */
	const struct run_breakdown *bd;
	double wall_us;	    /* exec point to the next exec or exit; NAN when unseen */
	double loader_us;   /* exec + load + relocate; NAN without a breakdown */
	double startup_us;  /* exec to main: loader_us + init; NAN without a breakdown */
	double mapping_us;  /* load + relocate alone: the loader's work that is not exec's */
	const char *reason; /* why there is no breakdown (static string), or NULL */
};

/* One binary: a path and build-id. */
struct wl_binary {
	char *path;
	char *build_id; /* NULL when it has none or the file could not be read */
	bool dynamic;	/* it has a loader (any exec but STATIC and UNKNOWN) */
	size_t execs;	/* over all counted runs */
	size_t kind_count[TREE_EXEC_UNKNOWN + 1];
	size_t analyzed; /* execs with a valid breakdown */
	size_t loader_n; /* of those, the ones whose loader figure is known */
	double execs_per_run;
	/*
	 * The per-exec analysis over its execs with records (rep.runs of
	 * them): sub is a trace whose runs are those execs, whose objects are
	 * the ones they opened (sub_obj[i]: trace.obj index of sub->obj[i]).
	 */
	struct trace *sub;
	uint32_t *sub_obj;
	struct report rep;
	bool have_rep;
	bool have_features;	   /* the cost model's counts for this binary (its own replay) */
	double wall_us_per_run;	   /* sum of its execs' wall times / runs */
	double loader_us_per_run;  /* sum over the loader_n execs / runs */
	double startup_us_per_run; /* sum over analyzed execs / runs */
	double startup_share;	   /* startup_us_per_run / the workload's median wall time */
	/*
	 * Static linking: the verdict's saving per exec (rep.static_saved_us,
	 * when the model gives one) times its execs per run: every exec of a
	 * dynamic binary pays the loader, recorded or not (the text says when
	 * startup_us_per_run covers fewer).
	 */
	bool have_static;
	double static_saved_us_per_run, static_lo_per_run, static_hi_per_run;
};

/* One library over the whole tree: one file, by whichever paths the execs reached it. */
struct wl_library {
	const char *path;   /* trace.obj's: the first path seen */
	const char *soname; /* or NULL */
	size_t execs;	    /* analyzed execs that loaded it at startup, over all runs */
	double execs_per_run;
	/* Sums over those execs, per run: load, relocation, constructors. */
	double load_us, reloc_us, init_us, total_us;
	double share; /* total_us / the workload's median wall time */
};

struct workload {
	const struct trace *t;
	size_t runs, plain_runs;	   /* counted profiled runs with a tree; plain runs */
	size_t warmup_runs, treeless_runs; /* counted profiled runs without a tree are left out */
	/* The whole workload, per run (the top process's launch to the last reap). */
	struct summary wall, plain_wall, cpu_user, cpu_sys, cpu, procs, execs;
	struct summary loader_us, loader_share_wall, loader_share_cpu; /* per run */
	struct summary mapping_us, mapping_share_wall; /* per run: load + relocate alone */
	/* The runs without their records: the workload's totals, outcomes and overhead. */
	struct trace whole_t;
	struct report whole;
	size_t kind_count[TREE_EXEC_UNKNOWN + 1]; /* over all counted runs */
	size_t unanalyzed_shim;			  /* kind SHIM, yet its records failed */
	uint64_t lost_execs, lost_events, unmatched_execs; /* over all counted runs */
	size_t orphans;
	size_t forks, forks_recorded; /* processes that never executed; of those, the shim saw */
	/* Processes by whence their exit status: ldprof's reap, the shim's exit call, unknown. */
	size_t status_reaped, status_shim, status_unknown;
	struct wl_exec *ex; /* every exec, by run, process, exec */
	size_t nex;
	/* Per trace.run (NULL for a run not counted), per process: its first wl_exec, or SIZE_MAX.
	 */
	size_t **proc_first;
	struct wl_binary *bins; /* startup costliest first */
	size_t nbins;
	struct wl_library *libs; /* total costliest first */
	size_t nlibs;
	size_t median_run; /* the counted run whose wall time is the median; SIZE_MAX if none */
	char **notes;
	size_t nnotes, capnotes;
};

/* Build w from t (t->follow, each counted profiled run with a tree). */
void workload_build(const struct trace *t, struct workload *w);
void workload_free(struct workload *w);
/* Append a note (a copy is kept), e.g. what the trace file said about itself. */
void workload_add_note(struct workload *w, const char *note);

/* The first wl_exec of process p of run r, or NULL. */
const struct wl_exec *workload_exec(const struct workload *w, size_t run, uint32_t proc);
/* Why an exec of this kind has or lacks its phases, as a sentence. */
const char *workload_kind_name(enum tree_exec_kind k);
/*
 * Where x's phases start, in ticks: the kernel's exec point, or for the
 * launched process's first exec the launcher's timestamp before execve,
 * as without -f.
 */
uint64_t workload_exec_start(const struct trace *t, const struct wl_exec *x);
/* Run r's number among the counted profiled runs with a tree, from 1 (as CSV numbers them). */
size_t workload_run_ordinal(const struct workload *w, size_t run);
/* The execs of run r: w->ex[*first ..] for the count returned (0 if none). */
size_t workload_run_execs(const struct workload *w, size_t run, size_t *first);
/*
 * x's argv: the shim's bounded copy, or for the launched process's first
 * exec the command as given; NULL when unknown.
 */
char *const *workload_exec_argv(const struct trace *t, const struct wl_exec *x, size_t *argc);
/* The tree's exec behind x. */
const struct tree_exec *workload_tree_exec(const struct trace *t, const struct wl_exec *x);
/* The run-relative time in microseconds of a tick in run r (0 at its exec_ts). */
double workload_run_us(const struct workload *w, size_t run, uint64_t ts);

#endif
