/*
 * What a run's lines live through between two relocations of its program
 * while another tenant streams through the shared cache: the lines of the
 * launcher's probe that survived idle spells of 2, 4, 8 and 15 ms
 * (base/cacheprobe.h), read at the time between two of the program's
 * execs. In a calm minute nothing decays; with a tenant, a spinning main's
 * relocation rose with its spin as the probe's lines went, a sixth gone
 * after 3 to 4 ms and seven tenths after 8 (docs/model.md, "With a tenant
 * streaming").
 */
#ifndef LDPROF_LINE_DECAY_H
#define LDPROF_LINE_DECAY_H

#include "trace/trace.h"

/*
 * The time between two of t's execs, the median over its counted profiled
 * runs of the gap from the run before (of either kind), in us: the time a
 * relocation's lines wait for the next one. NAN with fewer than two runs.
 */
double line_decay_interval_us(const struct trace *t);

/*
 * The share of the lines a tenant leaves in the shared cache after us, from
 * the probe readings of t's counted profiled runs (the medians of each
 * spell's), 0 to 1; NAN when the runs carry no such readings (not probed,
 * or an older trace). Monotone: a spell shorter than the next keeps at
 * least as much, whatever the bursts read.
 */
double line_decay_surviving(const struct trace *t, double us);

#endif
