/* Mapping and draining a perf ring (perf-ring.h). */
#include "run/perf-ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/tsc.h"
#include "base/util.h"

long perf_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

int perf_ring_map(struct perf_ring *r, int fd, size_t bytes)
{
	long pg = perf_page_size();

	r->fd = fd;
	for (; bytes >= (size_t)pg; bytes /= 2) {
		void *p = mmap(NULL, bytes + (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			r->base = p;
			r->data_size = bytes;
			return 0;
		}
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	return -errno;
}

void perf_ring_close(struct perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->data_size + (size_t)perf_page_size());
	if (r->fd >= 0)
		close(r->fd);
	*r = (struct perf_ring){.fd = -1};
}

bool perf_ring_drain(struct perf_ring *r, struct perf_scratch *s,
		     void (*fn)(void *arg, const char *p, size_t size), void *arg)
{
	bool damaged = false;
	struct perf_event_mmap_page *pg = r->base;
	const char *data = (const char *)r->base + perf_page_size();
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t mask = r->data_size - 1;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t off = tail & mask;
		/* Records are 8-byte aligned, so a header never wraps. */
		memcpy(&h, data + off, sizeof h);
		if (h.size < sizeof h || h.size % 8 || h.size > r->data_size) {
			damaged = true;
			tail = head;
			break;
		}
		if (tail + h.size > head)
			break;
		if (off + h.size <= r->data_size) {
			fn(arg, data + off, h.size);
		} else {
			size_t first = r->data_size - off;
			if (s->size < h.size) {
				s->buf = xrealloc(s->buf, h.size);
				s->size = h.size;
			}
			memcpy(s->buf, data + off, first);
			memcpy(s->buf + first, data, h.size - first);
			fn(arg, s->buf, h.size);
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return damaged;
}

void perf_clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		struct timespec ts;
		uint64_t a = tsc_now();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		uint64_t b = tsc_now();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		}
	}
}
