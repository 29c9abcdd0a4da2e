/*
 * Unit tests for draining a perf ring (run/perf-ring.h) laid out in plain
 * memory as the kernel lays it out: the control page, then the data. A
 * record that wraps is given whole; a header that cannot be (too small,
 * misaligned, larger than the ring) skips what the ring holds and says so,
 * so that the records after it still come.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "run/perf-ring.h"
#include "unit.h"

#define DATA 4096u

struct seen {
	size_t n;
	uint32_t type[8];
	uint16_t size[8];
};

static void note(void *arg, const char *p, size_t size)
{
	struct seen *s = arg;
	struct perf_event_header h;

	memcpy(&h, p, sizeof h);
	if (s->n < 8) {
		s->type[s->n] = h.type;
		s->size[s->n] = (uint16_t)size;
	}
	s->n++;
}

/* A record of size bytes at the ring's position pos (it may wrap). */
static void put(char *data, uint64_t pos, uint32_t type, uint16_t size)
{
	char rec[256] = {0};
	struct perf_event_header h = {.type = type, .size = size};

	memcpy(rec, &h, sizeof h);
	for (uint16_t i = 0; i < size; i++)
		data[(pos + i) % DATA] = rec[i];
}

static void test_drain(void)
{
	long pg = perf_page_size();
	char *mem = calloc(1, (size_t)pg + DATA);
	struct perf_ring r = {.fd = -1, .base = mem, .data_size = DATA};
	struct perf_event_mmap_page *ctl = (void *)mem;
	char *data = mem + pg;
	struct perf_scratch sc = {0};
	struct seen s = {0};

	/* Two records, the second wrapping around the end. */
	ctl->data_tail = DATA - 48;
	put(data, DATA - 48, PERF_RECORD_FORK, 40);
	put(data, DATA - 8, PERF_RECORD_EXIT, 40);
	ctl->data_head = DATA + 32;
	CHECK(!perf_ring_drain(&r, &sc, note, &s));
	CHECK(s.n == 2 && s.type[0] == PERF_RECORD_FORK && s.type[1] == PERF_RECORD_EXIT);
	CHECK(s.size[1] == 40 && ctl->data_tail == DATA + 32);

	/* A zero-size header, then a good record: skipped to the head, counted. */
	put(data, DATA + 32, 0, 0);
	put(data, DATA + 40, PERF_RECORD_COMM, 32);
	ctl->data_head = DATA + 72;
	s.n = 0;
	CHECK(perf_ring_drain(&r, &sc, note, &s));
	CHECK(s.n == 0 && ctl->data_tail == DATA + 72);

	/* After it, records come again. */
	put(data, DATA + 72, PERF_RECORD_COMM, 32);
	ctl->data_head = DATA + 104;
	CHECK(!perf_ring_drain(&r, &sc, note, &s));
	CHECK(s.n == 1 && s.type[0] == PERF_RECORD_COMM);

	/* A size not a multiple of 8: the next header would be misaligned. */
	put(data, DATA + 104, PERF_RECORD_COMM, 12);
	ctl->data_head = DATA + 136;
	s.n = 0;
	CHECK(perf_ring_drain(&r, &sc, note, &s));
	CHECK(s.n == 0 && ctl->data_tail == DATA + 136);

	/* Larger than the ring itself. */
	put(data, DATA + 136, PERF_RECORD_COMM, 8);
	memcpy(data + (DATA + 136 + 6) % DATA, &(uint16_t){DATA + 8}, 2);
	ctl->data_head = DATA + 136 + DATA + 8;
	CHECK(perf_ring_drain(&r, &sc, note, &s));
	CHECK(s.n == 0 && ctl->data_tail == DATA + 136 + DATA + 8);
	ctl->data_tail = ctl->data_head = DATA + 104;

	/* A record not whole yet (its size past the head): left for later. */
	put(data, DATA + 104, PERF_RECORD_EXIT, 40);
	ctl->data_head = DATA + 120;
	s.n = 0;
	CHECK(!perf_ring_drain(&r, &sc, note, &s));
	CHECK(s.n == 0 && ctl->data_tail == DATA + 104);
	free(sc.buf);
	free(mem);
}

int main(void)
{
	test_drain();
	return unit_done("perf_ring_test");
}
