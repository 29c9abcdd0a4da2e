/*
 * A perf_event_open ring buffer as the launcher reads it: mapped with the
 * size the locked-memory limits allow, drained record by record (a record
 * that wraps around the ring is copied whole into a scratch buffer first),
 * and the (rdtsc, CLOCK_MONOTONIC_RAW) pairs that put perf's times on the
 * shim's clock. Shared by -f (follow.c) and --sample (sample.c).
 */
#ifndef LDPROF_PERF_RING_H
#define LDPROF_PERF_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct perf_ring {
	int fd;
	void *base; /* the control page, then data_size bytes of data */
	size_t data_size;
};

/* Where wrapped records are put together; grows as needed. */
struct perf_scratch {
	char *buf;
	size_t size;
};

long perf_page_size(void);

/* mmap fd's ring of up to bytes (a power of two), halving it while the limits refuse. */
int perf_ring_map(struct perf_ring *r, int fd, size_t bytes);
/* Unmap and close (either may be unset); the ring is then empty. */
void perf_ring_close(struct perf_ring *r);

/*
 * Call fn on each whole record the ring holds (size bytes at p), then free
 * the space. A header that cannot be (smaller than itself, not a multiple
 * of 8, larger than the ring) skips what the ring holds, so that later
 * records still come, and returns true: the caller counts a loss.
 */
bool perf_ring_drain(struct perf_ring *r, struct perf_scratch *s,
		     void (*fn)(void *arg, const char *p, size_t size), void *arg);

/* A record's fields, at any alignment (records are packed in the ring). */
static inline uint32_t perf_u32_at(const char *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, sizeof v);
	return v;
}

static inline uint64_t perf_u64_at(const char *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, sizeof v);
	return v;
}

/* (rdtsc, CLOCK_MONOTONIC_RAW in ns) at one instant: the tightest of a few reads. */
void perf_clock_pair(uint64_t *tsc, uint64_t *ns);

#endif
