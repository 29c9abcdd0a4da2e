/*
 * The follow-mode decoder (ldprof -f): the record buffer holds chunks from
 * every process of the workload (docs/record-format.md, "Follow mode").
 * Each process's chunks are found by their (pid, version_ts), put in
 * order by seq, and checked alone, as shm_validate checks one run; a set
 * that fails is returned flagged and without records, and nothing of it
 * reaches another process's.
 */
#include "run/shm.h"
#include "run/shm-records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/tsc.h"

/* One process image's chunks, and what became of them. */
struct set {
	const struct ldprof_chunk **chunk; /* sorted by seq */
	size_t nchunk;
	const struct ldprof_chunk *first; /* chunk[0] */
	bool forked, ok;
	uint64_t forked_at;   /* FORKED's b: a forked child after the one it was forked from */
	int32_t parent_pid;   /* FORKED's a */
	uint32_t inherited;   /* FORKED's u32 */
	struct ldprof_record *rec; /* the records, gathered from the chunks */
	uint32_t nrec;
	bool truncated; /* a later chunk was never claimed: the area was full */
	struct shm_objmap map;
	struct trace_run run; /* the decoded events */
};

struct sets {
	const struct ldprof_chunk **chunk; /* every written chunk, by (pid, version_ts, seq) */
	struct set *set;		   /* by (pid, version_ts) */
	size_t nset;
};

static int chunk_cmp(const void *pa, const void *pb)
{
	const struct ldprof_chunk *a = *(const struct ldprof_chunk *const *)pa;
	const struct ldprof_chunk *b = *(const struct ldprof_chunk *const *)pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->version_ts != b->version_ts)
		return a->version_ts < b->version_ts ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a < b ? -1 : a > b;
}

static bool blank(const struct ldprof_chunk *c)
{
	static const struct ldprof_chunk zero;

	return !memcmp(c, &zero, sizeof zero);
}

static const struct ldprof_chunk *chunk_at(const struct ldprof_shm_header *h, uint32_t i)
{
	return (const void *)((const char *)h + h->chunks_off + (size_t)i * h->chunk_size);
}

/* Group the written chunks by process image. */
static void group(const struct ldprof_shm_header *h, struct sets *s)
{
	uint32_t used = h->chunks_used < h->chunks_cap ? h->chunks_used : h->chunks_cap;
	size_t n = 0;

	memset(s, 0, sizeof *s);
	s->chunk = xcalloc(used ? used : 1, sizeof *s->chunk);
	for (uint32_t i = 0; i < used; i++)
		if (!blank(chunk_at(h, i)))
			s->chunk[n++] = chunk_at(h, i);
	qsort(s->chunk, n, sizeof *s->chunk, chunk_cmp);
	s->set = xcalloc(n ? n : 1, sizeof *s->set);
	for (size_t i = 0; i < n; i++) {
		const struct ldprof_chunk *c = s->chunk[i];
		struct set *last = s->nset ? &s->set[s->nset - 1] : NULL;
		if (last && last->first->pid == c->pid && last->first->version_ts == c->version_ts) {
			last->nchunk++;
			continue;
		}
		s->set[s->nset++] = (struct set){.chunk = &s->chunk[i], .nchunk = 1, .first = c};
	}
}

static void sets_free(struct sets *s)
{
	for (size_t i = 0; i < s->nset; i++) {
		free(s->set[i].rec);
		free(s->set[i].map.to_trace);
		free(s->set[i].run.ev);
	}
	free(s->set);
	free(s->chunk);
}

/* argv_n strings from argv_off, each shorter than LDPROF_ARG_MAX. */
static bool argv_ok(const struct ldprof_shm_header *h, const struct ldprof_chunk *c)
{
	uint32_t off = c->argv_off;

	if (!(c->flags & LDPROF_CHUNK_F_ARGV))
		return !c->argv_off && !c->argv_n && !c->argc &&
		       !(c->flags & LDPROF_CHUNK_F_ARGV_TRUNC);
	if (c->argv_n > LDPROF_ARGV_MAX || c->argv_n > c->argc ||
	    (c->argv_n < c->argc && !(c->flags & LDPROF_CHUNK_F_ARGV_TRUNC)))
		return false;
	for (uint32_t k = 0; k < c->argv_n; k++) {
		const char *s = shm_string_at(h, off);
		size_t len = s ? strlen(s) : 0;
		if (!s || len >= LDPROF_ARG_MAX)
			return false;
		off += (uint32_t)len + 1;
	}
	return true;
}

