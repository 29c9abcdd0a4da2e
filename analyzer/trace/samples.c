/* The samples of --sample in memory (samples.h). */
#include "trace/samples.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct trace_sampling *sampling_new(uint64_t period_ns)
{
	struct trace_sampling *s = xcalloc(1, sizeof *s);

	s->period_ns = period_ns;
	return s;
}

void sampling_free(struct trace_sampling *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nframe; i++) {
		free(s->frame[i].name);
		free(s->frame[i].object);
	}
	free(s->frame);
	free(s->chain);
	free(s->s);
	free(s->refused);
	strmap_free(&s->index, NULL);
	free(s);
}

/* One key per function of an object (or per offset when it has no name). */
static char *frame_key(const char *name, const char *object, uint64_t offset, enum frame_source src)
{
	return xasprintf("%d\x1f%s\x1f%s\x1f%" PRIx64, (int)src, object ? object : "",
			 name ? name : "", name ? 0 : offset);
}

uint32_t sampling_frame(struct trace_sampling *s, const char *name, const char *object,
			uint64_t offset, enum frame_source src)
{
	char *key = frame_key(name, object, offset, src);
	uintptr_t have = (uintptr_t)strmap_get(&s->index, key);
	uint32_t i;

	if (have) {
		free(key);
		return (uint32_t)(have - 1);
	}
	GROW(s->frame, s->capframe, s->nframe + 1);
	i = (uint32_t)s->nframe++;
	s->frame[i] = (struct sample_frame){
		.name = name ? xstrdup(name) : NULL,
		.object = object ? xstrdup(object) : NULL,
		.offset = name ? 0 : offset,
		.source = src,
	};
	strmap_put(&s->index, key, (void *)(uintptr_t)(i + 1));
	free(key);
	return i;
}

void sampling_add(struct trace_sampling *s, uint32_t run, uint32_t tid, uint64_t ts,
		  const uint32_t *fr, size_t n)
{
	GROW(s->chain, s->capchain, s->nchain + n);
	memcpy(s->chain + s->nchain, fr, n * sizeof *fr);
	GROW(s->s, s->cap, s->n + 1);
	s->s[s->n++] = (struct trace_sample){run, tid, ts, (uint32_t)s->nchain, (uint32_t)n};
	s->nchain += n;
}

const char *sample_frame_object(const struct sample_frame *f)
{
	return f->object ? path_basename(f->object) : "?";
}

const char *sample_frame_label(const struct sample_frame *f, char *buf, size_t len)
{
	if (f->source == FRAME_UNWIND_FAILED)
		return "[unwind failed]";
	if (f->name && *f->name) /* an empty name (a damaged trace) is shown as none */
		return f->name;
	snprintf(buf, len, "%s+0x%" PRIx64, sample_frame_object(f), f->offset);
	return buf;
}

const char *frame_source_name(enum frame_source s)
{
	static const char *const names[FRAME_SOURCE_COUNT] = {"symtab", "debug file", "dynsym",
							      "none", "unwind failed"};
	return s < FRAME_SOURCE_COUNT ? names[s] : "?";
}
