/*
 * Real samples for make bench-unwind: a program run many times, each run
 * sampled from outside with perf_event_open the way ldprof --sample
 * samples (user-space cpu-clock, IP | TID | TIME | REGS_USER | STACK_USER,
 * mmap2 records), kept in memory with each run's mappings.
 */
#ifndef LDPROF_BENCH_UNWIND_CAPTURE_H
#define LDPROF_BENCH_UNWIND_CAPTURE_H

#include "stack/stack.h"

struct cap_sample {
	struct stack_sample s; /* s.stack points into the run's bytes */
	size_t nmaps;	       /* how many of the run's mappings existed when it was taken */
};

struct cap_run {
	struct stack_map *maps; /* in the order perf reported them */
	size_t nmaps, maps_cap;
	struct cap_sample *samples;
	size_t nsamples, samples_cap;
	uint8_t *bytes; /* every sample's stack bytes */
	size_t nbytes, bytes_cap;
};

struct capture {
	struct cap_run *runs;
	size_t nruns, runs_cap;
	size_t nsamples;
	uint64_t lost;	     /* PERF_RECORD_LOST */
	uint64_t period_ns;  /* sample_period */
	uint32_t stack_user; /* sample_stack_user */
};

/*
 * Run argv until want samples are captured (at most max_runs runs).
 * Returns 0 or -errno with err set (perf_event_open refused, ...).
 */
int capture_runs(struct capture *c, char *const argv[], size_t want, size_t max_runs,
		 struct errbuf *err);
void capture_free(struct capture *c);

#endif
