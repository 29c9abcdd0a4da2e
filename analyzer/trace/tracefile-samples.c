/*
 * The trace file's SAMPLES section (--sample): the symbolised frames, then
 * every sample as a chain of frame indices. Tags in docs/trace-format.md.
 * Written once, after the last RUNS section, since a sample names its run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracefile-sections.h"

enum samples_tag {
	SMP_PERIOD_NS = 1,
	SMP_RUNS = 2,
	SMP_LOST = 3,
	SMP_UNWIND_FAILED = 4,
	SMP_TRUNCATED = 5,
	SMP_REFUSED = 6,
	SMP_FRAME = 7,	 /* nested, repeated, before SMP_SAMPLES */
	SMP_SAMPLES = 8, /* bytes */
};

enum frame_tag { FR_NAME = 1, FR_OBJECT = 2, FR_OFFSET = 3, FR_SOURCE = 4 };

static void encode_frame(const struct sample_frame *f, struct bbuf *b)
{
	tlv_str(b, FR_NAME, f->name);
	tlv_str(b, FR_OBJECT, f->object);
	if (f->offset)
		tlv_uint(b, FR_OFFSET, f->offset);
	tlv_uint(b, FR_SOURCE, f->source);
}

/* Each sample as varints: run, tid, ts from the run's exec_ts (zigzag), len, frames. */
static void encode_samples(const struct trace *t, struct bbuf *b)
{
	const struct trace_sampling *s = t->sampling;

	for (size_t i = 0; i < s->n; i++) {
		const struct trace_sample *x = &s->s[i];
		bb_varint(b, x->run);
		bb_varint(b, x->tid);
		bb_varint(b, zigzag((int64_t)(x->ts - t->run[x->run].exec_ts)));
		bb_varint(b, x->len);
		for (uint32_t k = 0; k < x->len; k++)
			bb_varint(b, s->chain[x->first + k]);
	}
}

void tf_encode_samples(const struct trace *t, struct bbuf *b)
{
	const struct trace_sampling *s = t->sampling;
	struct bbuf smp = {0};

	tlv_uint(b, SMP_PERIOD_NS, s->period_ns);
	tlv_uint(b, SMP_RUNS, s->runs);
	tlv_uint(b, SMP_LOST, s->lost);
	tlv_uint(b, SMP_UNWIND_FAILED, s->unwind_failed);
	tlv_uint(b, SMP_TRUNCATED, s->truncated);
	tlv_str(b, SMP_REFUSED, s->refused);
	for (size_t i = 0; i < s->nframe; i++) {
		struct bbuf f = {0};
		encode_frame(&s->frame[i], &f);
		tlv_nested(b, SMP_FRAME, &f);
	}
	encode_samples(t, &smp);
	tlv_bytes(b, SMP_SAMPLES, smp.p, smp.len);
	bb_free(&smp);
}

static bool decode_frame(struct cursor *c, struct trace_sampling *s)
{
	struct sample_frame f = {.source = FRAME_NONE};
	struct cursor v;
	unsigned tag;
	uint64_t src;
	bool ok = true;

	while (ok && tlv_next(c, &tag, &v)) {
		switch (tag) {
		case FR_NAME:
			free(f.name);
			ok = (f.name = val_str(&v)) != NULL;
			break;
		case FR_OBJECT:
			free(f.object);
			ok = (f.object = val_str(&v)) != NULL;
			break;
		case FR_OFFSET:
			f.offset = val_uint(&v);
			break;
		case FR_SOURCE:
			src = val_uint(&v);
			ok = src < FRAME_SOURCE_COUNT;
			f.source = (enum frame_source)src;
			break;
		}
		ok = ok && !v.bad;
	}
	if (!ok || c->bad) {
		free(f.name);
		free(f.object);
		return false;
	}
	/* Appended as they are, not interned: the samples refer to these indices. */
	GROW(s->frame, s->capframe, s->nframe);
	s->frame[s->nframe++] = f;
	return true;
}

/* One sample; false when it does not fit the trace (a run that was not sampled, a frame not read).
 */
static bool decode_sample(struct cursor *c, struct trace *t, uint32_t *fr)
{
	struct trace_sampling *s = t->sampling;
	uint64_t run, tid, ts, len;

	if (!cur_varint(c, &run) || !cur_varint(c, &tid) || !cur_varint(c, &ts) ||
	    !cur_varint(c, &len))
		return false;
	if (run >= t->nrun || !t->run[run].sampled || tid > UINT32_MAX || len > SAMPLE_MAX_FRAMES)
		return false;
	for (uint64_t k = 0; k < len; k++) {
		uint64_t f;
		if (!cur_varint(c, &f) || f >= s->nframe)
			return false;
		fr[k] = (uint32_t)f;
	}
	sampling_add(s, (uint32_t)run, (uint32_t)tid, t->run[run].exec_ts + (uint64_t)unzigzag(ts),
		     fr, (size_t)len);
	return true;
}

static bool decode_samples(struct cursor *c, struct trace *t)
{
	uint32_t fr[SAMPLE_MAX_FRAMES];

	while (c->p < c->end)
		if (!decode_sample(c, t, fr))
			return false;
	return true;
}

static bool decode_field(unsigned tag, struct cursor *v, struct trace *t)
{
	struct trace_sampling *s = t->sampling;

	switch (tag) {
	case SMP_PERIOD_NS:
		s->period_ns = val_uint(v);
		break;
	case SMP_RUNS:
		s->runs = (size_t)val_uint(v);
		break;
	case SMP_LOST:
		s->lost = val_uint(v);
		break;
	case SMP_UNWIND_FAILED:
		s->unwind_failed = val_uint(v);
		break;
	case SMP_TRUNCATED:
		s->truncated = val_uint(v);
		break;
	case SMP_REFUSED:
		free(s->refused);
		return (s->refused = val_str(v)) != NULL;
	case SMP_FRAME:
		return decode_frame(v, s);
	case SMP_SAMPLES:
		return decode_samples(v, t);
	}
	return !v->bad;
}

int tf_decode_samples(struct cursor *c, struct trace *t, struct errbuf *err)
{
	struct cursor v;
	unsigned tag;

	if (t->sampling)
		return set_err(err, EPROTO, "damaged: a second SAMPLES section");
	t->sampling = sampling_new(0);
	while (tlv_next(c, &tag, &v))
		if (!decode_field(tag, &v, t))
			return set_err(err, EPROTO, "damaged SAMPLES field %u", tag);
	return c->bad ? set_err(err, EPROTO, "damaged SAMPLES section") : 0;
}
