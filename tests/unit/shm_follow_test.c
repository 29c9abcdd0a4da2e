/*
 * Unit tests for the follow-mode record decoder (shm-procs.c): buffers
 * written as the shim writes them (record.c's chunk claiming, mirrored
 * here), several processes interleaved. Each process's chunks come back
 * alone; a full area is counted, never misread; a corrupt process is
 * dropped and flagged without touching the others, whatever bytes change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/shm.h"
#include "unit.h"

#define FSIZE 16384
#define CHUNK 256 /* 6 records a chunk: most processes here need several */

/* One simulated shim: a process's state, as record.c keeps it. */
struct fake {
	struct ldprof_shm_header *h;
	struct ldprof_chunk *first;
	uint32_t idx[LDPROF_MAX_CHUNKS];
	int32_t pid, ppid;
	uint64_t version_ts;
};

static struct ldprof_shm_header *fresh(void)
{
	struct ldprof_shm_header *h = calloc(1, FSIZE);

	shm_init_follow_header(h, FSIZE, CHUNK);
	h->pid = 7;
	h->exec_ts = 50;
	return h;
}

static uint32_t per_chunk(const struct ldprof_shm_header *h)
{
	return (h->chunk_size - (uint32_t)sizeof(struct ldprof_chunk)) / 32;
}

static struct ldprof_chunk *chunk_at(struct ldprof_shm_header *h, uint32_t i)
{
	return (struct ldprof_chunk *)((char *)h + h->chunks_off + (size_t)i * h->chunk_size);
}

static uint32_t claim(struct ldprof_shm_header *h)
{
	uint32_t i = h->chunks_used++;

	return i < h->chunks_cap ? i : UINT32_MAX;
}

static void head(struct fake *f, struct ldprof_chunk *c, uint32_t seq)
{
	c->pid = f->pid;
	c->ppid = f->ppid;
	c->seq = seq;
	c->version_ts = f->version_ts;
	if (!seq)
		c->exe_name = UINT32_MAX;
}

/* A process starts: 0, or -1 when the area is full (counted lost, as the shim does). */
static int start(struct fake *f, struct ldprof_shm_header *h, int32_t pid, int32_t ppid,
		 uint64_t vts, uint32_t flags)
{
	uint32_t i = claim(h);

	*f = (struct fake){.h = h, .pid = pid, .ppid = ppid, .version_ts = vts};
	if (i == UINT32_MAX) {
		if (flags & LDPROF_CHUNK_F_FORKED)
			h->lost_forks++;
		else
			h->lost_execs++;
		return -1;
	}
	f->first = chunk_at(h, i);
	head(f, f->first, 0);
	f->first->flags = flags;
	return 0;
}

static void put(struct fake *f, uint16_t type, uint16_t obj, uint32_t u32, uint64_t ts, uint64_t a,
		uint64_t b)
{
	uint32_t per = per_chunk(f->h), i = f->first->nrecords++, k = i / per;
	struct ldprof_chunk *c = f->first;

	if (k >= LDPROF_MAX_CHUNKS) {
		f->first->flags |= LDPROF_SHM_F_OVERFLOW;
		return;
	}
	if (k && !f->idx[k]) {
		uint32_t n = claim(f->h);
		if (n == UINT32_MAX) {
			f->first->flags |= LDPROF_SHM_F_OVERFLOW;
			return;
		}
		f->idx[k] = n + 1;
		head(f, chunk_at(f->h, n), k);
	}
	if (k)
		c = chunk_at(f->h, f->idx[k] - 1);
	((struct ldprof_record *)(c + 1))[i % per] = (struct ldprof_record){ts, type, obj, u32, a, b};
}

static uint32_t add_string(struct ldprof_shm_header *h, const char *s)
{
	uint32_t off = h->strings_used;

	strcpy((char *)h + h->strings_off + off, s);
	h->strings_used += (uint32_t)strlen(s) + 1;
	return off;
}

