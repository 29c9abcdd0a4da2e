/*
 * A workload's process tree in one run (`ldprof -f`): every process the
 * program started, by any route (fork, vfork, clone, posix_spawn,
 * system(), exec chains, orphans), with the images each one executed, all
 * on the run's TSC clock. The launcher fills it from the kernel's task
 * events (run/follow.c) and joins each exec to the records the shim wrote
 * for it, when the shim could enter it.
 *
 * Pure data: run/follow.c builds it, run/tracefile-sections.c saves and
 * loads it, model/ summarises it.
 */
#ifndef LDPROF_TREE_H
#define LDPROF_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TREE_NO_PROC UINT32_MAX

struct trace_event;

/* Why an exec has, or has not, the shim's per-phase breakdown. */
enum tree_exec_kind {
	TREE_EXEC_SHIM,	    /* the shim recorded it: full breakdown */
	TREE_EXEC_STATIC,   /* no PT_INTERP: no loader, nothing to audit */
	TREE_EXEC_SETUID,   /* set-ID: ld.so ignores LD_AUDIT; the kernel stops following it */
	TREE_EXEC_NO_SHIM,  /* dynamic, yet no records: its environment was cleared, or
			       the buffer could not be reached */
	TREE_EXEC_LOST,	    /* the shim ran but the buffer was full (counted in lost_execs) */
	TREE_EXEC_UNKNOWN,  /* the binary could not be read afterwards */
};

struct tree_exec {
	uint64_t ts;	  /* the kernel's exec point, TSC ticks */
	uint64_t end_ts;  /* the next exec of the process, or its exit; 0 if never seen */
	char *path;	  /* the binary that ran (a script's interpreter); NULL if unknown */
	char *comm;	  /* the kernel's short name */
	char **argv;	  /* bounded copy, from the shim; NULL when it did not enter */
	size_t argc;
	enum tree_exec_kind kind;
	/* The shim's records for this exec, as in trace_run.ev (kind SHIM only). */
	struct trace_event *ev;
	size_t nev;
	uint32_t shm_flags; /* as trace_run.shm_flags */
	double utime_us, stime_us; /* from the shim at exit; have_cpu says */
	bool have_cpu;
};

struct tree_proc {
	int32_t pid;
	int32_t ppid;	 /* the parent's pid at fork time */
	uint32_t parent; /* index into run_tree.proc; TREE_NO_PROC for the top process */
	uint64_t fork_ts; /* TSC ticks; the top process: the run's exec_ts */
	uint64_t exit_ts; /* 0 when its exit was not seen */
	int wait_status;  /* valid when have_status */
	bool have_status;
	/*
	 * Whence wait_status: false, ldprof reaped it (wait4: exact); true,
	 * its parent reaped it and the status is the one its last image
	 * passed to exit, _exit or _Exit (or returned from main), as the shim
	 * recorded it. Neither (have_status false): a signal, a raw exit
	 * system call, or an image the shim did not enter.
	 */
	bool status_from_shim;
	bool orphan;	  /* outlived its parent (reaped by ldprof as subreaper) */
	struct tree_exec *exec; /* in order; none for a fork that never executed */
	size_t nexec;
	/*
	 * A fork that never executed, as the shim saw it in the parent's
	 * image it kept (fork_recorded): its records' count, when it called
	 * exit (0: not seen), and its CPU at that call (have_cpu).
	 */
	bool fork_recorded;
	uint32_t fork_records;
	uint64_t exit_call_ts;
	double utime_us, stime_us;
	bool have_cpu;
};

struct run_tree {
	struct tree_proc *proc; /* proc[0] is the top process */
	size_t nproc;
	uint64_t lost_events;	/* task events the kernel dropped */
	uint64_t lost_execs;	/* execs the shim could not record: the buffer was full */
	uint64_t unmatched_execs; /* the shim's records for an exec no task record shows */
	double cpu_user_us, cpu_sys_us; /* the whole workload (every reaped descendant) */
	bool have_cpu;
};

void run_tree_free(struct run_tree *t);
/* "shim", "static", "setuid", "no_shim", "lost", "unknown"; NULL if out of range. */
const char *tree_exec_kind_name(enum tree_exec_kind k);

#endif
