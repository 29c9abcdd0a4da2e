/*
 * From a trace to a report: each profiled run is cut into phases at the
 * shim's milestones and its time attributed to objects; then every figure is
 * summarized over the runs (median, 95% CI).
 */
#ifndef LDPROF_ANALYZE_H
#define LDPROF_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/stats.h"
#include "model/cache-state.h"
#include "model/sched-state.h"
#include "trace/trace.h"

enum phase { PH_EXEC, PH_LOAD, PH_RELOCATE, PH_INIT, PH_MAIN, PH_EXIT, PH_COUNT };

const char *phase_name(enum phase p);
const char *phase_help(enum phase p);

/* One profiled run, in microseconds; NAN where the run did not tell. */
struct run_breakdown {
	size_t run; /* index into trace.run (report_build sets it) */
	bool valid; /* the shim recorded the loader's milestones */
	double phase_us[PH_COUNT];
	double elapsed_us[PH_COUNT +
			  1]; /* from exec to the start of each phase; [PH_COUNT]: the end */
	double *load_us, *reloc_us, *init_us, *fini_us; /* per trace object */
	double *symbind_us; /* first to last la_symbind64 while relocating it (--symbind) */
	uint32_t *symbind_calls;
	bool reloc_by_model;   /* reloc_us split by the cost model, not by counts */
	double reloc_model_us; /* the model's prediction for the whole phase */
};

/* Walks over a run's events, shared by the breakdown and the timeline. */

/*
 * For each object ld.so mapped during startup: the gap before its
 * la_objopen (from the previous loader event), in ticks.
 */
void run_load_gaps(const struct trace *t, const struct trace_run *r,
		   void (*fn)(void *arg, uint32_t obj, uint64_t from, uint64_t to), void *arg);

/*
 * For each matched BEGIN/END pair (constructors or destructors), in the
 * order they end: the END event, the BEGIN's timestamp, and the ticks spent
 * in pairs nested inside it. An unmatched BEGIN (its function never
 * returned) is dropped.
 */
void run_pairs(const struct trace_run *r, uint16_t begin, uint16_t end,
	       void (*fn)(void *arg, const struct trace_event *e, uint64_t begin_ts,
			  uint64_t nested),
	       void *arg);

/* bd must be zeroed; arrays are allocated for t->nobj objects. */
void analyze_run(const struct trace *t, const struct trace_run *r, struct run_breakdown *bd);
void run_breakdown_free(struct run_breakdown *bd);

struct report_object {
	uint32_t obj; /* index into trace.obj */
	size_t runs;  /* runs in which it was seen */
	struct summary load, reloc, init, fini, total;
	struct summary symbind; /* --symbind: the PLT-binding span, when seen */
	double link_saved_us;	/* linking this library statically would save (verdict.c) */
	double lazy_us;		/* its lazy_binds priced at its cost per lookup (verdict.c) */
	double exit_us;		/* its part of the dynamic exit path (verdict.c) */
	double crt_us;		/* its _init's and _fini's page faults, priced (verdict.c) */
	double symbind_calls;
	double share; /* median total / median process total */
};

/* One recommendation with what it would save per exec (the model fills these). */
struct advice {
	char *what; /* "link statically", "drop libfoo.so.1 (-Wl,--as-needed)" */
	char *why;  /* one sentence of evidence */
	double saved_us, saved_lo, saved_hi; /* NAN when not estimated */
};

struct outcome {
	int wait_status;
	size_t runs;
};

