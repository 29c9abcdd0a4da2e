/*
 * What a line read from beyond the core's own caches costs right now: a
 * dependent chase through a buffer larger than the private L2, one line
 * after another in a shuffled order, timed. On a shared machine the last
 * level cache belongs to every tenant: measured here (docs/model.md, "The
 * shared cache"), such a line costs 12 to 20 ns while the other tenants
 * leave it alone and 90 to 120 ns (memory) while one of them streams
 * through it, the two states switching within seconds, and a large
 * program's relocation follows them (cmake --version: 2.48 ms against
 * 3.28 ms). The runner reads it between rounds so that each run knows the
 * state it ran in.
 */
#ifndef LDPROF_CACHEPROBE_H
#define LDPROF_CACHEPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* 2 MiB: twice the reference machine's L2, a sixteenth of its L3. */
#define CACHE_PROBE_BYTES (2u << 20)

struct cache_probe {
	void **lines; /* each line's first word points to the next line of the chase */
	size_t nlines;
};

/* Map and link the buffer (about 1 ms): 0, or -errno with err set. */
int cache_probe_init(struct cache_probe *p, size_t bytes, struct errbuf *err);
void cache_probe_fini(struct cache_probe *p);

/* One pass over every line: nanoseconds per line (0.4 to 4 ms a pass here). */
double cache_probe_read(struct cache_probe *p);

/*
 * The lines that survive shorter idle spells, read after the state's: while
 * a tenant streams, a sixth of the buffer went in 3 to 4 ms here and seven
 * tenths in 8, in bursts; in a calm minute none (docs/model.md, "With a
 * tenant streaming"). What a run's own lines live through between two of
 * its relocations is priced from them (model/model.h, model_warm_lines).
 */
#define CACHE_DECAY_POINTS 3
extern const int cache_decay_ms[CACHE_DECAY_POINTS];

/*
 * The state: a pass to bring the buffer in, two timed passes straight after
 * it (hot_ns, the faster), CACHE_PROBE_IDLE_MS idle, a timed pass (idle_ns). Back to back
 * the buffer reads at 10 to 13 ns a line in either state; what the other
 * tenants do shows in what survives an idle spell (in one minute here: 1 ms
 * 11 ns, 3 ms 12 to 20, 15 ms 23 to 100).
 */
struct cache_reading {
	double idle_ns, hot_ns;
	double decay_ns[CACHE_DECAY_POINTS]; /* after cache_decay_ms[i] idle; 0: not read */
};
/*
 * decay_reps > 0: also each short spell that many times, the median (the
 * tenant's bursts move one reading from 14 to 70 ns); 14 ms of idling each.
 */
struct cache_reading cache_probe_state(struct cache_probe *p, int decay_reps);
#define CACHE_PROBE_IDLE_MS 15

/*
 * cache_probe_state in a child process with a buffer of its own: the
 * launcher's memory, whose peak the kernel counts in each program's max RSS
 * (run/spawn.h), stays as it was. 0, or -errno with err set.
 */
int cache_probe_isolated(size_t bytes, int decay_reps, struct cache_reading *r, struct errbuf *err);

/*
 * An idle reading this many times the fastest hot one of the session:
 * another tenant evicted the buffer from the shared cache while we idled
 * (the two states read 12-20 and 90-120 ns). The fastest, because a hot
 * pass too reads 14 to 45 ns while a tenant streams hard; 10 to 12 ns is
 * the machine's own.
 */
#define CACHE_CONTENDED_RATIO 3.0

static inline bool cache_reading_contended(double idle_ns, double fastest_hot_ns)
{
	return fastest_hot_ns > 0 && idle_ns > CACHE_CONTENDED_RATIO * fastest_hot_ns;
}

#endif
