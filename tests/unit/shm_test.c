/*
 * Unit tests for the record decoder (shm.c): a well-formed buffer decodes to
 * the events and objects written; malformed ones are refused or bounded,
 * never read out of range (the ASan build checks that).
 */
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

static void add(struct ldprof_shm_header *h, uint16_t type, uint16_t obj, uint32_t u32, uint64_t ts,
		uint64_t b)
{
	struct ldprof_record *r = (struct ldprof_record *)((char *)h + h->records_off);

	r[h->nrecords++] = (struct ldprof_record){ts, type, obj, u32, 0, b};
}

static void test_roundtrip(void)
{
	struct ldprof_shm_header *h = fresh();
	struct trace t;
	struct trace_run r = {0};
	struct errbuf err;

	trace_init(&t, 1, (char *[]){"prog", NULL});
	t.program = strdup("/bin/prog");
	h->exec_ts = 50;
	add(h, LDPROF_REC_VERSION, LDPROF_NO_OBJ, 0, 100, 0);
	add(h, LDPROF_REC_OBJOPEN, 0, add_string(h, ""), 110, 0);
	add(h, LDPROF_REC_OBJOPEN, 1, add_string(h, "/lib64/ld-linux-x86-64.so.2"), 120,
	    LDPROF_OBJ_LOADER);
	add(h, LDPROF_REC_OBJOPEN, 2, add_string(h, "/lib/libc.so.6"), 130, LDPROF_OBJ_HAS_INIT);
	add(h, LDPROF_REC_ACTIVITY, LDPROF_NO_OBJ, 0, 140, 0);
	add(h, LDPROF_REC_INIT_BEGIN, 2, 0, 150, 0);
	add(h, LDPROF_REC_INIT_END, 2, 1, 160, 0);
	add(h, 999, 2, 0, 170, 0); /* unknown types are skipped */
	add(h, LDPROF_REC_OBJOPEN, 3, add_string(h, "/usr/lib/plugin.so"), 180, 0);
	CHECK(shm_decode(h, SIZE, &t, &r, &err) == 0);
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

static void test_malformed(void)
{
	struct ldprof_shm_header *h = fresh();
	struct trace t;
	struct trace_run r = {0};
	struct errbuf err;

	trace_init(&t, 0, NULL);
	t.program = strdup("p");
	memcpy(h->magic, "XXXXXXXX", 8);
	CHECK(shm_decode(h, SIZE, &t, &r, &err) < 0);
	CHECK(strstr(err.msg, "bad header") != NULL);
	h = (free(h), fresh());
	h->version = 99;
	CHECK(shm_decode(h, SIZE, &t, &r, &err) < 0);
	h->version = LDPROF_SHM_VERSION;
	h->records_cap = 1u << 30; /* records beyond the buffer */
	CHECK(shm_decode(h, SIZE, &t, &r, &err) < 0);
	h = (free(h), fresh());
	CHECK(shm_decode(h, 64, &t, &r, &err) < 0); /* shorter than a header */
	/* More records claimed than fit: bounded, and flagged as overflow. */
	h->nrecords = h->records_cap + 5;
	CHECK(shm_decode(h, SIZE, &t, &r, &err) == 0);
	CHECK(r.shm_flags & LDPROF_SHM_F_OVERFLOW);
	free(r.ev);
	r = (struct trace_run){0};
	/* A name offset outside the strings, and an unterminated name. */
	h = (free(h), fresh());
	add(h, LDPROF_REC_OBJOPEN, 0, UINT32_MAX - 1, 1, 0);
	memset((char *)h + h->strings_off, 'x', h->strings_cap);
	add(h, LDPROF_REC_OBJOPEN, 1, 0, 2, 0);
	add(h, LDPROF_REC_INIT_BEGIN, 40000, 0, 3, 0); /* an object never opened */
	CHECK(shm_decode(h, SIZE, &t, &r, &err) == 0);
	CHECK(r.nev == 3 && r.ev[2].obj == TRACE_NO_OBJ);
	CHECK(strstr(t.obj[r.ev[1].obj].path, "name lost") != NULL);
	free(r.ev);
	trace_free(&t);
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
		CHECK(shm_decode(h, SIZE, &t, &r, &err) == 0);
		free(r.ev);
		trace_free(&t);
		free(h);
	}
}

int main(void)
{
	test_roundtrip();
	test_malformed();
	test_fuzz();
	return unit_done("shm_test");
}
