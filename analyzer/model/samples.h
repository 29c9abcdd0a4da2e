/*
 * --sample: the samples of the sampled runs placed in their phases (by
 * their TSC time against the run's own milestones) and aggregated per
 * phase: each function's self and total counts (total: on the stack at
 * all, once per sample), its most frequent caller, and the distinct
 * stacks with their counts, for the text, folded, JSON, chrome and HTML
 * renderers. Index PH_COUNT is the whole run, every phase together.
 */
#ifndef LDPROF_MODEL_SAMPLES_H
#define LDPROF_MODEL_SAMPLES_H

#include <stddef.h>
#include <stdint.h>

#include "base/stats.h"
#include "model/analyze.h"
#include "trace/samples.h"

#define SAMPLES_NO_FRAME UINT32_MAX
#define SAMPLES_NO_PHASE (-1)

struct sample_fn {
	uint32_t frame;	 /* index into trace.sampling->frame */
	size_t self;	 /* samples with it as the leaf */
	size_t total;	 /* samples with it anywhere on the stack */
	uint32_t caller; /* its most frequent caller when it is the leaf, or SAMPLES_NO_FRAME */
};

struct sample_stack {
	size_t sample; /* one sample with this stack (its frames, leaf first) */
	size_t count;
};

struct phase_samples {
	size_t n;	      /* samples in the phase */
	struct sample_fn *fn; /* the functions seen, by self, then total, descending */
	size_t nfn, capfn;
	struct sample_stack *st; /* the distinct stacks, by count descending */
	size_t nst, capst;
	double sampled_us; /* user CPU time the samples stand for, per sampled run */
	double phase_us;   /* the phase's mean time in the sampled runs themselves */
};

struct sample_report {
	const struct trace_sampling *s; /* NULL without --sample */
	size_t runs;			/* sampled runs with phases */
	size_t samples;			/* placed in a phase */
	size_t unplaced;		/* in a run without milestones, or outside it */
	int *phase_of;			/* per sample of s: its phase, or SAMPLES_NO_PHASE */
	struct summary total_us;	/* the sampled runs' totals: what sampling costs a run */
	struct phase_samples ph[PH_COUNT + 1];
};

/* Build from rep->t->sampling (an empty report when it is NULL); sr must be zeroed. */
void samples_build(const struct report *rep, struct sample_report *sr);
void samples_free(struct sample_report *sr);

/* Share of n in a phase's samples, in percent (0 when it has none). */
double samples_share(const struct phase_samples *ph, size_t n);

#endif
