/*
 * The launcher's side of the shared-memory record buffer (format in
 * preload/include/ldprof-record.h and docs/record-format.md): create it, reset it
 * before each run, and decode it into a trace run afterwards.
 */
#ifndef LDPROF_SHM_H
#define LDPROF_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ldprof-record.h"
#include "trace/trace.h"
#include "base/util.h"

/*
 * Lowest fd number for the buffer in the child: out of the program's way.
 * Under an open-file limit at or below it, the highest free fd instead.
 */
#define SHM_FD_MIN 1000

struct shm_buf {
	int fd; /* >= SHM_FD_MIN (or near the limit), close-on-exec in the launcher */
	size_t size;
	struct ldprof_shm_header *hdr;
	uint64_t reset_ts;   /* when shm_reset made this buffer: before the fork */
	uint32_t chunk_size; /* follow mode (shm_create_follow); 0 otherwise */
	bool sysv;	     /* follow mode: a System V segment (shmid), not a memfd */
	int shmid;
	void *frozen;	     /* shm_freeze's snapshot of this run's buffer, or NULL */
};

/* A buffer of size bytes (a memfd mapped MAP_SHARED). */
int shm_create(struct shm_buf *s, size_t size, struct errbuf *err);

/*
 * Follow mode (ldprof -f): a buffer for every process of the workload,
 * sparse (a page exists once a process touches it), in chunks of
 * chunk_size bytes; 0 for either takes the defaults below. Every process
 * attaches it by itself, so that no fd of ours reaches the workload: a
 * System V segment by its id, marked for removal at once (it goes with
 * the last process attached), or where System V IPC is refused, the memfd
 * reopened by /proc/<launcher pid>/fd/<fd> (~8 us more per process here).
 */
/*
 * Sparse, so size costs nothing until used: a build of 20,000 execs needs
 * ~40 MiB of chunks and, with compilers' long argv and many libraries,
 * ~20 MiB of names (~1 KiB an exec).
 */
#define SHM_FOLLOW_BYTES (128u << 20)
#define SHM_CHUNK_BYTES	 2048u /* a header and 62 records; most execs need one */
int shm_create_follow(struct shm_buf *s, size_t size, uint32_t chunk_size, struct errbuf *err);
/*
 * Where every process finds s (allocated): "sysv:<id>", or the memfd's
 * /proc/<our pid>/fd/<fd>. A segment's id is new at each shm_reset.
 */
char *shm_follow_path(const struct shm_buf *s);
/*
 * The environment entry that names s to the shim (allocated):
 * LDPROF_SHM=FD,BYTES, and in follow mode ,WHERE (shm_follow_path; FD is
 * then unused, 0 for a segment). A segment's changes at each shm_reset.
 */
char *shm_env(const struct shm_buf *s);
void shm_destroy(struct shm_buf *s);
/*
 * Before each run: a new buffer (a new memfd under the same fd number) with
 * a fresh header. Never reused, so a process that outlives its run can
 * only write into its own run's buffer.
 */
int shm_reset(struct shm_buf *s, struct errbuf *err);
void shm_init_header(struct ldprof_shm_header *h, size_t size);
/* Names take a quarter, chunks of chunk_size bytes the rest. */
void shm_init_follow_header(struct ldprof_shm_header *h, size_t size, uint32_t chunk_size);

/*
 * What the launcher knows of a run, independently of the buffer, to check
 * the buffer against: its window on the shim's clock and the pid it forked.
 */
struct shm_expect {
	uint64_t start_ts; /* before the fork: exec_ts and every record are later */
	uint64_t end_ts;   /* after the reap: every record is earlier */
	pid_t pid;	   /* the launched process */
};

/*
 * The record decoder, in two steps over a raw buffer of size bytes (any
 * bytes: it reads nothing outside [buf, buf + size) and trusts nothing it
 * has not checked). Suitable as a fuzz target's entry; buf must be 8-byte
 * aligned (records are read in place), as a mapping or malloc's memory is,
 * or the buffer is refused as a bad header.
 *
 * shm_validate checks the header (magic, version, sizes, offsets, the
 * shim's fields; pid and start against x when x is not NULL) and every
 * record: a known type, timestamps within [exec_ts, x->end_ts] and never
 * decreasing (SYMBIND, a summary, excepted), object indices of objects
 * already opened, names inside the string area, counts and durations that
 * can be, milestones at most once; in follow mode, every process's chunks
 * as shm_decode_procs checks them, the first failure being the answer.
 * Returns 0; -EPROTO when the buffer is
 * not an ldprof buffer of this version (a bad header); -EBADMSG when it is
 * but its contents are corrupt. err says which record and why.
 *
 * shm_decode validates, then appends the records as events to run r (in
 * follow mode, those of the launched process's first exec) and
 * interns their objects in trace t (the executable under t->program when
 * set, else under the name the shim recorded); returns 0 or shm_validate's -errno, in
 * which case r gets no events, shim_attached false, shm_flags
 * TRACE_SHM_CORRUPT, and an exec_ts inside the run's window (x's start when
 * the header's is not, 0 without x).
 */
