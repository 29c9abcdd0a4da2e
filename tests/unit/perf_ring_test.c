/*
 * Unit tests for draining a perf ring (run/perf-ring.h) laid out in plain
 * memory as the kernel lays it out: the control page, then the data. A
 * record that wraps is given whole; a header that cannot be (too small,
 * misaligned, larger than the ring) skips what the ring holds and says so,
 * so that the records after it still come.
 */
#include <linux/perf_event.h>
#include <stdbool.h>
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

/* A record's header at the ring's position pos (it may wrap); its body is left as it is. */
static void put(char *data, uint64_t pos, uint32_t type, uint16_t size)
{
	struct perf_event_header h = {.type = type, .size = size};
	char raw[sizeof h];

	memcpy(raw, &h, sizeof h);
	for (size_t i = 0; i < sizeof h; i++)
		data[(pos + i) % DATA] = raw[i];
}

/* A ring in plain memory: the control page, then DATA bytes. */
struct fake {
	char *mem, *data;
	struct perf_ring r;
	struct perf_event_mmap_page *ctl;
	struct perf_scratch sc;
	struct seen s;
};

/* The kernel has written up to head: drain, with a fresh count of what was seen. */
static bool drain_to(struct fake *f, uint64_t head)
{
	f->ctl->data_head = head;
	f->s.n = 0;
	return perf_ring_drain(&f->r, &f->sc, note, &f->s);
}

static void test_drain(void)
{
	long pg = perf_page_size();
	struct fake f = {.mem = calloc(1, (size_t)pg + DATA)};

	f.data = f.mem + pg;
	f.ctl = (void *)f.mem;
	f.r = (struct perf_ring){.fd = -1, .base = f.mem, .data_size = DATA};

	/* Two records, the second wrapping around the end. */
	f.ctl->data_tail = DATA - 48;
	put(f.data, DATA - 48, PERF_RECORD_FORK, 40);
	put(f.data, DATA - 8, PERF_RECORD_EXIT, 40);
	CHECK(!drain_to(&f, DATA + 32));
	CHECK(f.s.n == 2 && f.s.type[0] == PERF_RECORD_FORK && f.s.type[1] == PERF_RECORD_EXIT);
	CHECK(f.s.size[1] == 40 && f.ctl->data_tail == DATA + 32);

	/* A zero-size header, then a good record: skipped to the head, counted. */
	put(f.data, DATA + 32, 0, 0);
	put(f.data, DATA + 40, PERF_RECORD_COMM, 32);
	CHECK(drain_to(&f, DATA + 72));
	CHECK(f.s.n == 0 && f.ctl->data_tail == DATA + 72);

	/* After it, records come again. */
	put(f.data, DATA + 72, PERF_RECORD_COMM, 32);
	CHECK(!drain_to(&f, DATA + 104));
	CHECK(f.s.n == 1 && f.s.type[0] == PERF_RECORD_COMM);

	/* A size not a multiple of 8: the next header would be misaligned. */
	put(f.data, DATA + 104, PERF_RECORD_COMM, 12);
	CHECK(drain_to(&f, DATA + 136));
	CHECK(f.s.n == 0 && f.ctl->data_tail == DATA + 136);

	/* Larger than the ring itself. */
	put(f.data, DATA + 136, PERF_RECORD_COMM, DATA + 8);
	CHECK(drain_to(&f, DATA + 136 + DATA + 8));
	CHECK(f.s.n == 0 && f.ctl->data_tail == DATA + 136 + DATA + 8);

	/* A record not whole yet (its size past the head): left for later. */
	f.ctl->data_tail = DATA + 104;
	put(f.data, DATA + 104, PERF_RECORD_EXIT, 40);
	CHECK(!drain_to(&f, DATA + 120));
	CHECK(f.s.n == 0 && f.ctl->data_tail == DATA + 104);
	free(f.sc.buf);
	free(f.mem);
}

int main(void)
{
	test_drain();
	return unit_done("perf_ring_test");
}
