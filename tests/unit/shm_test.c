/*
 * Unit tests for the record decoder (shm.c, shm-validate.c): a well-formed
 * buffer decodes to the events and objects written; malformed or corrupt
 * ones are refused with the reason, never read out of range (the ASan
 * build checks that), and leave a run flagged corrupt with no events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/shm.h"
#include "unit.h"

#define SIZE 8192

static struct ldprof_shm_header *fresh(void)
{
	struct ldprof_shm_header *h = calloc(1, SIZE);

	shm_init_header(h, SIZE);
	h->claimed = 1;
	return h;
}

static uint32_t add_string(struct ldprof_shm_header *h, const char *s)
{
	uint32_t off = h->strings_used;

	strcpy((char *)h + h->strings_off + off, s);
	h->strings_used += (uint32_t)strlen(s) + 1;
	return off;
}

static struct ldprof_record *add(struct ldprof_shm_header *h, uint16_t type, uint16_t obj,
				 uint32_t u32, uint64_t ts, uint64_t b)
{
	struct ldprof_record *r = (struct ldprof_record *)((char *)h + h->records_off);

	r[h->nrecords] = (struct ldprof_record){ts, type, obj, u32, type == LDPROF_REC_VERSION, b};
	return &r[h->nrecords++];
}

/* A decoded, valid start: VERSION, the executable, ld.so. */
static struct ldprof_shm_header *started(void)
{
	struct ldprof_shm_header *h = fresh();

	h->exec_ts = 50;
	add(h, LDPROF_REC_VERSION, LDPROF_NO_OBJ, 0, 100, 0);
	add(h, LDPROF_REC_OBJOPEN, 0, add_string(h, ""), 110, 0);
	add(h, LDPROF_REC_OBJOPEN, 1, add_string(h, "/lib64/ld-linux-x86-64.so.2"), 120,
	    LDPROF_OBJ_LOADER);
	return h;
}

static void test_roundtrip(void)
{
	struct ldprof_shm_header *h = started();
	struct trace t;
	struct trace_run r = {0};
	struct errbuf err;

	trace_init(&t, 1, (char *[]){"prog", NULL});
	t.program = strdup("/bin/prog");
	add(h, LDPROF_REC_OBJOPEN, 2, add_string(h, "/lib/libc.so.6"), 130, LDPROF_OBJ_HAS_INIT);
	add(h, LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, 0, 140, 0);
	add(h, LDPROF_REC_INIT_BEGIN, 2, 0, 150, 0);
	add(h, LDPROF_REC_INIT_END, 2, 1, 160, 0);
	add(h, LDPROF_REC_OBJOPEN, 3, add_string(h, "/usr/lib/plugin.so"), 180, 0);
	CHECK(shm_validate(h, SIZE, NULL, &err) == 0);
	CHECK(shm_decode(h, SIZE, NULL, &t, &r, &err) == 0);
	CHECK(r.exec_ts == 50 && r.shim_attached);
	CHECK(r.nev == 8);
	CHECK(t.nobj == 4);
	CHECK(!strcmp(t.obj[0].path, "/bin/prog") && t.obj[0].role == ROLE_EXECUTABLE);
	CHECK(t.obj[1].role == ROLE_LOADER);
	CHECK(!strcmp(t.obj[2].path, "/lib/libc.so.6") && t.obj[2].role == ROLE_LIBRARY);
	CHECK(t.obj[2].untimed_seen); /* has constructors, not trampolined */
	CHECK(r.ev[6].obj == 2 && r.ev[6].type == LDPROF_REC_INIT_END);
	CHECK(t.obj[3].dlopened && !t.obj[2].dlopened);
	free(r.ev);
	trace_free(&t);
	free(h);
}

/* shm_decode on h: -EBADMSG, nothing kept, the run flagged corrupt. */
static void expect_corrupt(struct ldprof_shm_header *h, const struct shm_expect *x,
			   const char *why)
{
	struct trace t;
	struct trace_run r = {0};
	struct errbuf err;

	trace_init(&t, 0, NULL);
	t.program = strdup("p");
	CHECK(shm_decode(h, SIZE, x, &t, &r, &err) == -EBADMSG);
	CHECK(r.nev == 0 && !r.shim_attached && r.shm_flags == TRACE_SHM_CORRUPT);
	if (!strstr(err.msg, why)) {
		fprintf(stderr, "expected '%s' in '%s'\n", why, err.msg);
		CHECK(0);
	}
	trace_free(&t);
	free(h);
}