/* A dynamic exec's startup: VERSION, the executable, ld.so, libc and its constructor. */
static void startup(struct fake *f, uint64_t ts)
{
	put(f, LDPROF_REC_VERSION, LDPROF_NO_OBJ, 0, f->version_ts, 2, 0);
	put(f, LDPROF_REC_OBJOPEN, 0, add_string(f->h, ""), ts + 1, 0, 0);
	put(f, LDPROF_REC_OBJOPEN, 1, add_string(f->h, "/lib64/ld-linux-x86-64.so.2"), ts + 2, 0,
	    LDPROF_OBJ_LOADER);
	put(f, LDPROF_REC_OBJOPEN, 2, add_string(f->h, "/lib/libc.so.6"), ts + 3, 0,
	    LDPROF_OBJ_HAS_INIT | LDPROF_OBJ_INIT_TIMED);
	put(f, LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, 0, ts + 4, 0, 0);
	put(f, LDPROF_REC_INIT_BEGIN, 2, 0, ts + 5, 0, 0);
	put(f, LDPROF_REC_INIT_END, 2, 1, ts + 6, 0, 1);
	put(f, LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, ts + 7, 0, 0);
	put(f, LDPROF_REC_MAIN_ENTER, LDPROF_NO_OBJ, 0, ts + 8, 0, 0);
}

static void finish(struct fake *f, uint64_t ts, uint64_t utime)
{
	put(f, LDPROF_REC_EXIT_CALL, LDPROF_NO_OBJ, LDPROF_EXIT_EXIT, ts, 0, 0);
	f->first->utime_us = utime;
	f->first->stime_us = utime / 2;
	f->first->flags |= LDPROF_CHUNK_F_RUSAGE;
}

static void set_argv(struct fake *f, int argc, const char *const *argv)
{
	f->first->argv_off = f->h->strings_used;
	for (int k = 0; k < argc; k++)
		add_string(f->h, argv[k]);
	f->first->argv_n = f->first->argc = (uint32_t)argc;
	f->first->flags |= LDPROF_CHUNK_F_ARGV;
}

/*
 * The workload: the top (pid 7) execs a child (8), which execs a grandchild
 * (9); the top also forks 10, which never execs and exits after main. Their
 * claims interleave, as concurrent processes' do.
 */
static struct ldprof_shm_header *workload(void)
{
	struct ldprof_shm_header *h = fresh();
	struct fake top, child, grand, fork;
	static const char *const argv[] = {"sh", "-c", "exit"};

	start(&top, h, 7, 1, 100, 0);
	startup(&top, 100);
	start(&child, h, 8, 7, 200, 0);
	child.first->exe_name = add_string(h, "/bin/child");
	startup(&child, 200);
	set_argv(&child, 3, argv);
	start(&grand, h, 9, 8, 300, 0);
	startup(&grand, 300);
	start(&fork, h, 10, 7, 100, LDPROF_CHUNK_F_FORKED);
	put(&fork, LDPROF_REC_FORKED, LDPROF_NO_OBJ, 3, 100, 7, 400);
	put(&fork, LDPROF_REC_FINI_BEGIN, 2, 0, 410, 0, 0);
	put(&fork, LDPROF_REC_FINI_END, 2, 1, 420, 0, 1);
	finish(&fork, 430, 5);
	finish(&grand, 500, 40);
	finish(&child, 600, 60);
	finish(&top, 700, 80);
	return h;
}

static const struct shm_expect window = {.start_ts = 40, .end_ts = 1000, .pid = 7};

static const struct shm_proc *find(const struct shm_proc *p, size_t n, int32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return &p[i];
	return NULL;
}

