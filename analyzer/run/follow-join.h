/*
 * The join of a run's tree (from perf) with what the shim recorded in each
 * process (shm_collect_procs): exec k of pid P, which the kernel started at
 * T, gets the shim's records for P whose la_version time is the first
 * after T (before P's next exec). Always by (pid, time): pids repeat in a
 * long workload.
 */
#ifndef LDPROF_FOLLOW_JOIN_H
#define LDPROF_FOLLOW_JOIN_H

#include "run/shm.h"
#include "trace/tree.h"

/*
 * Move each process image's records, argv and CPU into its exec in t
 * (kind SHIM; a corrupt one keeps TRACE_SHM_CORRUPT in shm_flags and has
 * no records); a fork that never executed gets what the shim saw of it
 * (fork_recorded: its exit call, CPU). A process ldprof did not reap gets
 * the exit status its last image asked for (status_from_shim), when the
 * shim recorded it. What matches no exec stays in procs, for shm_procs_free.
 * t->lost_execs = lost_execs, and as many of the last dynamic execs without
 * records become LOST (the buffer fills up at the end). Returns how many
 * were joined.
 */
size_t follow_join(struct run_tree *t, struct shm_proc *procs, size_t n, uint64_t lost_execs);

#endif
