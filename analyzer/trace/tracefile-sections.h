/*
 * The payloads of the trace file's sections: each section type's fields
 * (tags in docs/trace-format.md), encoded from and decoded into a trace.
 * tracefile.c frames, compresses and checks them.
 */
#ifndef LDPROF_TRACEFILE_SECTIONS_H
#define LDPROF_TRACEFILE_SECTIONS_H

#include "base/tlv.h"
#include "trace/trace.h"
#include "base/util.h"

/* What the decoder has seen so far, to check the order of sections. */
struct tf_decode_state {
	bool have_meta, have_objects;
	unsigned model_version; /* of the MODEL section; 0 without one */
	size_t runs_expected;
	char **argv;
	size_t argc, capargv;
};

void tf_encode_meta(const struct trace *t, struct bbuf *b);
void tf_encode_machine(const struct trace *t, struct bbuf *b);
void tf_encode_env(const struct trace *t, struct bbuf *b);
void tf_encode_objects(const struct trace *t, struct bbuf *b);
void tf_encode_model(const struct trace *t, struct bbuf *b);
/* Runs [first, first + n). */
void tf_encode_runs(const struct trace *t, size_t first, size_t n, struct bbuf *b);

/*
 * -f: the tree of run i (t->run[i].tree, which must be set), one TREE
 * section per run, written after the RUNS section that holds the run.
 */
void tf_encode_tree(const struct trace *t, size_t i, struct bbuf *b);
int tf_decode_tree(struct cursor *c, struct trace *t, struct errbuf *err);

/* --sample: every sample and its frames, one SAMPLES section after the last RUNS (samples.h). */
void tf_encode_samples(const struct trace *t, struct bbuf *b);
int tf_decode_samples(struct cursor *c, struct trace *t, struct errbuf *err);

/* The events of a run (or of one exec in a tree), timestamps from base. */
void tf_encode_events(const struct trace_event *ev, size_t nev, uint64_t base, struct bbuf *b);
bool tf_decode_events(struct cursor *c, const struct trace *t, uint64_t base, struct trace_run *r);

/*
 * Decode one section's payload into t: 0, 1 for a type this version does
 * not know (skipped), or -EPROTO with err set.
 */
int tf_decode_section(uint32_t type, struct cursor payload, struct trace *t,
		      struct tf_decode_state *st, struct errbuf *err);
/* Move the argv collected from META into t; free the state. */
void tf_decode_finish(struct trace *t, struct tf_decode_state *st);

#endif
