/*
 * The in-memory trace: what `run` records before it analyzes anything, and
 * what `record`/`report` will write to and read from disk. A trace is a
 * list of runs, each a list of events, plus the facts about each object.
 */
#ifndef LDPROF_TRACE_H
#define LDPROF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cacheprobe.h"
#include "elf/elfobj.h"
#include "trace/model-coefs.h"
#include "trace/samples.h"
#include "trace/static-facts.h"
#include "trace/tree.h"

#define TRACE_NO_OBJ UINT32_MAX

/*
 * In trace_run.shm_flags, set by the reader (never by the shim, whose
 * flags are the low bits): the run's shim data failed validation and was
 * dropped (shm_validate). The run's wall time is still real.
 */
#define TRACE_SHM_CORRUPT (1u << 31)

enum obj_role {
	ROLE_EXECUTABLE,
	ROLE_LOADER, /* ld.so */
	ROLE_VDSO,
	ROLE_LIBRARY,
	ROLE_SHIM, /* ldprof's own preload */
};

struct trace_object {
	char *path; /* as ld.so named it; the program's path for the executable */
	enum obj_role role;
	bool dlopened;	   /* opened after startup (dlopen) */
	bool untimed_seen; /* a run could not trampoline its constructors */
	/* From the ELF file (elfobj), when it could be read. */
	bool have_facts;
	char *soname;
	struct reloc_counts relocs;
	uint32_t init_funcs, fini_funcs;
	uint32_t crt_faults16; /* its _init's and _fini's page faults, in 16ths (elfobj.h) */
	bool bind_now;
	char *facts_error;
	/*
	 * The file's identity when it ran (record), so that report can tell a
	 * binary that changed on disk since: build-id, else size and mtime.
	 */
	char *build_id; /* NT_GNU_BUILD_ID in lower-case hex; NULL if none */
	bool have_stat;
	uint64_t file_size;
	int64_t mtime_ns;
	/* The analyzer's counts for the relocation cost model (model.c). */
	bool have_feat;
	double feat[MODEL_NFEAT];
	struct advice_facts advice;
	/* Lazy PLT slots bound after startup (GOT entries off the PLT at exit). */
	uint32_t lazy_binds;
	/*
	 * The page-cache pages of it the program's first process had mapped at
	 * its exit, in the run under ptrace after the timed ones (fork-census.h):
	 * what exit unmaps. have_mapped: counted.
	 */
	bool have_mapped;
	uint32_t mapped_pages;
};

struct trace_event {
	uint64_t ts;
	uint16_t type; /* enum ldprof_rec_type */
	uint32_t obj;  /* index into trace.obj, or TRACE_NO_OBJ */
	uint32_t u32;
	uint64_t a, b;
};

struct run_usage {
	long minflt, majflt, maxrss_kb;
	/*
	 * ldprof's own peak RSS when it started the run. The program's process
	 * shares ldprof's memory until its exec (run/spawn.h), and the kernel
	 * counts that memory's peak in the process's maxrss: a maxrss up to
	 * this is ldprof's, and the program's own is at most that. 0: unknown.
	 */
	long launcher_rss_kb;
	double utime_us, stime_us;
	/*
	 * Involuntary context switches (wait4's ru_nivcsw): how often the
	 * scheduler preempted the run for another task. -1: unknown (a trace
	 * older than the count).
	 */
	long nivcsw;
	/*
	 * The CPU time of the run's whole tree: RUSAGE_CHILDREN's growth once
	 * the program and the processes it left to ldprof, its subreaper, were
	 * reaped (run/launch.h). NAN: unknown (one still ran, -f, or an older
	 * trace).
	 */
	double tree_cpu_us;
};

struct trace_run {
	bool profiled; /* started with the shim */
	bool warmup;   /* not counted in the timing: a warmup run, or a sampled one */
	/*
	 * --sample: perf sampled this run (a profiled run), so its times are
	 * not the program's own; warmup is set too, so that no timing figure
	 * counts it. Its samples are in trace.sampling.
	 */
	bool sampled;
	uint64_t exec_ts, reap_ts;
	int wait_status;
	bool timed_out;
	struct run_usage usage;
	uint32_t shm_flags;
	bool shim_attached; /* the shim claimed the buffer */
	/*
	 * The shared cache's state when it ran (base/cacheprobe.h), ns a line:
	 * of the launcher's probe readings before and after it, the one that
	 * read slower after its idle spell, that reading and the same probe's
	 * hot one. 0: not probed (older traces).
	 */
	double line_ns, line_hot_ns;
	/* The same reading's lines after shorter idle spells (cache_decay_ms); 0: not read. */
	double decay_ns[CACHE_DECAY_POINTS];
	struct trace_event *ev;
	size_t nev, cap;
	/* With -f: every process of the workload in this run; NULL otherwise. */
	struct run_tree *tree;
};

