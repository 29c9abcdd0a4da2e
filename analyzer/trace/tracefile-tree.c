/*
 * The trace file's TREE section (-f): one run's process tree, tags in
 * docs/trace-format.md. Times are deltas from the run's exec_ts (or, for
 * an exec's events, from the exec's ts), as the RUNS section's are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracefile-sections.h"

enum tree_tag {
	TREE_RUN = 1,
	TREE_LOST_EVENTS = 2,
	TREE_LOST_EXECS = 3,
	TREE_CPU_USER_US = 4, /* 4 and 5 present iff have_cpu */
	TREE_CPU_SYS_US = 5,
	TREE_PROC = 6,
	TREE_UNMATCHED_EXECS = 7, /* absent when 0 */
};

enum proc_tag {
	PROC_PID = 1,
	PROC_PPID = 2,
	PROC_PARENT = 3, /* index + 1; 0 for none */
	PROC_FORK = 4,
	PROC_EXIT = 5,	 /* absent when not seen */
	PROC_STATUS = 6, /* present iff have_status */
	PROC_ORPHAN = 7,
	PROC_EXEC = 8,
	PROC_STATUS_SHIM = 9, /* present iff status_from_shim */
	PROC_FORK_RECORDS = 10, /* 10-13: a fork the shim recorded; 10 iff fork_recorded */
	PROC_EXIT_CALL = 11, /* iff exit_call_ts */
	PROC_UTIME_US = 12, /* 12 and 13 iff have_cpu */
	PROC_STIME_US = 13,
};

enum exec_tag {
	EXEC_TS = 1,
	EXEC_END = 2, /* absent when not seen */
	EXEC_PATH = 3,
	EXEC_COMM = 4,
	EXEC_ARGC = 5, /* present iff argv: then argc EXEC_ARG fields follow */
	EXEC_ARG = 6,
	EXEC_KIND = 7,
	EXEC_SHM_FLAGS = 8,
	EXEC_UTIME_US = 9, /* 9 and 10 present iff have_cpu */
	EXEC_STIME_US = 10,
	EXEC_EVENTS = 11,
};

/* A bound on what one section may claim, so that a damaged file cannot make us allocate much. */
#define TREE_MAX_ARGC 4096u

static int64_t delta(uint64_t ts, uint64_t base)
{
	return (int64_t)(ts - base);
}

static void encode_exec(const struct tree_exec *e, uint64_t base, struct bbuf *b)
{
	struct bbuf ev = {0};

	tlv_sint(b, EXEC_TS, delta(e->ts, base));
	if (e->end_ts)
		tlv_sint(b, EXEC_END, delta(e->end_ts, base));
	tlv_str(b, EXEC_PATH, e->path);
	tlv_str(b, EXEC_COMM, e->comm);
	if (e->argv) {
		tlv_uint(b, EXEC_ARGC, e->argc);
		for (size_t i = 0; i < e->argc; i++)
			tlv_str(b, EXEC_ARG, e->argv[i]);
	}
	tlv_uint(b, EXEC_KIND, e->kind);
	tlv_uint(b, EXEC_SHM_FLAGS, e->shm_flags);
	if (e->have_cpu) {
		tlv_f64(b, EXEC_UTIME_US, e->utime_us);
		tlv_f64(b, EXEC_STIME_US, e->stime_us);
	}
	if (e->nev) {
		tf_encode_events(e->ev, e->nev, e->ts, &ev);
		tlv_nested(b, EXEC_EVENTS, &ev);
	}
}

static void encode_proc(const struct tree_proc *p, uint64_t base, struct bbuf *b)
{
	tlv_sint(b, PROC_PID, p->pid);
	tlv_sint(b, PROC_PPID, p->ppid);
	tlv_uint(b, PROC_PARENT, p->parent == TREE_NO_PROC ? 0 : (uint64_t)p->parent + 1);
	tlv_sint(b, PROC_FORK, delta(p->fork_ts, base));
	if (p->exit_ts)
		tlv_sint(b, PROC_EXIT, delta(p->exit_ts, base));
	if (p->have_status)
		tlv_uint(b, PROC_STATUS, (uint32_t)p->wait_status);
	if (p->status_from_shim)
		tlv_uint(b, PROC_STATUS_SHIM, 1);
	tlv_uint(b, PROC_ORPHAN, p->orphan);
	if (p->fork_recorded)
		tlv_uint(b, PROC_FORK_RECORDS, p->fork_records);
	if (p->exit_call_ts)
		tlv_sint(b, PROC_EXIT_CALL, delta(p->exit_call_ts, base));
	if (p->have_cpu) {
		tlv_f64(b, PROC_UTIME_US, p->utime_us);
		tlv_f64(b, PROC_STIME_US, p->stime_us);
	}
	for (size_t k = 0; k < p->nexec; k++) {
		struct bbuf e = {0};
		encode_exec(&p->exec[k], base, &e);
		tlv_nested(b, PROC_EXEC, &e);
	}
}