static void test_procs(void)
{
	struct ldprof_shm_header *h = workload();
	struct trace t;
	struct shm_proc *p;
	size_t n;
	uint64_t lost = 99;
	struct errbuf err;

	trace_init(&t, 0, NULL);
	t.program = strdup("/bin/top");
	CHECK(shm_validate(h, FSIZE, &window, &err) == 0);
	CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == 0);
	CHECK(n == 4 && lost == 0);
	const struct shm_proc *top = find(p, n, 7), *child = find(p, n, 8), *grand = find(p, n, 9),
			      *fork = find(p, n, 10);
	CHECK(top && child && grand && fork);
	if (!top || !child || !grand || !fork)
		return;
	/* In order of their exec, the fork after the exec it came from. */
	CHECK(p[0].pid == 7 && p[1].pid == 10 && p[2].pid == 8 && p[3].pid == 9);
	CHECK(top->nev == 10 && child->nev == 10 && grand->nev == 10);
	CHECK(child->ppid == 7 && grand->ppid == 8 && fork->ppid == 7);
	CHECK(!(top->flags & (SHM_PROC_FORKED | TRACE_SHM_CORRUPT)));
	CHECK(child->version_ts == 200 && child->ev[0].type == LDPROF_REC_VERSION);
	CHECK(grand->ev[9].type == LDPROF_REC_EXIT_CALL && grand->ev[9].ts == 500);
	CHECK(top->have_cpu && top->utime_us == 80 && top->stime_us == 40);
	CHECK(child->argc == 3 && !strcmp(child->argv[1], "-c") && !child->argv[3]);
	CHECK(!top->argv && top->argc == 0);
	/* Executables: the top's by the program's name, a child's by its own. */
	CHECK(!strcmp(t.obj[top->ev[1].obj].path, "/bin/top"));
	CHECK(!strcmp(t.obj[child->ev[1].obj].path, "/bin/child"));
	CHECK(t.obj[child->ev[1].obj].role == ROLE_EXECUTABLE);
	CHECK(child->ev[3].obj == top->ev[3].obj); /* one libc for the whole tree */
	/* The fork: no marker event; its object 2 is the top's libc. */
	CHECK(fork->flags & SHM_PROC_FORKED);
	CHECK(fork->nev == 3 && fork->ev[0].type == LDPROF_REC_FINI_BEGIN);
	CHECK(fork->ev[0].obj == top->ev[3].obj);
	for (size_t i = 0; i < n; i++) {
		struct trace_run v = {.exec_ts = p[i].version_ts, .reap_ts = 1000, .ev = p[i].ev,
				      .nev = p[i].nev};
		CHECK(trace_run_events_ok(&t, &v));
	}
	/* The run itself: the top's first exec, as without follow mode. */
	struct trace_run r = {.reap_ts = 1000};
	CHECK(shm_decode(h, FSIZE, &window, &t, &r, &err) == 0);
	CHECK(r.shim_attached && r.exec_ts == 50 && r.nev == 10);
	CHECK(r.ev[9].ts == 700);
	free(r.ev);
	shm_procs_free(p, n);
	trace_free(&t);
	free(h);
}

/*
 * An exec chain: the top process (pid 7) execs again, and pid 9, which an
 * earlier process had, is a new process later: every image by (pid,
 * version_ts), in time order, the run's records the top's first image.
 */
static void test_exec_chain(void)
{
	struct ldprof_shm_header *h = fresh();
	struct fake a, b, c, d;
	struct trace t;
	struct shm_proc *p;
	size_t n;
	uint64_t lost;
	struct errbuf err;

	trace_init(&t, 0, NULL);
	t.program = strdup("/bin/top");
	start(&a, h, 9, 7, 90, 0);
	startup(&a, 90);
	start(&b, h, 7, 1, 100, 0);
	startup(&b, 100);
	finish(&a, 150, 1);
	start(&c, h, 7, 1, 300, 0); /* the top's second image: no exit call in the first */
	c.first->exe_name = add_string(h, "/bin/second");
	startup(&c, 300);
	start(&d, h, 9, 7, 400, 0);
	startup(&d, 400);
	finish(&d, 450, 2);
	finish(&c, 500, 3);
	CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == 0 && n == 4);
	CHECK(p[0].pid == 9 && p[0].version_ts == 90 && p[1].pid == 7 && p[1].version_ts == 100);
	CHECK(p[2].pid == 7 && p[2].version_ts == 300 && p[3].pid == 9 && p[3].version_ts == 400);
	CHECK(p[1].nev == 9 && !p[1].have_cpu && p[2].nev == 10 && p[2].utime_us == 3);
	CHECK(!strcmp(t.obj[p[1].ev[1].obj].path, "/bin/top"));
	CHECK(!strcmp(t.obj[p[2].ev[1].obj].path, "/bin/second"));
	struct trace_run r = {.reap_ts = 1000};
	CHECK(shm_decode(h, FSIZE, &window, &t, &r, &err) == 0 && r.nev == 9 && r.ev[0].ts == 100);
	free(r.ev);
	shm_procs_free(p, n);
	trace_free(&t);
	free(h);
}