struct trace {
	char **argv; /* the command as given */
	int argc;
	char *program;	/* the file executed */
	char *elf_path; /* the ELF that runs: the program, or a script's interpreter */
	enum elf_kind kind;
	bool is_static;
	double tsc_hz;
	bool interrupted;	  /* SIGINT ended the runs early */
	bool follow;		  /* -f: each run carries its process tree */
	bool cold_cache;	  /* --cold-cache: the CPU caches emptied before each run */
	char *profiled_failure;	  /* what only the failing profiled runs print (ld.so's message) */
	struct trace_object *obj; /* in order of first appearance */
	size_t nobj, capobj;
	struct trace_run *run;
	size_t nrun, caprun;
	/* Where and how it was recorded (record/report); NULL when unknown. */
	struct trace_machine {
		char *hostname, *kernel, *kernel_version, *arch, *glibc, *cpu_model;
		unsigned ncpus;
	} machine;
	char **env; /* the variables that change ld.so's work: LD_*=..., GLIBC_TUNABLES */
	size_t nenv;
	char *cwd;			 /* relative paths are relative to it */
	int64_t recorded_at;		 /* Unix time in seconds; 0 when unknown */
	char *ldprof_version;		 /* of the ldprof that recorded the trace */
	struct model_coefs model;	 /* the calibration the report uses */
	struct static_facts static_side; /* a static build's own start (verdict) */
	double fault_us_now;		 /* a page fault's cost when it ran; 0: not measured */
	/*
	 * The calibration's price of a cold line, which model.coef_us's was
	 * shifted from to the runs' state of the shared cache
	 * (model_line_state), when cold_line_shifted.
	 */
	bool cold_line_shifted;
	double cold_line_cal_us;
	/* --fixed-runs: model.dynamic_fixed_* measured in this many rounds; 0: calibrated. */
	size_t fixed_runs;
	double fixed_cal_us; /* the calibration's fixed cost, which the measured one replaced */
	bool fixed_interleaved; /* ...measured in the programs' own rounds (compare), not after */
	/* The forks of the program's own image in one run (run/fork-census.h), when counted. */
	uint32_t image_forks, image_vforks; /* copies of it; vfork and posix_spawn children */
	uint32_t image_nss; /* ...and its processes that looked something up through NSS */
	bool forks_counted;
	/* Its first process at exit, when the census saw it: whether it had allocated (a heap). */
	bool heap_seen, image_heap;
	bool fork_price_now; /* model.fork_* measured after the runs, not the calibration's */
	/* It looked up through NSS: model.nss_us measured after the runs, in place of this. */
	bool nss_price_now;
	double nss_cal_us;
	/* It unwound: model.fde_sort_* measured after the runs, in place of this calibration's. */
	bool unwind_price_now;
	double unwind_cal_price;
	struct trace_sampling *sampling; /* --sample; NULL without it */
};

void trace_init(struct trace *t, int argc, char **argv);
void trace_free(struct trace *t);
/* The object with this path, created on first use. */
uint32_t trace_intern(struct trace *t, const char *path);
struct trace_run *trace_add_run(struct trace *t);
void trace_add_event(struct trace_run *r, const struct trace_event *e);
/* Read each object's ELF facts once; unreadable ones keep facts_error. */
void trace_load_facts(struct trace *t);

/*
 * Each object's lazy_binds: the median over the counted profiled runs of
 * the slots the shim found bound at exit (LDPROF_REC_LAZY); 0 without one.
 */
void trace_count_lazy(struct trace *t);

double trace_ticks_to_us(const struct trace *t, uint64_t ticks);

/* The index of the run's first LA_ACT_CONSISTENT (end of startup), or r->nev. */
size_t trace_run_consistent_index(const struct trace_run *r);
/*
 * The event that ends main: the first exit call or return from main after
 * la_preinit; when neither was seen (a library called exit(), which the
 * hooks do not cover), the last LA_ACT_DELETE after it, _dl_fini's (a
 * dlclose during main has its own, earlier). r->nev when none.
 */
size_t trace_run_main_end_index(const struct trace_run *r);
/*
 * The run's LDPROF_REC_CPU record of main's end: the first after that
 * event (the shim writes one at each LA_ACT_DELETE before main's end, up
 * to a few, for the case where _dl_fini's stands in). r->nev when none.
 */
size_t trace_run_cpu_index(const struct trace_run *r);
/*
 * The run's LDPROF_REC_CPU record of the start's end: right after the
 * startup's LA_ACT_CONSISTENT record (record format 5). r->nev when none.
 */
size_t trace_run_start_cpu_index(const struct trace_run *r);

/*
 * Whether a profiled run's events can be believed, whatever they came from
 * (the record buffer, a trace file): known types, object indices inside
 * t->obj, timestamps inside [exec_ts, reap_ts] and never decreasing (a
 * SYMBIND summary excepted). The record buffer's own, finer checks are
 * shm_validate's; this is what the analysis relies on.
 */
bool trace_run_events_ok(const struct trace *t, const struct trace_run *r);

/* A run's total, from the last timestamp before execve to reaping, in microseconds. */
double trace_run_us(const struct trace *t, const struct trace_run *r);

/* Whether r is one of the counted runs (not warmup) of one kind: profiled or plain. */
bool trace_run_counted(const struct trace_run *r, bool profiled);

/*
 * Whether the profiled runs all end otherwise than the plain runs, which all
 * end alike: the program fails only under the shim (or ld.so's LD_AUDIT).
 */
bool trace_fails_only_profiled(const struct trace *t);

/* The totals of the counted runs of one kind, in run order; out holds t->nrun. */
size_t trace_counted_totals(const struct trace *t, bool profiled, double *out);

/* A figure of one run (r is in t->run), NAN when the run has none. */
typedef double (*trace_run_figure)(const struct trace *t, const struct trace_run *r,
				   const void *arg);
/* The median of figure over t's counted profiled runs that have one; NAN when none has. */
double trace_profiled_median(const struct trace *t, trace_run_figure figure, const void *arg);

#endif
