/*
 * After a sampled run: each sample unwound through the run's mappings and
 * its frames named (analyzer/stack), into the trace's interned frames.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/sample.h"

static enum frame_source source_of(enum stack_sym_source s)
{
	switch (s) {
	case SYM_SYMTAB:
		return FRAME_SYMTAB;
	case SYM_DEBUGFILE:
		return FRAME_DEBUGFILE;
	case SYM_DYNSYM:
		return FRAME_DYNSYM;
	case SYM_NONE:
		break;
	}
	return FRAME_NONE;
}

/* The symbolised frame at file offset `offset` of map m (or of no map). */
static uint32_t named_frame(struct sampler *s, struct trace_sampling *ts, const struct stack_map *m,
			    uint64_t ip, uint64_t offset)
{
	struct stack_sym sym;
	struct errbuf err;

	if (!m)
		return sampling_frame(ts, NULL, "[unknown]", ip, FRAME_NONE);
	if (!s->uw)
		return sampling_frame(ts, NULL, m->path, offset, FRAME_NONE);
	stack_symbolize(s->uw, m->path, offset, &sym, &err); /* fills sym even on error */
	if (sym.source == SYM_NONE)
		return sampling_frame(ts, NULL, m->path, sym.offset, FRAME_NONE);
	return sampling_frame(ts, sym.name, m->path, 0, source_of(sym.source));
}

static const struct stack_map *map_of(const struct stack_map *maps, size_t n, uint64_t ip)
{
	/* The latest mapping wins: ld.so maps over its first reservation. */
	for (size_t i = n; i-- > 0;)
		if (ip >= maps[i].start && ip < maps[i].end)
			return &maps[i];
	return NULL;
}

/* One sample's frames, leaf first, into fr; returns how many. */
static size_t unwind_one(struct sampler *s, struct trace_sampling *ts, const struct stack_map *maps,
			 size_t nmaps, const struct sample_raw *x, uint32_t *fr)
{
	struct stack_frame frames[SAMPLE_MAX_FRAMES];
	const int max = (int)SAMPLE_MAX_FRAMES - 1; /* room for [unwind failed] */
	bool complete = false;
	struct errbuf err;
	int n = s->uw ? stack_unwind(s->uw, maps, nmaps, &x->st, frames, max, &complete, &err)
		      : -ENOMEM;
	size_t k = 0;

	if (n < 1) {
		/* Not even one frame from the unwinder: the leaf alone, from the maps. */
		const struct stack_map *m = map_of(maps, nmaps, x->st.ip);
		fr[k++] = named_frame(s, ts, m, x->st.ip, m ? x->st.ip - m->start + m->pgoff : 0);
		complete = false;
	} else {
		for (int i = 0; i < n; i++)
			fr[k++] =
				named_frame(s, ts, frames[i].map >= 0 ? &maps[frames[i].map] : NULL,
					    frames[i].ip, frames[i].offset);
	}
	if (n == max) {
		ts->truncated++;
	} else if (!complete) {
		fr[k++] = sampling_frame(ts, NULL, NULL, 0, FRAME_UNWIND_FAILED);
		ts->unwind_failed++;
	}
	return k;
}

void sampler_finish(struct sampler *s, struct trace *t, uint32_t run)
{
	struct trace_sampling *ts = t->sampling;
	struct stack_map *maps = xcalloc(s->nmap + 1, sizeof *maps);
	uint32_t fr[SAMPLE_MAX_FRAMES];
	uint64_t end_tsc, end_ns;

	struct errbuf err;

	sampler_service(s);
	perf_clock_pair(&end_tsc, &end_ns);
	perf_ring_close(&s->ring);
	/*
	 * Made now, not with the launcher: its caches would grow ldprof's
	 * address space, which every timed run's fork copies and exec tears
	 * down. Without one (no memory), each sample is its leaf, unwound no
	 * further.
	 */
	if (!s->uw && stack_unwinder_new(&s->uw, &err))
		s->uw = NULL;
	for (size_t i = 0; i < s->nmap; i++)
		maps[i] = (struct stack_map){s->map[i].start, s->map[i].end, s->map[i].pgoff,
					     s->map[i].path};
	for (size_t i = 0; i < s->nraw; i++) {
		const struct sample_raw *x = &s->raw[i];
		size_t n;
		if (x->pid != (uint32_t)s->pid)
			continue;
		n = unwind_one(s, ts, maps, s->nmap, x, fr);
		sampling_add(ts, run, x->tid, sampler_ns_to_ticks(s, x->ns, end_tsc, end_ns), fr,
			     n);
	}
	ts->lost += s->lost;
	ts->runs++;
	free(maps);
	sampler_clear(s);
}