void tf_encode_tree(const struct trace *t, size_t i, struct bbuf *b)
{
	const struct trace_run *r = &t->run[i];
	const struct run_tree *tr = r->tree;

	tlv_uint(b, TREE_RUN, i);
	tlv_uint(b, TREE_LOST_EVENTS, tr->lost_events);
	tlv_uint(b, TREE_LOST_EXECS, tr->lost_execs);
	if (tr->unmatched_execs)
		tlv_uint(b, TREE_UNMATCHED_EXECS, tr->unmatched_execs);
	if (tr->have_cpu) {
		tlv_f64(b, TREE_CPU_USER_US, tr->cpu_user_us);
		tlv_f64(b, TREE_CPU_SYS_US, tr->cpu_sys_us);
	}
	for (size_t k = 0; k < tr->nproc; k++) {
		struct bbuf p = {0};
		encode_proc(&tr->proc[k], r->exec_ts, &p);
		tlv_nested(b, TREE_PROC, &p);
	}
}

struct exec_fields {
	struct cursor events;
	size_t args_seen;
};

static bool decode_exec_field(unsigned tag, struct cursor *v, struct tree_exec *e, uint64_t base,
			      struct exec_fields *x)
{
	uint64_t u;

	switch (tag) {
	case EXEC_TS:
		e->ts = base + (uint64_t)val_sint(v);
		break;
	case EXEC_END:
		e->end_ts = base + (uint64_t)val_sint(v);
		break;
	case EXEC_PATH:
		free(e->path);
		return (e->path = val_str(v)) != NULL;
	case EXEC_COMM:
		free(e->comm);
		return (e->comm = val_str(v)) != NULL;
	case EXEC_ARGC:
		u = val_uint(v);
		if (e->argv || u > TREE_MAX_ARGC)
			return false;
		e->argv = xcalloc(u + 1, sizeof *e->argv);
		e->argc = (size_t)u;
		break;
	case EXEC_ARG:
		if (!e->argv || x->args_seen >= e->argc)
			return false;
		return (e->argv[x->args_seen++] = val_str(v)) != NULL;
	case EXEC_KIND:
		u = val_uint(v);
		if (u > TREE_EXEC_UNKNOWN)
			return false;
		e->kind = (enum tree_exec_kind)u;
		break;
	case EXEC_SHM_FLAGS:
		e->shm_flags = (uint32_t)val_uint(v);
		break;
	case EXEC_UTIME_US:
		e->utime_us = val_f64(v);
		e->have_cpu = true;
		break;
	case EXEC_STIME_US:
		e->stime_us = val_f64(v);
		break;
	case EXEC_EVENTS:
		x->events = *v; /* decoded once ts is known */
		break;
	}
	return !v->bad;
}

static bool decode_exec(struct cursor *c, const struct trace *t, uint64_t base,
			struct tree_exec *e)
{
	struct exec_fields x = {.events = cursor_of(NULL, 0)};
	struct trace_run tmp = {0};
	struct cursor v;
	unsigned tag;

	while (tlv_next(c, &tag, &v))
		if (!decode_exec_field(tag, &v, e, base, &x))
			return false;
	if (c->bad || (e->argv && x.args_seen != e->argc))
		return false;
	if (!tf_decode_events(&x.events, t, e->ts, &tmp)) {
		free(tmp.ev);
		return false;
	}
	e->ev = tmp.ev;
	e->nev = tmp.nev;
	return true;
}

static bool add_exec(struct cursor *v, const struct trace *t, uint64_t base, struct tree_proc *p)
{
	p->exec = xrealloc(p->exec, (p->nexec + 1) * sizeof *p->exec);
	p->exec[p->nexec] = (struct tree_exec){.kind = TREE_EXEC_UNKNOWN};
	/* Counted before decoding, so that run_tree_free frees a half-read one. */
	return decode_exec(v, t, base, &p->exec[p->nexec++]);
}

static bool decode_proc(struct cursor *c, const struct trace *t, uint64_t base,
			struct tree_proc *p)
{
	struct cursor v;
	unsigned tag;
	uint64_t u;

