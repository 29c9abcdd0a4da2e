/* Joining the shim's per-process records to the run's tree (follow-join.h). */
#include "run/follow-join.h"

#include <stdlib.h>

/* Processes ordered by (pid, fork time), to find one alive at a time. */
struct proc_index {
	const struct run_tree *t;
	uint32_t *idx;
};

static int by_pid_fork(const void *a, const void *b, void *arg)
{
	const struct tree_proc *p = arg;
	const struct tree_proc *x = &p[*(const uint32_t *)a], *y = &p[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fork_ts < y->fork_ts ? -1 : x->fork_ts > y->fork_ts;
}

static void index_build(struct proc_index *ix, const struct run_tree *t)
{
	ix->t = t;
	ix->idx = xmalloc((t->nproc + 1) * sizeof *ix->idx);
	for (size_t i = 0; i < t->nproc; i++)
		ix->idx[i] = (uint32_t)i;
	qsort_r(ix->idx, t->nproc, sizeof *ix->idx, by_pid_fork, t->proc);
}

/* The process with this pid alive at ts: forked before it, not exited before it. */
static struct tree_proc *proc_alive_at(const struct proc_index *ix, int32_t pid, uint64_t ts)
{
	const struct run_tree *t = ix->t;
	size_t lo = 0, hi = t->nproc;
	struct tree_proc *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->proc[ix->idx[mid]].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->nproc && t->proc[ix->idx[lo]].pid == pid; lo++) {
		struct tree_proc *p = &t->proc[ix->idx[lo]];
		if (p->fork_ts <= ts && (!p->exit_ts || p->exit_ts >= ts))
			best = p; /* in fork order: the newest wins */
	}
	return best;
}

/* Its last exec that began before ts. */
static struct tree_exec *exec_at(struct tree_proc *p, uint64_t ts)
{
	struct tree_exec *e = NULL;

	for (size_t k = 0; k < p->nexec && p->exec[k].ts <= ts; k++)
		e = &p->exec[k];
	return e;
}

static void take(struct tree_exec *e, struct shm_proc *s)
{
	e->kind = TREE_EXEC_SHIM;
	e->shm_flags = s->flags;
	e->ev = s->ev;
	e->nev = s->nev;
	e->argv = s->argv;
	e->argc = s->argc;
	e->utime_us = s->utime_us;
	e->stime_us = s->stime_us;
	e->have_cpu = s->have_cpu;
	s->ev = NULL;
	s->nev = 0;
	s->argv = NULL;
	s->argc = 0;
}

/*
 * The exit status an image asked for: its last exit call's, else what main
 * returned (libc passes it to exit by an internal call the shim does not
 * see). False when it did neither: killed by a signal, or a raw system call.
 */
static bool asked_status(const struct trace_event *ev, size_t n, int *status, uint64_t *exit_ts)
{
	bool found = false;

	for (size_t i = 0; i < n; i++) {
		if (ev[i].type != LDPROF_REC_EXIT_CALL && ev[i].type != LDPROF_REC_MAIN_RETURN)
			continue;
		*status = (int)((ev[i].a & 0xff) << 8); /* as wait4 gives it: WEXITSTATUS */
		if (ev[i].type == LDPROF_REC_EXIT_CALL && exit_ts)
			*exit_ts = ev[i].ts;
		found = true;
	}
	return found;
}

/* A status only where ldprof did not reap the process: the parent did. */
static void status_from_shim(struct tree_proc *p, const struct trace_event *ev, size_t n)
{
	int st;

	if (!p->have_status && asked_status(ev, n, &st, NULL)) {
		p->wait_status = st;
		p->have_status = true;
		p->status_from_shim = true;
	}
}

/* A fork that never executed: what the shim saw of it, in its parent's image. */
static void take_fork(struct tree_proc *p, const struct shm_proc *s)
{
	p->fork_recorded = true;
	p->fork_records = (uint32_t)s->nev;
	if (s->flags & TRACE_SHM_CORRUPT)
		return;
	asked_status(s->ev, s->nev, &(int){0}, &p->exit_call_ts);
	if ((p->have_cpu = s->have_cpu)) {
		p->utime_us = s->utime_us;
		p->stime_us = s->stime_us;
	}
	if (!p->nexec)
		status_from_shim(p, s->ev, s->nev);
}

/* The process s (a fork of an exec) ran in: alive when the shim first saw it, not yet exec'd. */
static struct tree_proc *fork_of(const struct proc_index *ix, const struct shm_proc *s)
{
	struct tree_proc *p = proc_alive_at(ix, s->pid, s->forked_ts);

	if (!p || p->fork_recorded || (p->nexec && p->exec[0].ts <= s->forked_ts))
		return NULL;
	return p;
}

static int by_start(const void *a, const void *b)
{
	const struct tree_exec *x = *(struct tree_exec *const *)a, *y = *(struct tree_exec *const *)b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* The last `lost` dynamic execs without records: those the full buffer refused. */
static void mark_lost(struct run_tree *t, uint64_t lost)
{
	struct tree_exec **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < t->nproc; i++)
		for (size_t k = 0; k < t->proc[i].nexec; k++)
			if (t->proc[i].exec[k].kind == TREE_EXEC_NO_SHIM) {
				v = xrealloc(v, (n + 1) * sizeof *v);
				v[n++] = &t->proc[i].exec[k];
			}
	qsort(v, n, sizeof *v, by_start);
	for (size_t i = n; i > 0 && lost > 0; i--, lost--)
		v[i - 1]->kind = TREE_EXEC_LOST;
	free(v);
}

size_t follow_join(struct run_tree *t, struct shm_proc *procs, size_t n, uint64_t lost_execs)
{
	struct proc_index ix;
	size_t joined = 0;

	index_build(&ix, t);
	for (size_t i = 0; i < n; i++) {
		struct shm_proc *s = &procs[i];
		if (s->flags & SHM_PROC_FORKED) {
			struct tree_proc *f = fork_of(&ix, s);
			if (f)
				take_fork(f, s);
			continue; /* no exec of its own */
		}
		struct tree_proc *p = proc_alive_at(&ix, s->pid, s->version_ts);
		struct tree_exec *e = p ? exec_at(p, s->version_ts) : NULL;
		if (!e || e->kind == TREE_EXEC_SHIM) {
			/* No task record shows this exec (another PID namespace, or
			   records the kernel lost): counted, never mixed into another. */
			t->unmatched_execs++;
			continue;
		}
		take(e, s);
		joined++;
	}
	free(ix.idx);
	for (size_t i = 0; i < t->nproc; i++) {
		struct tree_proc *p = &t->proc[i];
		struct tree_exec *last = p->nexec ? &p->exec[p->nexec - 1] : NULL;
		if (last && last->kind == TREE_EXEC_SHIM)
			status_from_shim(p, last->ev, last->nev);
	}
	t->lost_execs = lost_execs;
	if (lost_execs)
		mark_lost(t, lost_execs);
	return joined;
}