static void test_corrupt_records(void)
{
	struct ldprof_shm_header *h;
	struct shm_expect x = {.start_ts = 40, .end_ts = 1000, .pid = 7};

	add(h = started(), 999, 2, 0, 170, 0);
	expect_corrupt(h, NULL, "unknown record type");
	add(h = started(), LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, 0, 115, 0);
	expect_corrupt(h, NULL, "earlier than the record before");
	h = started();
	h->pid = 7;
	add(h, LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 5000, 0);
	expect_corrupt(h, &x, "outside the run");
	h = started();
	h->pid = 8;
	expect_corrupt(h, &x, "not the launched process");
	add(h = started(), LDPROF_REC_INIT_BEGIN, 40000, 0, 130, 0);
	expect_corrupt(h, NULL, "never opened");
	add(h = started(), LDPROF_REC_OBJOPEN, 2, UINT32_MAX - 1, 130, 0);
	expect_corrupt(h, NULL, "outside the string area");
	add(h = started(), LDPROF_REC_OBJOPEN, 5, 0, 130, 0);
	expect_corrupt(h, NULL, "out of sequence");
	h = started();
	add(h, LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 130, 0);
	add(h, LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 140, 0);
	expect_corrupt(h, NULL, "repeated milestone");
	add(h = started(), LDPROF_REC_INIT_END, 1, 2, 130, 1000);
	expect_corrupt(h, NULL, "impossible function count or duration");
	add(h = started(), LDPROF_REC_EXIT_CALL, LDPROF_NO_OBJ, 9, 130, 0);
	expect_corrupt(h, NULL, "exit call");
	add(h = started(), LDPROF_REC_CPU, 1, 0, 130, 0);
	expect_corrupt(h, NULL, "impossible CPU time");
	add(h = started(), LDPROF_REC_CPU, LDPROF_NO_OBJ, 7, 130, 0);
	expect_corrupt(h, NULL, "impossible CPU time");
	h = fresh();
	add(h, LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 130, 0);
	expect_corrupt(h, NULL, "not VERSION");
	h = started();
	h->exec_errno = -1515870811;
	expect_corrupt(h, NULL, "exec error");
	h = started();
	h->claimed = 0xa5a5a5a5;
	expect_corrupt(h, NULL, "impossible claim");
}

static void test_malformed(void)
{
	struct ldprof_shm_header *h = fresh();
	struct trace t;
	struct trace_run r = {0};
	struct shm_expect x = {.start_ts = 40, .end_ts = 1000, .pid = 0};
	struct errbuf err;

	trace_init(&t, 0, NULL);
	t.program = strdup("p");
	memcpy(h->magic, "XXXXXXXX", 8);
	h->exec_ts = 0xa5a5a5a5a5a5a5a5ull;
	CHECK(shm_decode(h, SIZE, &x, &t, &r, &err) == -EPROTO);
	CHECK(strstr(err.msg, "bad header") != NULL);
	CHECK(r.shm_flags == TRACE_SHM_CORRUPT && r.exec_ts == 40); /* the window's, not garbage */
	h = (free(h), fresh());
	h->version = 99;
	CHECK(shm_decode(h, SIZE, NULL, &t, &r, &err) == -EPROTO);
	h->version = LDPROF_SHM_VERSION;
	h->records_cap = 1u << 30; /* records beyond the buffer */
	CHECK(shm_decode(h, SIZE, NULL, &t, &r, &err) == -EPROTO);
	h = (free(h), fresh());
	CHECK(shm_decode(h, 64, NULL, &t, &r, &err) == -EPROTO); /* shorter than a header */
	CHECK(shm_validate(NULL, 0, NULL, &err) == -EPROTO);
	/* More records reserved than fit: bounded, and flagged as overflow. */
	h = (free(h), started());
	while (h->nrecords < h->records_cap)
		add(h, LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, 1, 200 + h->nrecords, 0);
	h->nrecords += 5;
	h->flags |= LDPROF_SHM_F_OVERFLOW; /* as the shim sets it */
	r = (struct trace_run){0};
	CHECK(shm_decode(h, SIZE, NULL, &t, &r, &err) == 0);
	CHECK(r.shm_flags & LDPROF_SHM_F_OVERFLOW);
	CHECK(r.nev == h->records_cap);
	free(r.ev);
	h->flags = 0; /* more reserved than fit, and the shim did not say so */
	CHECK(shm_validate(h, SIZE, NULL, &err) == -EBADMSG);
	trace_free(&t);
	free(h);
}

