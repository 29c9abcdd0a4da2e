/*
 * Building a run's process tree (tree.h) from the task records follow.c
 * decoded: pure functions of the records, the reaps and the clock, so that
 * unit tests can feed them hand-made records.
 */
#ifndef LDPROF_FOLLOW_TREE_H
#define LDPROF_FOLLOW_TREE_H

#include <sys/resource.h>

#include "run/follow.h"

/* ticks = tsc0 + (ns - ns0) * ticks_per_ns */
struct follow_clock {
	uint64_t tsc0, ns0;
	double ticks_per_ns;
};

uint64_t follow_ns_to_ticks(const struct follow_clock *c, uint64_t ns);

/*
 * The tree of one run: proc[0] is top (forked by the launcher, its fork_ts
 * exec_ts), then every FORK of a process (not a thread) in time order; each
 * COMM(exec) opens an exec, the first MMAP2 after it names the binary, EXIT
 * closes the process. Reaped statuses go to their process (orphans: every
 * reaped one but the top). Exec kinds come from the binaries (SHIM is the
 * caller's to set). A process whose EXIT never came counts as a lost event.
 * recs is sorted by time in place.
 */
struct run_tree *follow_tree_build(struct follow_rec *recs, size_t nrec,
				   const struct follow_reap *reaps, size_t nreap, pid_t top,
				   uint64_t exec_ts, const struct follow_clock *c);

/* The pids forked (or top) with no EXIT yet; *out is allocated. */
size_t follow_tree_live(const struct follow_rec *recs, size_t nrec, pid_t top, pid_t **out);

/* The workload's CPU: the RUSAGE_CHILDREN delta; *now becomes the delta too. */
void follow_tree_cpu(struct run_tree *t, const struct rusage *before, struct rusage *now);

#endif