struct report {
	const struct trace *t;
	bool is_static;
	bool profiled;
	size_t runs, warmup_runs, plain_runs, valid_runs;
	struct summary total;	    /* counted runs: profiled, or plain if static */
	struct summary plain_total; /* plain runs (overhead baseline) */
	struct summary phase[PH_COUNT];
	struct summary utime, stime, minflt, maxrss;
	/*
	 * maxrss.median is no more than ldprof's own peak (launcher_rss_kb's
	 * median), which the kernel counts in it: the program's is at most that.
	 */
	bool maxrss_is_bound;
	double launcher_rss_kb;
	struct report_object *objs;
	size_t nobjs;
	struct run_breakdown *bd; /* every counted profiled run, valid or not, in run order */
	size_t nbd;
	bool have_overhead;
	double overhead_us, overhead_pct, overhead_minflt;
	double overhead_ci_lo, overhead_ci_hi; /* paired bootstrap, 95% */
	struct outcome *outcomes;
	size_t noutcomes;
	double phase_sum_us; /* sum of phase medians, to compare with the total */
	/* The relocation cost model against the measured relocate phase. */
	bool reloc_by_model;
	double reloc_model_us, reloc_residual_us;
	/*
	 * The phase the residual is taken against: the median of the runs in
	 * the shared cache's state the calibration priced, when the cache was
	 * contended in some runs and not in others (cache below), else the
	 * phase's median.
	 */
	double reloc_measured_us;
	enum reloc_runs { RELOC_RUNS_ALL, RELOC_RUNS_CALM, RELOC_RUNS_CONTENDED } reloc_measured_runs;
	struct cache_state cache; /* the shared cache during the runs (cache-state.h) */
	struct sched_state sched; /* the scheduler's preemptions (sched-state.h) */
	struct summary tree_stretch; /* the runs' total over their tree's CPU (sched-state.h) */
	bool interrupted;
	/* The static-link verdict and ranked advice, when the model gave them. */
	bool have_verdict;
	double static_saved_us, static_saved_lo, static_saved_hi, static_saved_pct;
	double static_kept_us; /* what a static build would still pay of it (IFUNC) */
	/* What the saving adds up (verdict.c): the dynamic costs a static build sheds... */
	double static_fixed_us, static_libs_us, static_exe_us, static_exit_us, static_lazy_us;
	double static_crt_us; /* the libraries' own _init and _fini code's page faults */
	double static_fork_us; /* the forks of its own image, each dearer dynamic */
	double static_nss_us;  /* its processes' first lookups through NSS, each dearer dynamic */
	double static_noalloc_us; /* the first allocation it never made (the fixed cost has one) */
	/* ...less the static build's own start beyond the minimal static program's. */
	double static_own_us, static_fault_us; /* and the fault cost it was priced at */
	double static_unwind_us;    /* ...and its first unwind sorting its FDEs, when it unwinds */
	/* ...and, its processes stretched by the machine's load, the rest times (stretch - 1). */
	double static_load_us;
	bool stretch_applied;	    /* tree_stretch multiplied the saving */
	double static_total_us;	    /* the static build's whole run, predicted */
	double static_model_err_us; /* the model's validated error, in the +- */
	enum static_verdict { SV_SAVES, SV_NO_GAIN, SV_HURTS } static_verdict;
	struct advice *advice; /* largest saving first */
	size_t nadvice;
	char **notes; /* plain sentences the renderers print */
	size_t nnotes, capnotes;
	struct sample_report *samples; /* --sample: per phase (model/samples.h); NULL without */
};

void report_build(const struct trace *t, struct report *rep);
/* The breakdown of t->run[run], or NULL when it is not a counted profiled run. */
const struct run_breakdown *report_breakdown(const struct report *rep, size_t run);
/* The indices into rep->bd of the valid breakdowns, in run order; returns how many. */
size_t report_valid_breakdowns(const struct report *rep, size_t *idx);
/* Append a note (allocated; NULL is ignored). */
void report_add_note(struct report *rep, char *note);

/*
 * The static-link estimate and ranked advice (verdict.c); report_build calls
 * it. Returns how many caveats it put in notes (allocated), for report_build
 * to add to the report's notes.
 */
enum { VERDICT_NOTES = 7 };
size_t verdict_build(const struct trace *t, struct report *rep, char *notes[VERDICT_NOTES]);

/*
 * Each phase's median contribution over the runs bd[pick[0..n)]: the median
 * elapsed time at its end minus at its start. buf holds n doubles.
 */
void phase_estimates(const struct run_breakdown *bd, const size_t *pick, size_t n, double *buf,
		     double est[PH_COUNT]);
void report_free(struct report *rep);
/* "exit status 3", "killed by SIGSEGV" */
char *describe_status(int wait_status);
const char *role_name(enum obj_role r);

#endif