/* Decode; the process with this pid, NULL when absent. */
static struct shm_proc *decode_one(struct ldprof_shm_header *h, int32_t pid, struct trace *t,
				   struct shm_proc **all, size_t *n, uint64_t *lost)
{
	struct errbuf err;

	if (shm_decode_procs(h, FSIZE, &window, t, all, n, lost, &err))
		return NULL;
	return (struct shm_proc *)find(*all, *n, pid);
}

static void test_lost(void)
{
	struct ldprof_shm_header *h = fresh();
	struct fake f[64];
	struct trace t;
	struct shm_proc *p;
	size_t n, started = 0;
	uint64_t lost;
	struct errbuf err;

	trace_init(&t, 0, NULL);
	for (int32_t i = 0; i < 64; i++)
		if (!start(&f[started], h, 100 + i, 7, 100 + (uint64_t)i, 0)) {
			put(&f[started], LDPROF_REC_VERSION, LDPROF_NO_OBJ, 0, 100 + (uint64_t)i, 2,
			    0);
			started++;
		}
	CHECK(started == h->chunks_cap && h->lost_execs == 64 - started);
	CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == 0);
	CHECK(n == started && lost == 64 - started);
	shm_procs_free(p, n);
	/* A process whose next chunk found the area full: its records end there, flagged. */
	h = (free(h), fresh());
	struct fake big;
	for (uint32_t k = 0; k < h->chunks_cap - 1; k++) {
		struct fake other;
		start(&other, h, 200 + (int32_t)k, 7, 150, 0);
		put(&other, LDPROF_REC_VERSION, LDPROF_NO_OBJ, 0, 150, 2, 0);
	}
	start(&big, h, 300, 7, 160, 0);
	startup(&big, 160); /* 9 records: the second chunk is not there */
	struct shm_proc *b = decode_one(h, 300, &t, &p, &n, &lost);
	CHECK(b && !(b->flags & TRACE_SHM_CORRUPT) && (b->flags & LDPROF_SHM_F_OVERFLOW));
	CHECK(b && b->nev == per_chunk(h));
	shm_procs_free(p, n);
	/* More lost processes than failed claims: a stray write, not a count. */
	h->lost_execs = 5;
	CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == -EBADMSG);
	CHECK(p == NULL && n == 0 && strstr(err.msg, "lost"));
	trace_free(&t);
	free(h);
}

/* Spoil process 8's data with how; it alone is dropped, the others decode as before. */
static void expect_isolated(void (*how)(struct ldprof_shm_header *), const char *what)
{
	struct ldprof_shm_header *h = workload();
	struct trace t;
	struct shm_proc *p;
	size_t n;
	uint64_t lost;
	struct errbuf err;

	trace_init(&t, 0, NULL);
	how(h);
	CHECK(shm_validate(h, FSIZE, &window, &err) == -EBADMSG);
	if (!strstr(err.msg, what)) {
		fprintf(stderr, "expected '%s' in '%s'\n", what, err.msg);
		CHECK(0);
	}
	CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == 0);
	const struct shm_proc *bad = find(p, n, 8);
	CHECK(bad && (bad->flags & TRACE_SHM_CORRUPT) && !bad->nev && !bad->argv && !bad->have_cpu);
	/* The others as they were; a chunk relabelled to pid 11 is a corrupt set of its own. */
	for (size_t i = 0; i < n; i++)
		if (p[i].pid == 11)
			CHECK(p[i].flags & TRACE_SHM_CORRUPT);
		else if (p[i].pid != 8)
			CHECK(!(p[i].flags & TRACE_SHM_CORRUPT) && p[i].nev == (p[i].pid == 10 ? 3 : 10));
	CHECK(n == 4 + (find(p, n, 11) != NULL));
	shm_procs_free(p, n);
	trace_free(&t);
	free(h);
}

