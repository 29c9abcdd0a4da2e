/*
 * --sample: perf's cpu-clock sampling of one run from outside (nothing
 * runs inside the program, the shim is unchanged). The launcher opens the
 * event on the forked child before it execs (enable_on_exec), drains the
 * ring while the run goes on, and after the reap unwinds every sample
 * (analyzer/stack) and adds its symbolised frames to the trace.
 *
 * The event: PERF_COUNT_SW_CPU_CLOCK, user space only, every period_ns of
 * CPU time; each sample has IP, TID, TIME, the user registers
 * (stack_regs_mask) and 8 KiB of the user stack; MMAP2 records give the
 * executable mappings, so that addresses map to objects. Times are
 * CLOCK_MONOTONIC_RAW (use_clockid), mapped to TSC ticks, the shim's
 * clock, with (rdtsc, clock) pairs taken before the fork and after the
 * reap, as -f does (follow.h).
 */
#ifndef LDPROF_SAMPLE_H
#define LDPROF_SAMPLE_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/util.h"
#include "run/perf-ring.h"
#include "stack/stack.h"
#include "trace/trace.h"

#define SAMPLE_PERIOD_NS_DEFAULT 20000u
#define SAMPLE_STACK_BYTES	 8192u

/* One PERF_RECORD_SAMPLE, copied out of the ring. */
struct sample_raw {
	uint64_t ns; /* CLOCK_MONOTONIC_RAW */
	uint32_t pid, tid;
	struct stack_sample st; /* st.stack points to stack */
	uint8_t *stack;
};

/* One executable mapping of the sampled process (PERF_RECORD_MMAP2). */
struct sample_map {
	uint64_t start, end, pgoff;
	char *path;
};

struct sampler {
	uint64_t period_ns;
	uint64_t regs_mask;
	size_t ring_bytes;
	struct perf_ring ring;
	struct perf_scratch scratch;
	pid_t pid;
	struct sample_raw *raw;
	size_t nraw, capraw;
	struct sample_map *map;
	size_t nmap, capmap;
	uint64_t lost;
	uint64_t cal_tsc, cal_ns;     /* the session's first pair: the rate's baseline */
	uint64_t start_tsc, start_ns; /* this run's first pair */
	struct stack_unwinder *uw; /* made with the first samples to unwind */
};

void sampler_init(struct sampler *s, uint64_t period_ns);
void sampler_fini(struct sampler *s);

/* Before fork: the run's first clock pair. */
void sampler_prepare(struct sampler *s);

/*
 * Open the event on pid (forked, not exec'd yet) and map its ring. -errno
 * with err set: "perf_event_open: Permission denied
 * (kernel.perf_event_paranoid=3)". LDPROF_TEST_PERF_EPERM=1 (tests only)
 * makes it fail so, as a kernel that refuses would.
 */
int sampler_attach(struct sampler *s, pid_t pid, struct errbuf *err);
bool sampler_active(const struct sampler *s);

/* The ring's fd to poll, and what to do when it is readable. */
struct pollfd sampler_pollfd(const struct sampler *s);
void sampler_service(struct sampler *s);

/*
 * After the reap: the last drain, then every sample unwound, symbolised
 * and added to t->sampling as run `run`; the event is closed.
 */
void sampler_finish(struct sampler *s, struct trace *t, uint32_t run);
/* Forget the run's samples and mappings (the ring stays). */
void sampler_clear(struct sampler *s);
/* Drop what was sampled (a run that failed). */
void sampler_abort(struct sampler *s);

/* The ticks of a perf time, given the run's clock pairs (exposed for tests). */
uint64_t sampler_ns_to_ticks(const struct sampler *s, uint64_t ns, uint64_t end_tsc,
			     uint64_t end_ns);

#endif
