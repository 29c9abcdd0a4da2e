/* A run's process tree from its task records (follow-tree.h). */
#include "run/follow-tree.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "elf/elfobj.h"

uint64_t follow_ns_to_ticks(const struct follow_clock *c, uint64_t ns)
{
	double d = (double)(int64_t)(ns - c->ns0) * c->ticks_per_ns;
	int64_t t = (int64_t)c->tsc0 + (int64_t)d;

	return t > 0 ? (uint64_t)t : 0;
}

/*
 * pid -> the index of its newest process: open addressing, because pids
 * go up to pid_max (millions) and a build reuses them.
 */
struct pidmap {
	int32_t *key; /* 0: empty */
	uint32_t *val;
	size_t cap, n;
};

static size_t slot_of(const struct pidmap *m, int32_t pid)
{
	size_t i = ((uint32_t)pid * 2654435761u) & (m->cap - 1);

	while (m->key[i] && m->key[i] != pid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void pidmap_put(struct pidmap *m, int32_t pid, uint32_t v);

static void pidmap_grow(struct pidmap *m)
{
	struct pidmap old = *m;

	m->cap = old.cap ? 2 * old.cap : 256;
	m->key = xcalloc(m->cap, sizeof *m->key);
	m->val = xcalloc(m->cap, sizeof *m->val);
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.key[i])
			pidmap_put(m, old.key[i], old.val[i]);
	free(old.key);
	free(old.val);
}

static void pidmap_put(struct pidmap *m, int32_t pid, uint32_t v)
{
	if (pid <= 0)
		return;
	if (2 * (m->n + 1) > m->cap)
		pidmap_grow(m);
	size_t i = slot_of(m, pid);
	if (!m->key[i])
		m->n++;
	m->key[i] = pid;
	m->val[i] = v;
}

static uint32_t pidmap_get(const struct pidmap *m, int32_t pid)
{
	if (!m->cap || pid <= 0)
		return TREE_NO_PROC;
	size_t i = slot_of(m, pid);
	return m->key[i] ? m->val[i] : TREE_NO_PROC;
}

static void pidmap_free(struct pidmap *m)
{
	free(m->key);
	free(m->val);
}

/*
 * Time order; at equal times, the order they were read in (seq), which is
 * the kernel's within one ring. (Not the elements' addresses: qsort may
 * compare copies.) A FORK is written before its child runs, so the
 * child's records on another CPU's ring come after it in time.
 */
static int by_time(const void *a, const void *b)
{
	const struct follow_rec *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void sort_records(struct follow_rec *recs, size_t n)
{
	/* Already in order from one ring, nearly so from several: check first. */
	for (size_t i = 1; i < n; i++)
		if (recs[i].ns < recs[i - 1].ns) {
			qsort(recs, n, sizeof *recs, by_time);
			return;
		}
}

struct builder {
	struct run_tree *t;
	size_t cap;
	struct pidmap live;
	const struct follow_clock *c;
};

static uint32_t add_proc(struct builder *b, int32_t pid, int32_t ppid, uint64_t ts)
{
	struct run_tree *t = b->t;

	if (t->nproc == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		t->proc = xrealloc(t->proc, b->cap * sizeof *t->proc);
	}
	t->proc[t->nproc] = (struct tree_proc){
		.pid = pid,
		.ppid = ppid,
		.parent = pidmap_get(&b->live, ppid),
		.fork_ts = ts,
	};
	pidmap_put(&b->live, pid, (uint32_t)t->nproc);
	return (uint32_t)t->nproc++;
}

static struct tree_proc *proc_of(struct builder *b, int32_t pid, uint64_t ts)
{
	uint32_t i = pidmap_get(&b->live, pid);

	/* Not seen forked (records lost, or a thread's exec): still shown. */
	if (i == TREE_NO_PROC)
		i = add_proc(b, pid, 0, ts);
	return &b->t->proc[i];
}

static void on_proc_exec(struct builder *b, const struct follow_rec *r, uint64_t ts)
{
	struct tree_proc *p = proc_of(b, r->pid, ts);

	if (p->nexec)
		p->exec[p->nexec - 1].end_ts = ts;
	p->exec = xrealloc(p->exec, (p->nexec + 1) * sizeof *p->exec);
	p->exec[p->nexec++] = (struct tree_exec){
		.ts = ts,
		.comm = xstrdup(r->str ? r->str : ""),
		.kind = TREE_EXEC_UNKNOWN,
	};
}

static void on_proc_mmap(struct builder *b, const struct follow_rec *r)
{
	uint32_t i = pidmap_get(&b->live, r->pid);
	struct tree_proc *p = i == TREE_NO_PROC ? NULL : &b->t->proc[i];

	/* The first executable mapping after an exec is its binary. */
	if (!p || !p->nexec || p->exec[p->nexec - 1].path || !r->str || r->str[0] != '/')
		return;
	p->exec[p->nexec - 1].path = xstrdup(r->str);
}

static void on_proc_exit(struct builder *b, const struct follow_rec *r, uint64_t ts)
{
	uint32_t i = pidmap_get(&b->live, r->pid);
	struct tree_proc *p;

	if (i == TREE_NO_PROC || r->pid != r->tid)
		return; /* a thread ends, not its process */
	p = &b->t->proc[i];
	p->exit_ts = ts;
	if (p->nexec && !p->exec[p->nexec - 1].end_ts)
		p->exec[p->nexec - 1].end_ts = ts;
}

static void replay(struct builder *b, const struct follow_rec *recs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct follow_rec *r = &recs[k];
		uint64_t ts = follow_ns_to_ticks(b->c, r->ns);
		switch (r->type) {
		case PERF_RECORD_FORK:
			if (r->pid == r->tid && r->pid != r->ppid)
				add_proc(b, r->pid, r->ppid, ts);
			break;
		case PERF_RECORD_COMM:
			on_proc_exec(b, r, ts);
			break;
		case PERF_RECORD_MMAP2:
			on_proc_mmap(b, r);
			break;
		case PERF_RECORD_EXIT:
			on_proc_exit(b, r, ts);
			break;
		}
	}
}

static int by_pid_then_fork(const void *a, const void *b, void *arg)
{
	const struct tree_proc *p = arg;
	const struct tree_proc *x = &p[*(const uint32_t *)a], *y = &p[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->fork_ts < y->fork_ts ? -1 : x->fork_ts > y->fork_ts;
}

/* The process with this pid that was alive at ts (the newest forked before it). */
static struct tree_proc *proc_at(struct run_tree *t, const uint32_t *idx, int32_t pid,
				 uint64_t ts)
{
	size_t lo = 0, hi = t->nproc;
	struct tree_proc *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->proc[idx[mid]].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->nproc && t->proc[idx[lo]].pid == pid; lo++)
		if (t->proc[idx[lo]].fork_ts <= ts)
			best = &t->proc[idx[lo]];
	return best;
}

static void attach_reaps(struct run_tree *t, const struct follow_reap *reaps, size_t n, pid_t top)
{
	uint32_t *idx = xmalloc((t->nproc + 1) * sizeof *idx);

	for (size_t i = 0; i < t->nproc; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, t->nproc, sizeof *idx, by_pid_then_fork, t->proc);
	for (size_t i = 0; i < n; i++) {
		struct tree_proc *p = reaps[i].pid == top ? &t->proc[0]
							  : proc_at(t, idx, reaps[i].pid, reaps[i].ts);
		if (!p)
			continue;
		p->wait_status = reaps[i].status;
		p->have_status = true;
		p->orphan = reaps[i].pid != top;
	}
	free(idx);
}

struct kind_cache {
	char *path;
	enum tree_exec_kind kind;
};

enum tree_exec_kind follow_binary_kind(const char *path)
{
	struct stat st;
	struct elfobj *o;
	struct errbuf err;
	enum tree_exec_kind k;

	if (!path || stat(path, &st))
		return TREE_EXEC_UNKNOWN;
	if (st.st_mode & (S_ISUID | S_ISGID))
		return TREE_EXEC_SETUID;
	if (elfobj_open(path, &o, &err))
		return TREE_EXEC_UNKNOWN;
	k = o->interp ? TREE_EXEC_NO_SHIM : TREE_EXEC_STATIC;
	elfobj_close(o);
	return k;
}

/* Each binary is read once per run, however many times it ran. */
static enum tree_exec_kind cached_kind(struct kind_cache **c, size_t *n, const char *path)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*c)[i].path, path))
			return (*c)[i].kind;
	*c = xrealloc(*c, (*n + 1) * sizeof **c);
	(*c)[*n] = (struct kind_cache){xstrdup(path), follow_binary_kind(path)};
	return (*c)[(*n)++].kind;
}

