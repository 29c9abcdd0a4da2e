/*
 * Following a whole process tree (`ldprof -f`): the kernel's task events
 * for every descendant of one run, through perf_event_open (no code in the
 * processes), and the launcher as their subreaper, so that every process,
 * orphans included, is reaped by ldprof. One struct follow per launcher;
 * per run: attach to the forked child before it execs, drain while the
 * workload runs, reap until no descendant is left, and build the run's
 * struct run_tree (tree.h) on the TSC clock.
 *
 * The events: one inherited dummy event per CPU with task, comm (exec) and
 * mmap2 records, each with its own ring, as perf record does: a ring is
 * written from one CPU only, which is what the kernel's ring code assumes.
 * Times are CLOCK_MONOTONIC_RAW, mapped to ticks with (rdtsc, clock) pairs
 * taken at the start and end of each run.
 */
#ifndef LDPROF_FOLLOW_H
#define LDPROF_FOLLOW_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "base/util.h"
#include "run/perf-ring.h"
#include "trace/tree.h"

/* One task record, decoded from a ring. */
struct follow_rec {
	uint64_t ns; /* CLOCK_MONOTONIC_RAW */
	uint32_t type; /* PERF_RECORD_FORK, _EXIT, _COMM (exec only), _MMAP2 (exec maps) */
	int32_t pid, ppid, tid;
	uint32_t seq; /* the order it was read in: a ring's order at equal times */
	char *str; /* COMM: the name; MMAP2: the file; else NULL */
};

/* What the launcher reaped, in order. */
struct follow_reap {
	pid_t pid;
	int status;
	uint64_t ts; /* TSC ticks */
};

struct follow {
	bool active;	    /* attached to a run now */
	int sigfd;	    /* SIGCHLD, for reaps of orphans (blocked while a run is followed) */
	struct perf_ring *ring;
	size_t nring;
	pid_t top;
	uint64_t cal_tsc, cal_ns;   /* the first pair of the session: the rate's baseline */
	uint64_t start_tsc, start_ns; /* the run's first pair */
	struct follow_rec *rec;
	size_t nrec, caprec;
	uint64_t lost;		    /* PERF_RECORD_LOST counts */
	struct follow_reap *reap;
	size_t nreap, capreap;
	bool top_reaped, all_reaped;
	struct rusage ru0;	    /* RUSAGE_CHILDREN before the run */
	long maxrss_kb;		    /* the largest of this run's reaped processes (with theirs) */
	struct perf_scratch scratch; /* one record that wrapped around the ring */
	size_t ring_bytes;	    /* data bytes per ring: LDPROF_FOLLOW_RING_KB or a default */
	/* The live processes, for the signal handlers (interrupt_set_extra): two, in turn. */
	pid_t *live[2];
	size_t live_nrec; /* records when the set was last made */
	unsigned live_cur;
};

/* Become the subreaper (PR_SET_CHILD_SUBREAPER); nothing is opened yet. */
int follow_init(struct follow *f, struct errbuf *err);
void follow_fini(struct follow *f);

/*
 * Before the run: SIGCHLD blocked (so that sigfd sees every child's exit),
 * the usage baseline and the first clock pair. Call before fork().
 */
void follow_prepare(struct follow *f);

/*
 * Attach the events to pid, the forked child that has not exec'd yet
 * (enable_on_exec: counting starts at its exec). On failure the run cannot
 * be followed: -errno with err set.
 */
int follow_attach(struct follow *f, pid_t pid, struct errbuf *err);

/* The fds to poll while the run goes on: its rings, then sigfd. */
size_t follow_pollfds(const struct follow *f, struct pollfd *p, size_t max);
/* After a poll: decode what the rings hold, reap who exited. */
void follow_service(struct follow *f);
bool follow_done(const struct follow *f);

/*
 * Send sig to every process of the tree known to be alive (timeout,
 * Ctrl-C): forked, or the top, and no EXIT drained yet. The ring is drained
 * first, so a pid is signalled only if it exited within the last moment,
 * and then only if its parent reaped it and the pid came round again.
 */
void follow_signal_live(struct follow *f, int sig);

/*
 * After follow_done: the last drain, the end clock pair, the tree (reaped
 * statuses, exec kinds read from the binaries), the workload's CPU; *top_status
 * and *reap_ts for the run, *usage its RUSAGE_CHILDREN delta (ru_maxrss: the
 * largest of the processes reaped in this run, not of the session). Detaches the events and unblocks SIGCHLD.
 * Returns the tree (never NULL).
 */
struct run_tree *follow_finish(struct follow *f, uint64_t exec_ts, int *top_status,
			       uint64_t *reap_ts, struct rusage *usage);

/* Drop a run that failed before follow_finish (detach, reap what is left). */
void follow_abort(struct follow *f);

/* The kind of an exec from its binary alone: STATIC, SETUID, NO_SHIM or UNKNOWN. */
enum tree_exec_kind follow_binary_kind(const char *path);

#endif