	p->parent = TREE_NO_PROC;
	while (tlv_next(c, &tag, &v)) {
		switch (tag) {
		case PROC_PID:
			p->pid = (int32_t)val_sint(&v);
			break;
		case PROC_PPID:
			p->ppid = (int32_t)val_sint(&v);
			break;
		case PROC_PARENT:
			u = val_uint(&v);
			p->parent = u && u <= UINT32_MAX ? (uint32_t)(u - 1) : TREE_NO_PROC;
			break;
		case PROC_FORK:
			p->fork_ts = base + (uint64_t)val_sint(&v);
			break;
		case PROC_EXIT:
			p->exit_ts = base + (uint64_t)val_sint(&v);
			break;
		case PROC_STATUS:
			p->wait_status = (int)(uint32_t)val_uint(&v);
			p->have_status = true;
			break;
		case PROC_ORPHAN:
			p->orphan = val_uint(&v) != 0;
			break;
		case PROC_STATUS_SHIM:
			p->status_from_shim = val_uint(&v) != 0;
			break;
		case PROC_FORK_RECORDS:
			u = val_uint(&v);
			p->fork_records = u < UINT32_MAX ? (uint32_t)u : UINT32_MAX;
			p->fork_recorded = true;
			break;
		case PROC_EXIT_CALL:
			p->exit_call_ts = base + (uint64_t)val_sint(&v);
			break;
		case PROC_UTIME_US:
			p->utime_us = val_f64(&v);
			p->have_cpu = true;
			break;
		case PROC_STIME_US:
			p->stime_us = val_f64(&v);
			p->have_cpu = true;
			break;
		case PROC_EXEC:
			if (!add_exec(&v, t, base, p))
				return false;
			break;
		}
		if (v.bad)
			return false;
	}
	p->status_from_shim = p->status_from_shim && p->have_status; /* a damaged file */
	return !c->bad;
}

static bool decode_tree_field(unsigned tag, struct cursor *v, const struct trace *t,
			      struct run_tree *tr, uint64_t base, size_t *cap)
{
	switch (tag) {
	case TREE_LOST_EVENTS:
		tr->lost_events = val_uint(v);
		break;
	case TREE_LOST_EXECS:
		tr->lost_execs = val_uint(v);
		break;
	case TREE_UNMATCHED_EXECS:
		tr->unmatched_execs = val_uint(v);
		break;
	case TREE_CPU_USER_US:
		tr->cpu_user_us = val_f64(v);
		tr->have_cpu = true;
		break;
	case TREE_CPU_SYS_US:
		tr->cpu_sys_us = val_f64(v);
		break;
	case TREE_PROC:
		if (tr->nproc == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			tr->proc = xrealloc(tr->proc, *cap * sizeof *tr->proc);
		}
		tr->proc[tr->nproc] = (struct tree_proc){0};
		return decode_proc(v, t, base, &tr->proc[tr->nproc++]);
	}
	return !v->bad;
}

/* Parents inside the tree and before their children; the top has none. */
static bool tree_consistent(const struct run_tree *tr)
{
	if (!tr->nproc || tr->proc[0].parent != TREE_NO_PROC)
		return false;
	for (size_t i = 1; i < tr->nproc; i++)
		if (tr->proc[i].parent != TREE_NO_PROC && tr->proc[i].parent >= i)
			return false;
	return true;
}

int tf_decode_tree(struct cursor *c, struct trace *t, struct errbuf *err)
{
	struct run_tree *tr;
	struct cursor v;
	unsigned tag;
	size_t cap = 0;
	uint64_t run;

	/* The run index comes first: its exec_ts is every time's base. */
	if (!tlv_next(c, &tag, &v) || tag != TREE_RUN)
		return set_err(err, EPROTO, "damaged TREE section: no run index first");
	run = val_uint(&v);
	if (v.bad || run >= t->nrun || t->run[run].tree)
		return set_err(err, EPROTO, "TREE section for run %llu, which has no RUNS entry "
			       "or has a tree already", (unsigned long long)run);
	tr = xcalloc(1, sizeof *tr);
	while (tlv_next(c, &tag, &v))
		if (!decode_tree_field(tag, &v, t, tr, t->run[run].exec_ts, &cap))
			goto bad;
	if (c->bad || !tree_consistent(tr))
		goto bad;
	t->run[run].tree = tr;
	return 0;
bad:
	run_tree_free(tr);
	free(tr);
	return set_err(err, EPROTO, "damaged TREE section of run %llu", (unsigned long long)run);
}