/* The first chunk's own fields. */
static const char *first_bad(const struct ldprof_shm_header *h, const struct ldprof_chunk *c,
			     const struct shm_expect *x)
{
	if (c->seq)
		return "no first chunk";
	if (c->pid <= 0 || c->ppid < 0)
		return "impossible pid";
	if (c->flags & ~SHM_KNOWN_CHUNK_FLAGS || c->reserved32)
		return "unknown flags";
	if (x && (c->version_ts < x->start_ts || c->version_ts > x->end_ts))
		return "exec outside the run";
	if (c->exe_name != UINT32_MAX && !shm_string_at(h, c->exe_name))
		return "executable's name outside the string area";
	if (!argv_ok(h, c))
		return "impossible argv";
	if ((c->flags & LDPROF_CHUNK_F_RUSAGE)
		    ? c->utime_us >= 1ull << 40 || c->stime_us >= 1ull << 40
		    : c->utime_us || c->stime_us)
		return "impossible CPU time";
	return NULL;
}

/* A later chunk holds records only; the rest is the first chunk's. */
static const char *later_bad(const struct ldprof_chunk *first, const struct ldprof_chunk *c,
			     const struct ldprof_chunk *prev)
{
	if (c->seq == prev->seq)
		return "two chunks with one sequence number";
	if (c->seq >= LDPROF_MAX_CHUNKS)
		return "sequence number beyond the limit";
	if (c->ppid != first->ppid || c->flags || c->nrecords || c->exe_name || c->argv_off ||
	    c->argv_n || c->argc || c->reserved32 || c->utime_us || c->stime_us)
		return "a later chunk's header is not blank";
	return NULL;
}

/*
 * The set's records in order, gathered from its chunks: chunk k holds
 * records k * per .. (k + 1) * per - 1. A chunk missing is the end of the
 * records if the shim flagged the overflow (the area was full), else
 * corruption.
 */
static const char *gather(const struct ldprof_shm_header *h, struct set *s)
{
	const struct ldprof_chunk *first = s->first;
	uint32_t per = (h->chunk_size - (uint32_t)sizeof *first) / (uint32_t)sizeof *s->rec;
	uint64_t cap = (uint64_t)per * LDPROF_MAX_CHUNKS;
	uint64_t n = first->nrecords < cap ? first->nrecords : cap;
	uint32_t need = (uint32_t)((n + per - 1) / per), j = 0;
	bool overflow = first->flags & LDPROF_SHM_F_OVERFLOW;

	if (first->nrecords > cap && !overflow)
		return "more records than chunks, without the overflow flag";
	if (s->chunk[s->nchunk - 1]->seq >= (need ? need : 1))
		return "a chunk beyond its records";
	/* Only the chunks present hold records: bounded by the buffer, whatever nrecords says. */
	s->rec = xcalloc(n < (uint64_t)per * s->nchunk ? (n ? n : 1) : (size_t)per * s->nchunk,
			 sizeof *s->rec);
	for (uint32_t k = 0; k < need; k++) {
		if (j < s->nchunk && s->chunk[j]->seq == k) {
			uint64_t from = (uint64_t)k * per, cnt = n - from < per ? n - from : per;
			memcpy(&s->rec[from], s->chunk[j] + 1, cnt * sizeof *s->rec);
			j++;
			continue;
		}
		if (!overflow)
			return "a chunk is missing";
		n = (uint64_t)k * per;
		s->truncated = true;
		break;
	}
	s->nrec = (uint32_t)n;
	return NULL;
}

/* Check one set alone: its chunks' headers, then its records. */
static int check_set(const struct ldprof_shm_header *h, struct set *s,
		     const struct shm_expect *x, struct errbuf *err)
{
	const struct ldprof_chunk *first = s->first;
	const char *why = first_bad(h, first, x);

	s->forked = first->flags & LDPROF_CHUNK_F_FORKED;
	for (size_t k = 1; !why && k < s->nchunk; k++)
		why = later_bad(first, s->chunk[k], s->chunk[k - 1]);
	if (!why)
		why = gather(h, s);
	if (why)
		return set_err(err, EBADMSG, "record buffer: pid %d's chunks: %s", (int)first->pid,
			       why);
	if (shm_check_records(h, s->rec, s->nrec, first->version_ts,
			      x ? x->end_ts : UINT64_MAX, s->forked, err))
		return -EBADMSG;
	if (s->nrec && s->rec[0].ts != first->version_ts)
		return set_err(err, EBADMSG, "record buffer: pid %d: VERSION is not the exec's",
			       (int)first->pid);
	if (s->forked && s->nrec) {
		s->parent_pid = (int32_t)s->rec[0].a;
		s->inherited = s->rec[0].u32;
		s->forked_at = s->rec[0].b;
	}
	s->ok = true;
	return 0;
}

/* The header, then every chunk grouped (checked by check_set on demand). */
static int open_sets(const struct ldprof_shm_header *h, size_t size, const struct shm_expect *x,
		     struct sets *s, struct errbuf *err)
{
	const char *why;