static struct ldprof_chunk *chunk_of(struct ldprof_shm_header *h, int32_t pid, uint32_t seq)
{
	for (uint32_t i = 0; i < h->chunks_used && i < h->chunks_cap; i++)
		if (chunk_at(h, i)->pid == pid && chunk_at(h, i)->seq == seq)
			return chunk_at(h, i);
	return NULL;
}

static void bad_type(struct ldprof_shm_header *h)
{
	((struct ldprof_record *)(chunk_of(h, 8, 1) + 1))[0].type = 77;
}

static void bad_order(struct ldprof_shm_header *h)
{
	((struct ldprof_record *)(chunk_of(h, 8, 1) + 1))[1].ts = 201;
}

static void dup_seq(struct ldprof_shm_header *h)
{
	chunk_of(h, 8, 1)->seq = 0;
}

static void missing(struct ldprof_shm_header *h)
{
	chunk_of(h, 8, 1)->pid = 11; /* now another process's stray chunk */
}

static void later_not_blank(struct ldprof_shm_header *h)
{
	chunk_of(h, 8, 1)->flags = LDPROF_CHUNK_F_RUSAGE;
}

static void bad_argv(struct ldprof_shm_header *h)
{
	chunk_of(h, 8, 0)->argv_n = 4; /* more copied than argc */
}

static void exe_outside(struct ldprof_shm_header *h)
{
	chunk_of(h, 8, 0)->exe_name = h->strings_cap + 5;
}

static void bad_version_ts(struct ldprof_shm_header *h)
{
	((struct ldprof_record *)(chunk_of(h, 8, 0) + 1))[0].ts = 199;
}

/* The top's own chunks corrupt: the run keeps its window, none of its records. */
static void test_top_corrupt(void)
{
	struct ldprof_shm_header *h = workload();
	struct trace t;
	struct trace_run r = {.reap_ts = 1000};
	struct errbuf err;

	trace_init(&t, 0, NULL);
	((struct ldprof_record *)(chunk_of(h, 7, 0) + 1))[2].type = 99;
	CHECK(shm_decode(h, FSIZE, &window, &t, &r, &err) == -EBADMSG);
	CHECK(r.nev == 0 && !r.shim_attached && r.shm_flags == TRACE_SHM_CORRUPT && r.exec_ts == 50);
	/* A static top: no chunks of its pid, and the run is simply without records. */
	h = (free(h), workload());
	h->pid = 77;
	struct shm_expect other = window;
	other.pid = 77;
	r = (struct trace_run){.reap_ts = 1000};
	CHECK(shm_decode(h, FSIZE, &other, &t, &r, &err) == 0);
	CHECK(r.nev == 0 && !r.shim_attached && r.shm_flags == 0 && r.exec_ts == 50);
	trace_free(&t);
	free(h);
}

static void test_isolation(void)
{
	expect_isolated(bad_type, "unknown record type");
	expect_isolated(bad_order, "earlier than the record before");
	expect_isolated(dup_seq, "two chunks with one sequence number");
	expect_isolated(missing, "a chunk is missing");
	expect_isolated(later_not_blank, "not blank");
	expect_isolated(bad_argv, "impossible argv");
	expect_isolated(exe_outside, "outside the string area");
	expect_isolated(bad_version_ts, "outside the run");
}

