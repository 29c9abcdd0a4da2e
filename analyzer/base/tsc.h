/*
 * The clock shared by the launcher and the shim: the invariant TSC. The shim
 * reads it with rdtsc (no system call, no vDSO lookup inside ld.so); we
 * convert ticks to seconds with a rate calibrated against CLOCK_MONOTONIC
 * over the whole session.
 */
#ifndef LDPROF_TSC_H
#define LDPROF_TSC_H

#include <stdint.h>

#include "base/util.h"

static inline uint64_t tsc_now(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

struct tsc_cal {
	uint64_t tsc0, ns0;
};

/* 0, or -ENOTSUP with the reason when the TSC cannot be trusted. */
int tsc_check(struct errbuf *err);
void tsc_cal_begin(struct tsc_cal *c);
/* Ticks per second; waits until at least 20 ms have passed since begin. */
double tsc_cal_end(const struct tsc_cal *c);

#endif