static void set_kinds(struct run_tree *t)
{
	struct kind_cache *c = NULL;
	size_t n = 0;

	for (size_t i = 0; i < t->nproc; i++) {
		struct tree_proc *p = &t->proc[i];
		for (size_t k = 0; k < p->nexec; k++) {
			struct tree_exec *e = &p->exec[k];
			if (e->path)
				e->kind = cached_kind(&c, &n, e->path);
			else if (p->exit_ts && e->end_ts == p->exit_ts)
				/* Exec'd yet never mapped, then a prompt EXIT: the
				   kernel detached the events from a set-ID image. */
				e->kind = TREE_EXEC_SETUID;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(c[i].path);
	free(c);
}

struct run_tree *follow_tree_build(struct follow_rec *recs, size_t nrec,
				   const struct follow_reap *reaps, size_t nreap, pid_t top,
				   uint64_t exec_ts, const struct follow_clock *c)
{
	struct builder b = {.t = xcalloc(1, sizeof *b.t), .c = c};

	sort_records(recs, nrec);
	add_proc(&b, top, (int32_t)getpid(), exec_ts);
	b.t->proc[0].parent = TREE_NO_PROC;
	replay(&b, recs, nrec);
	pidmap_free(&b.live);
	attach_reaps(b.t, reaps, nreap, top);
	for (size_t i = 0; i < b.t->nproc; i++)
		if (!b.t->proc[i].exit_ts)
			b.t->lost_events++; /* a FORK without its EXIT */
	set_kinds(b.t);
	return b.t;
}

size_t follow_tree_live(const struct follow_rec *recs, size_t nrec, pid_t top, pid_t **out)
{
	struct pidmap m = {0};
	size_t n = 0;

	/* A value: 0 for the top until a record of its own, else 1 + the
	   index of the pid's latest FORK or EXIT. Several rings are drained in
	   turn, so a child's EXIT may come before its FORK: time decides. */
	pidmap_put(&m, top, 0);
	for (size_t k = 0; k < nrec && k + 1 < TREE_NO_PROC; k++) {
		const struct follow_rec *r = &recs[k];
		if (r->pid != r->tid || (r->type != PERF_RECORD_FORK && r->type != PERF_RECORD_EXIT))
			continue;
		uint32_t cur = pidmap_get(&m, r->pid);
		if (cur != TREE_NO_PROC && cur && recs[cur - 1].ns > r->ns)
			continue;
		pidmap_put(&m, r->pid, (uint32_t)k + 1);
	}
	*out = xmalloc((m.n + 1) * sizeof **out);
	for (size_t i = 0; i < m.cap; i++)
		if (m.key[i] && (!m.val[i] || recs[m.val[i] - 1].type == PERF_RECORD_FORK))
			(*out)[n++] = m.key[i];
	pidmap_free(&m);
	return n;
}

void follow_tree_cpu(struct run_tree *t, const struct rusage *before, struct rusage *now)
{
	t->cpu_user_us = timeval_us(&now->ru_utime) - timeval_us(&before->ru_utime);
	t->cpu_sys_us = timeval_us(&now->ru_stime) - timeval_us(&before->ru_stime);
	t->have_cpu = true;
	timersub(&now->ru_utime, &before->ru_utime, &now->ru_utime);
	timersub(&now->ru_stime, &before->ru_stime, &now->ru_stime);
	now->ru_minflt -= before->ru_minflt;
	now->ru_majflt -= before->ru_majflt;
	now->ru_nivcsw -= before->ru_nivcsw;
}