	memset(s, 0, sizeof *s);
	if (!h || !shm_header_valid(h, size) || !(h->options & LDPROF_OPT_FOLLOW))
		return set_err(err, EPROTO,
			       "record buffer: bad header (not an ldprof v%u follow-mode buffer)",
			       LDPROF_SHM_VERSION);
	if ((why = shm_header_bad(h, x)))
		return set_err(err, EBADMSG, "record buffer: header: %s", why);
	group(h, s);
	return 0;
}

int shm_validate_chunks(const struct ldprof_shm_header *h, const struct shm_expect *x,
			struct errbuf *err)
{
	struct sets s;
	int r = open_sets(h, h->total_size, x, &s, err);

	for (size_t i = 0; !r && i < s.nset; i++)
		r = check_set(h, &s.set[i], x, err);
	sets_free(&s);
	return r;
}

/* The set of (pid, version_ts), or NULL. */
static struct set *find_set(struct sets *s, int32_t pid, uint64_t version_ts)
{
	size_t lo = 0, hi = s->nset;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ldprof_chunk *c = s->set[mid].first;
		if (c->pid == pid && c->version_ts == version_ts)
			return &s->set[mid];
		if (c->pid < pid || (c->pid == pid && c->version_ts < version_ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The launched process's first exec: its pid, not forked, the earliest. */
static struct set *top_set(struct sets *s, int32_t pid)
{
	for (size_t i = 0; i < s->nset; i++)
		if (s->set[i].first->pid == pid && !(s->set[i].first->flags & LDPROF_CHUNK_F_FORKED))
			return &s->set[i];
	return NULL;
}

static void decode_set(const struct ldprof_shm_header *h, struct sets *all, struct set *s,
		       const char *exe, struct trace *t)
{
	if (s->forked) {
		/* Its first objects are its parent's, by the same indices. */
		struct set *p = find_set(all, s->parent_pid, s->first->version_ts);
		size_t n = p && p->ok ? p->map.cap : 0;
		n = n < s->inherited ? n : s->inherited;
		if (n) {
			s->map.to_trace = xcalloc(n, sizeof *s->map.to_trace);
			memcpy(s->map.to_trace, p->map.to_trace, n * sizeof *s->map.to_trace);
			s->map.cap = n;
		}
	}
	shm_decode_records(h, s->rec, s->nrec, exe, s->forked, t, &s->map, &s->run);
}

int shm_decode_top(const struct ldprof_shm_header *h, size_t size, const struct shm_expect *x,
		   struct trace *t, struct trace_run *r, struct errbuf *err)
{
	struct sets s;
	struct set *top;
	int ret = open_sets(h, size, x, &s, err);

	if (ret)
		return ret;
	r->exec_ts = h->exec_ts;
	r->shm_flags = 0;
	r->shim_attached = false;
	top = top_set(&s, x ? x->pid : h->pid);
	if (top && !(ret = check_set(h, top, x, err))) {
		decode_set(h, &s, top, t->program, t);
		for (size_t i = 0; i < top->run.nev; i++)
			trace_add_event(r, &top->run.ev[i]);
		r->shm_flags = top->first->flags & SHM_KNOWN_SHIM_FLAGS;
		r->shim_attached = true;
	}
	sets_free(&s);
	return ret;
}

static char **copy_argv(const struct ldprof_shm_header *h, const struct ldprof_chunk *c,
			size_t *argc)
{
	uint32_t n = c->argv_n < LDPROF_ARGV_MAX ? c->argv_n : LDPROF_ARGV_MAX;
	char **argv = xcalloc((size_t)n + 1, sizeof *argv);
	uint32_t off = c->argv_off, k = 0;

	/* Checked already; a process still running may change them since (never trusted). */
	for (const char *a; k < n && (a = shm_string_at(h, off)); k++) {
		argv[k] = xstrdup(a);
		off += (uint32_t)strlen(argv[k]) + 1;
	}
	*argc = k;
	return argv;
}

static void fill_proc(const struct ldprof_shm_header *h, struct set *s, struct shm_proc *p)
{
	const struct ldprof_chunk *c = s->first;

	*p = (struct shm_proc){.pid = c->pid, .ppid = c->ppid, .version_ts = c->version_ts};
	if (!s->ok) {
		p->flags = TRACE_SHM_CORRUPT | (c->flags & SHM_PROC_FORKED);
		return;
	}
	p->flags = c->flags | (s->truncated ? LDPROF_SHM_F_OVERFLOW : 0);
	p->forked_ts = s->forked_at;
	p->ev = s->run.ev;
	p->nev = s->run.nev;
	s->run.ev = NULL;
	if (c->flags & LDPROF_CHUNK_F_ARGV)
		p->argv = copy_argv(h, c, &p->argc);
	if ((p->have_cpu = c->flags & LDPROF_CHUNK_F_RUSAGE)) {
		p->utime_us = (double)c->utime_us;
		p->stime_us = (double)c->stime_us;
	}
}

/* Execs in time order, each one's forked children after it, by when they were seen. */
static int proc_cmp(const void *pa, const void *pb)
{
	const struct shm_proc *a = pa, *b = pb;
	bool fa = a->flags & SHM_PROC_FORKED, fb = b->flags & SHM_PROC_FORKED;

	if (a->version_ts != b->version_ts)
		return a->version_ts < b->version_ts ? -1 : 1;
	if (fa != fb)
		return fa ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return 0;
}

/* Forked children by when the shim saw them: a child's parent comes first. */
static int forked_cmp(const void *pa, const void *pb)
{
	const struct set *a = *(const struct set *const *)pa, *b = *(const struct set *const *)pb;

	return a->forked_at < b->forked_at ? -1 : a->forked_at > b->forked_at;
}

/*
 * The binary that ran for a path given to execve: for a script (#!), its
 * interpreter, as the kernel found it (at most 4 levels, as Linux allows);
 * NULL when it is the path itself. Read after the run, outside the
 * workload, so the shim need not.
 */
static char *interpreter_of(const char *path)
{
	char buf[256], *found = NULL;

	for (int depth = 0; depth < 4; depth++) {
		FILE *f = fopen(path, "re");
		size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		if (n < 3 || buf[0] != '#' || buf[1] != '!')
			break;
		char *p = buf + 2 + strspn(buf + 2, " \t");
		p[strcspn(p, " \t\n")] = '\0';
		if (!*p)
			break;
		free(found);
		path = found = xstrdup(p);
	}
	return found;
}

static void decode_all(const struct ldprof_shm_header *h, struct sets *s,
		       const struct shm_expect *x, struct trace *t)
{
	struct set *top = top_set(s, x ? x->pid : h->pid);
	struct set **forked = xcalloc(s->nset ? s->nset : 1, sizeof *forked);
	size_t nforked = 0;
	struct errbuf err;

	for (size_t i = 0; i < s->nset; i++) {
		struct set *e = &s->set[i];
		if (check_set(h, e, x, &err))
			continue;
		if (e->forked) {
			forked[nforked++] = e;
			continue;
		}
		const char *exe = e == top ? t->program : NULL;
		char *interp = NULL;
		if (!exe && e->first->exe_name != UINT32_MAX) {
			exe = shm_string_at(h, e->first->exe_name);
			if (exe && (interp = interpreter_of(exe)))
				exe = interp;
		}
		decode_set(h, s, e, exe, t);
		free(interp);
	}
	qsort(forked, nforked, sizeof *forked, forked_cmp);
	for (size_t i = 0; i < nforked; i++)
		decode_set(h, s, forked[i], NULL, t);
	free(forked);
}

int shm_decode_procs(const void *buf, size_t size, const struct shm_expect *x, struct trace *t,
		     struct shm_proc **out, size_t *n, uint64_t *lost_execs, struct errbuf *err)
{
	const struct ldprof_shm_header *h = buf;
	struct sets s;
	int ret;

	*out = NULL;
	*n = 0;
	*lost_execs = 0;
	if ((ret = open_sets(h, size, x, &s, err)))
		return ret;
	decode_all(h, &s, x, t);
	*out = xcalloc(s.nset ? s.nset : 1, sizeof **out);
	for (size_t i = 0; i < s.nset; i++)
		fill_proc(h, &s.set[i], &(*out)[i]);
	qsort(*out, s.nset, sizeof **out, proc_cmp);
	*n = s.nset;
	*lost_execs = h->lost_execs;
	sets_free(&s);
	return 0;
}

int shm_collect_procs(const struct shm_buf *s, struct trace *t, struct shm_proc **out, size_t *n,
		      uint64_t *lost_execs, struct errbuf *err)
{
	struct shm_expect x = {.start_ts = s->reset_ts, .end_ts = tsc_now(), .pid = s->hdr->pid};
	void *own = s->frozen ? NULL : shm_snapshot(s->hdr, s->size);
	const void *copy = s->frozen ? s->frozen : own;
	int r;

	if (!copy) {
		*out = NULL;
		*n = 0;
		*lost_execs = 0;
		return set_err(err, ENOMEM, "record buffer: no memory for its copy");
	}
	/* A copy: a process still running may write into the live buffer. */
	r = shm_decode_procs(copy, s->size, &x, t, out, n, lost_execs, err);
	shm_snapshot_free(own, s->size);
	return r;
}

void shm_procs_free(struct shm_proc *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].ev);
		for (size_t k = 0; p[i].argv && k < p[i].argc; k++)
			free(p[i].argv[k]);
		free(p[i].argv);
	}
	free(p);
}
