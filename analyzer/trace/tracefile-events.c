/* The events of a run or of one exec in a tree, in the trace file (docs/trace-format.md). */
#include "trace/tracefile-sections.h"

/* Events as varints, timestamps as deltas: they compress to a few bytes each. */
void tf_encode_events(const struct trace_event *ev, size_t nev, uint64_t base, struct bbuf *b)
{
	uint64_t prev = base;

	for (size_t i = 0; i < nev; i++) {
		const struct trace_event *e = &ev[i];
		bb_varint(b, zigzag((int64_t)(e->ts - prev)));
		bb_varint(b, e->type);
		bb_varint(b, e->obj == TRACE_NO_OBJ ? 0 : (uint64_t)e->obj + 1);
		bb_varint(b, e->u32);
		bb_varint(b, e->a);
		bb_varint(b, e->b);
		prev = e->ts;
	}
}

bool tf_decode_events(struct cursor *c, const struct trace *t, uint64_t base, struct trace_run *r)
{
	uint64_t prev = base, f[6];

	while (c->p < c->end) {
		for (int k = 0; k < 6; k++)
			if (!cur_varint(c, &f[k]))
				return false;
		if (f[1] > UINT16_MAX || f[2] > t->nobj || f[3] > UINT32_MAX)
			return false;
		struct trace_event e = {
			.ts = prev + (uint64_t)unzigzag(f[0]),
			.type = (uint16_t)f[1],
			.obj = f[2] ? (uint32_t)(f[2] - 1) : TRACE_NO_OBJ,
			.u32 = (uint32_t)f[3],
			.a = f[4],
			.b = f[5],
		};
		trace_add_event(r, &e);
		prev = e.ts;
	}
	return true;
}