int shm_validate(const void *buf, size_t size, const struct shm_expect *x, struct errbuf *err);
int shm_decode(const void *buf, size_t size, const struct shm_expect *x, struct trace *t,
	       struct trace_run *r, struct errbuf *err);

/*
 * A private copy of a live buffer of size bytes, for the decoder: every
 * byte in use read once (the header, then the names and chunks it says
 * are in use; a flat buffer whole), so that a process still writing into
 * the buffer cannot change what was checked before it is used. The rest
 * is zero. NULL without memory; free with shm_snapshot_free.
 */
void *shm_snapshot(const void *live, size_t size);
void shm_snapshot_free(void *copy, size_t size);

/*
 * After a reap: one snapshot of s (shm_snapshot) that shm_collect and
 * shm_collect_procs then both read, so that the run's records and its
 * tree's come from one moment. Without memory for it, each takes its own.
 * Freed by the next shm_reset or shm_destroy.
 */
void shm_freeze(struct shm_buf *s);

/*
 * After a reap: decode a snapshot of s (shm_freeze's, or its own) into r, or mark r's shim data corrupt. Never fails.
 * In follow mode r gets the launched process's first exec, as without -f;
 * shm_collect_procs gives every process's.
 */
void shm_collect(const struct shm_buf *s, pid_t pid, struct trace *t, struct trace_run *r);

/*
 * Follow mode: what the shim recorded in one process image, an exec (or,
 * with SHM_PROC_FORKED, a child forked from one that never exec'd: it
 * shares the exec's version_ts). (pid, version_ts) is its identity: pids
 * repeat in a long run.
 */
struct shm_proc {
	int32_t pid, ppid;   /* ppid: its parent when the shim started recording */
	uint64_t version_ts; /* la_version of the exec, TSC ticks */
	uint64_t forked_ts;  /* SHM_PROC_FORKED: when the shim first saw the child */
	/*
	 * The shim's flags (enum ldprof_shm_flags, LDPROF_CHUNK_F_*: FORKED, an
	 * argv cut short), and TRACE_SHM_CORRUPT when its chunks failed the
	 * checks: then it has no events, no argv and no CPU, only its identity.
	 */
	uint32_t flags;
	struct trace_event *ev; /* as trace_run.ev; objects interned in the trace */
	size_t nev;
	char **argv; /* the first LDPROF_ARGV_MAX arguments, each at most 255 bytes; NULL-ended */
	size_t argc; /* entries in argv (ARGV_TRUNC in flags: the program had more) */
	/*
	 * getrusage(RUSAGE_SELF) at main's return or the exit call: the pid's
	 * CPU since its fork, so it includes the code that ran before the exec
	 * (and earlier images of the same pid).
	 */
	double utime_us, stime_us;
	bool have_cpu;
};
#define SHM_PROC_FORKED LDPROF_CHUNK_F_FORKED

/*
 * Decode every process's chunks from a follow-mode buffer (any bytes, as
 * shm_decode): each process's chunk set is checked alone, as shm_validate
 * checks one run, with x's window; one that fails is returned flagged
 * TRACE_SHM_CORRUPT with no records, and no other is affected. Chunks
 * claimed but never written are skipped. Out: the processes in order of
 * version_ts (a forked child after its exec), *lost_execs the execs the
 * shim could not record (the buffer was full). 0; -EPROTO when buf is
 * not a follow-mode buffer of this version, -EBADMSG when its header is
 * corrupt: then *out is NULL, *n and *lost_execs 0.
 */
int shm_decode_procs(const void *buf, size_t size, const struct shm_expect *x, struct trace *t,
		     struct shm_proc **out, size_t *n, uint64_t *lost_execs, struct errbuf *err);

/* After the run's processes are reaped: shm_decode_procs on a snapshot of s (as shm_collect), within its run. */
int shm_collect_procs(const struct shm_buf *s, struct trace *t, struct shm_proc **out, size_t *n,
		      uint64_t *lost_execs, struct errbuf *err);
void shm_procs_free(struct shm_proc *p, size_t n);

/*
 * The errno of a failed execve in the launcher's child, or 0: only when the
 * child exited 127 and the buffer shows no shim ran, so that a program that
 * overwrote the buffer is never reported as one that could not start.
 */
int shm_exec_errno(const void *buf, size_t size, int wait_status);

/* Helpers for the decoder: a valid header; a name in the string area or NULL. */
bool shm_header_valid(const struct ldprof_shm_header *h, size_t size);
const char *shm_string_at(const struct ldprof_shm_header *h, uint32_t off);

#endif