/* Blank chunks (claimed, never written: a thread lost the race) are skipped. */
static void test_blank_and_header(void)
{
	struct ldprof_shm_header *h = workload();
	struct trace t;
	struct shm_proc *p;
	size_t n;
	uint64_t lost;
	struct errbuf err;

	trace_init(&t, 0, NULL);
	h->chunks_used += 2;
	CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == 0 && n == 4);
	shm_procs_free(p, n);
	/* Not a follow-mode buffer; one with chunk fields that does not say follow. */
	struct ldprof_shm_header *plain = calloc(1, FSIZE);
	shm_init_header(plain, FSIZE);
	CHECK(shm_decode_procs(plain, FSIZE, NULL, &t, &p, &n, &lost, &err) == -EPROTO);
	plain->chunk_size = 256;
	CHECK(shm_validate(plain, FSIZE, NULL, &err) == -EPROTO);
	h->options &= ~(uint32_t)LDPROF_OPT_FOLLOW;
	CHECK(shm_validate(h, FSIZE, NULL, &err) == -EPROTO);
	h->options |= LDPROF_OPT_FOLLOW;
	h->flags = LDPROF_SHM_F_OVERFLOW; /* header flags belong in chunks */
	CHECK(shm_decode_procs(h, FSIZE, NULL, &t, &p, &n, &lost, &err) == -EBADMSG);
	trace_free(&t);
	free(plain);
	free(h);
}

/* Random bytes in the chunk area: decoding never crashes, and says so. */
static void test_fuzz(void)
{
	struct errbuf err;

	srand(13);
	for (int i = 0; i < 300; i++) {
		struct ldprof_shm_header *h = fresh();
		struct trace t;
		struct shm_proc *p;
		size_t n;
		uint64_t lost;
		unsigned char *b = (unsigned char *)h;
		for (size_t k = h->chunks_off; k < FSIZE; k++)
			b[k] = (unsigned char)(rand() % 4 ? 0 : rand());
		h->chunks_used = (uint32_t)rand() % (h->chunks_cap * 2);
		trace_init(&t, 0, NULL);
		CHECK(shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err) == 0);
		shm_procs_free(p, n);
		trace_free(&t);
		free(h);
	}
}

static bool same_events(const struct shm_proc *a, const struct shm_proc *b)
{
	if (a->nev != b->nev)
		return false;
	for (size_t i = 0; i < a->nev; i++)
		if (a->ev[i].ts != b->ev[i].ts || a->ev[i].type != b->ev[i].type ||
		    a->ev[i].u32 != b->ev[i].u32 || a->ev[i].a != b->ev[i].a)
			return false;
	return true;
}

/* Whether byte at of the buffer lies in one of pid's chunks (by the original's headers). */
static bool in_chunks_of(struct ldprof_shm_header *h, const unsigned char *orig, int32_t pid,
			 size_t at)
{
	const struct ldprof_chunk *c;

	if (at < h->chunks_off)
		return false;
	c = (const struct ldprof_chunk *)(orig + h->chunks_off +
					   (at - h->chunks_off) / h->chunk_size * h->chunk_size);
	return c->pid == pid;
}

/*
 * A valid workload with a few random bytes changed anywhere it was written:
 * never a crash; what is accepted can be believed; and a process none of
 * whose chunks changed (nor the header or names) decodes exactly as before.
 */