static void test_exec_errno(void)
{
	struct ldprof_shm_header *h = fresh();

	h->claimed = 0;
	h->exec_errno = ENOENT;
	CHECK(shm_exec_errno(h, SIZE, 127 << 8) == ENOENT);
	CHECK(shm_exec_errno(h, SIZE, 0) == 0); /* exited 0: the program ran */
	h->exec_errno = -1515870811;
	CHECK(shm_exec_errno(h, SIZE, 127 << 8) == 0);
	h->exec_errno = ENOENT;
	h->claimed = 1; /* a shim ran: execve succeeded */
	CHECK(shm_exec_errno(h, SIZE, 127 << 8) == 0);
	memset(h, 0xa5, SIZE);
	CHECK(shm_exec_errno(h, SIZE, 127 << 8) == 0);
	free(h);
}

/* Random bytes after a valid header: decoding never crashes. */
static void test_fuzz(void)
{
	struct trace t;
	struct errbuf err;

	srand(7);
	for (int i = 0; i < 300; i++) {
		struct ldprof_shm_header *h = fresh();
		struct trace_run r = {0};
		unsigned char *p = (unsigned char *)h;
		for (size_t k = sizeof *h; k < SIZE; k++)
			p[k] = (unsigned char)rand();
		h->nrecords = (uint32_t)rand() % (h->records_cap * 2);
		trace_init(&t, 0, NULL);
		t.program = strdup("p");
		int ret = shm_decode(h, SIZE, NULL, &t, &r, &err);
		CHECK(ret == 0 || ret == -EBADMSG);
		free(r.ev);
		trace_free(&t);
		free(h);
	}
}

/*
 * A valid buffer with a few random bytes changed, as a stray write would:
 * whatever the decoder accepts, the analysis can believe.
 */
static void test_mutations(void)
{
	struct errbuf err;
	struct shm_expect x = {.start_ts = 40, .end_ts = 1000, .pid = 0};
	size_t accepted = 0;

	srand(11);
	for (int i = 0; i < 2000; i++) {
		struct ldprof_shm_header *h = started();
		struct trace t;
		struct trace_run r = {0};
		add(h, LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, 0, 140, 0);
		add(h, LDPROF_REC_INIT_BEGIN, 0, 0, 150, 0);
		add(h, LDPROF_REC_INIT_END, 0, 1, 160, 0);
		add(h, LDPROF_REC_PREINIT, LDPROF_NO_OBJ, 0, 170, 0);
		add(h, LDPROF_REC_EXIT_CALL, LDPROF_NO_OBJ, LDPROF_EXIT_EXIT, 180, 0);
		size_t end = h->records_off + h->nrecords * sizeof(struct ldprof_record);
		for (int k = rand() % 4; k >= 0; k--)
			((unsigned char *)h)[(size_t)rand() % end] = (unsigned char)rand();
		trace_init(&t, 0, NULL);
		r.reap_ts = 1000;
		int ret = shm_decode(h, SIZE, &x, &t, &r, &err);
		CHECK(ret == 0 || ret == -EBADMSG || ret == -EPROTO);
		if (ret == 0) {
			accepted++;
			CHECK(trace_run_events_ok(&t, &r));
		}
		free(r.ev);
		trace_free(&t);
		free(h);
	}
	CHECK(accepted > 0 && accepted < 2000); /* changes in unchecked bytes pass */
}