static void test_mutations(void)
{
	struct ldprof_shm_header *base = workload();
	struct trace t0;
	struct shm_proc *want;
	size_t nwant, accepted = 0, untouched = 0;
	uint64_t lost;
	struct errbuf err;

	trace_init(&t0, 0, NULL);
	CHECK(shm_decode_procs(base, FSIZE, &window, &t0, &want, &nwant, &lost, &err) == 0);
	size_t end = base->chunks_off + (size_t)base->chunks_used * base->chunk_size;
	srand(17);
	for (int i = 0; i < 2000; i++) {
		struct ldprof_shm_header *h = malloc(FSIZE);
		struct trace t;
		struct shm_proc *p;
		size_t n, at[4];
		int nat = rand() % 4 + 1;
		memcpy(h, base, FSIZE);
		for (int k = 0; k < nat; k++) {
			/* Mostly in the chunks: that is where processes differ. */
			at[k] = rand() % 8 ? base->chunks_off + (size_t)rand() % (end - base->chunks_off)
					   : (size_t)rand() % end;
			((unsigned char *)h)[at[k]] ^= (unsigned char)(rand() % 255 + 1);
		}
		trace_init(&t, 0, NULL);
		int ret = shm_decode_procs(h, FSIZE, &window, &t, &p, &n, &lost, &err);
		CHECK(ret == 0 || ret == -EBADMSG || ret == -EPROTO);
		for (size_t j = 0; !ret && j < n; j++) {
			struct trace_run v = {.exec_ts = p[j].version_ts, .reap_ts = 1000,
					      .ev = p[j].ev, .nev = p[j].nev};
			CHECK(trace_run_events_ok(&t, &v));
			accepted += !(p[j].flags & TRACE_SHM_CORRUPT);
			const struct shm_proc *w = find(want, nwant, p[j].pid);
			bool touched = false;
			for (int k = 0; k < nat; k++)
				touched = touched || at[k] < base->chunks_off ||
					  in_chunks_of(h, (unsigned char *)base, p[j].pid, at[k]);
			/*
			 * Forging another's identity in a chunk of one's own can
			 * drop the other's set, never mix it: it is intact or flagged.
			 */
			if (w && !touched && p[j].version_ts == w->version_ts) {
				bool dropped = p[j].flags & TRACE_SHM_CORRUPT;
				untouched += !dropped;
				CHECK(dropped || (same_events(&p[j], w) && p[j].flags == w->flags));
			}
		}
		shm_procs_free(p, n);
		trace_free(&t);
		free(h);
	}
	CHECK(accepted > 0 && untouched > 1000);
	shm_procs_free(want, nwant);
	trace_free(&t0);
	free(base);
}

/*
 * A process that keeps writing into the live buffer while it is decoded
 * (a child of the program that outlived the reaps, or one outside the
 * tree that found the buffer's path): here, one that flips the top's CPU
 * time between a true value and an impossible one. Each decode must see
 * one or the other, checked: the true value, or the process flagged
 * corrupt; never the impossible value, which a decoder that checked one
 * reading and used another would report.
 */
static void test_live_writer(void)
{
	struct ldprof_shm_header *h0 = workload();
	void *live = mmap(NULL, FSIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct shm_buf sb = {.fd = -1, .size = FSIZE, .hdr = live, .reset_ts = 40};
	struct timespec t0, now;
	size_t good = 0, flagged = 0, bad = 0;
	pid_t writer;

	CHECK(live != MAP_FAILED);
	if (live == MAP_FAILED)
		return;
	memcpy(live, h0, FSIZE);
	free(h0);
	volatile uint64_t *utime = &chunk_of(live, 7, 0)->utime_us;
	if ((writer = fork()) == 0)
		for (uint64_t k = 0;; k++)
			*utime = k & 1 ? 1ull << 50 : 80;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct trace t;
		struct shm_proc *p;
		size_t n;
		uint64_t lost;
		struct errbuf err;
		trace_init(&t, 0, NULL);
		if (!shm_collect_procs(&sb, &t, &p, &n, &lost, &err)) {
			const struct shm_proc *top = find(p, n, 7);
			if (top && (top->flags & TRACE_SHM_CORRUPT))
				flagged++;
			else if (top && top->have_cpu && top->utime_us == 80)
				good++;
			else
				bad++;
		}
		shm_procs_free(p, n);
		trace_free(&t);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!bad && (now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) < 1500000000L);
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	CHECK(bad == 0);
	CHECK(good + flagged > 0);
	munmap(live, FSIZE);
}

int main(void)
{
	test_procs();
	test_exec_chain();
	test_lost();
	test_isolation();
	test_top_corrupt();
	test_blank_and_header();
	test_fuzz();
	test_mutations();
	test_live_writer();
	return unit_done("shm_follow_test");
}