/*
 * A run's CPU records (three starts of a run, decoded): the one that
 * counts is the first after main's end, else none; the start's (its a in
 * *start, else 0) the one right after the first LA_ACT_CONSISTENT.
 */
static size_t cpu_records_of(const uint16_t *types, const uint32_t *u32, size_t n, uint64_t *a,
			     uint64_t *start)
{
	struct ldprof_shm_header *h = started();
	struct trace t;
	struct trace_run r = {0};
	struct errbuf err;
	size_t k;

	trace_init(&t, 1, (char *[]){"prog", NULL});
	t.program = strdup("/bin/prog");
	for (size_t i = 0; i < n; i++)
		add(h, types[i], LDPROF_NO_OBJ, u32[i], 130 + 10 * i, 0)->a = 100 * (i + 1);
	CHECK(shm_validate(h, SIZE, NULL, &err) == 0);
	CHECK(shm_decode(h, SIZE, NULL, &t, &r, &err) == 0);
	CHECK(trace_run_events_ok(&t, &r));
	k = trace_run_start_cpu_index(&r);
	*start = k < r.nev ? r.ev[k].a : 0;
	k = trace_run_cpu_index(&r);
	*a = k < r.nev ? r.ev[k].a : 0;
	CHECK(k == r.nev || r.ev[k].obj == TRACE_NO_OBJ);
	k = k < r.nev ? k : SIZE_MAX;
	free(r.ev);
	trace_free(&t);
	free(h);
	return k;
}

static size_t cpu_record_of(const uint16_t *types, const uint32_t *u32, size_t n, uint64_t *a)
{
	uint64_t start;
	size_t k = cpu_records_of(types, u32, n, a, &start);

	CHECK(start == 0);
	return k;
}

static void test_cpu_records(void)
{
	enum { ACT = LDPROF_REC_ACTIVITY, PRE = LDPROF_REC_PREINIT, CPU = LDPROF_REC_CPU };
	uint64_t a, start;
	/* The start's record right after its LA_ACT_CONSISTENT, the end's after exit. */
	const uint16_t both[] = {ACT, CPU, PRE, LDPROF_REC_EXIT_CALL, CPU};
	const uint32_t both_u[] = {0, 0, 0, LDPROF_EXIT_EXIT, 0};
	cpu_records_of(both, both_u, ARRAY_SIZE(both), &a, &start);
	CHECK(a == 500 && start == 200);
	/* Only the end's: no start (a trace of record format 4). */
	const uint16_t end[] = {ACT, PRE, LDPROF_REC_EXIT_CALL, CPU};
	const uint32_t end_u[] = {0, 0, LDPROF_EXIT_EXIT, 0};
	cpu_records_of(end, end_u, ARRAY_SIZE(end), &a, &start);
	CHECK(a == 400 && start == 0);
	/* A dlclose in main, its CPU record, then exit: the exit's. */
	const uint16_t closed[] = {ACT, PRE, ACT, CPU, LDPROF_REC_EXIT_CALL, CPU};
	const uint32_t closed_u[] = {0, 0, 2, 0, LDPROF_EXIT_EXIT, 0};
	cpu_record_of(closed, closed_u, ARRAY_SIZE(closed), &a);
	CHECK(a == 600);
	/* exit from a library: _dl_fini's LA_ACT_DELETE, the last, and its record. */
	const uint16_t lib[] = {ACT, PRE, ACT, CPU, ACT, CPU};
	const uint32_t lib_u[] = {0, 0, 2, 0, 2, 0};
	cpu_record_of(lib, lib_u, ARRAY_SIZE(lib), &a);
	CHECK(a == 600);
	/* The shim's few spent on dlcloses in main: _dl_fini's has none, nor the run. */
	const uint16_t spent[] = {ACT, PRE, ACT, CPU, ACT};
	const uint32_t spent_u[] = {0, 0, 2, 0, 2};
	CHECK(cpu_record_of(spent, spent_u, ARRAY_SIZE(spent), &a) == SIZE_MAX && a == 0);
}

int main(void)
{
	test_roundtrip();
	test_cpu_records();
	test_corrupt_records();
	test_malformed();
	test_exec_errno();
	test_fuzz();
	test_mutations();
	return unit_done("shm_test");
}
