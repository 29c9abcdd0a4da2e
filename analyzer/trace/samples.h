/*
 * What --sample recorded: the stack samples of the sampled runs, each a
 * chain of symbolised frames (leaf first), with the sampling's own
 * bookkeeping (period, lost records, stacks that did not unwind, why the
 * kernel refused). Frames are interned: a function of an object is one
 * frame however many samples pass through it. Unwinding and symbols are
 * resolved when the samples are taken (run/sample*.c), so that a trace
 * file reports on any machine without the binaries.
 */
#ifndef LDPROF_SAMPLES_H
#define LDPROF_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strmap.h"

/* Where a frame's name came from. Values are part of the trace format. */
enum frame_source {
	FRAME_SYMTAB = 0,	 /* the object's .symtab */
	FRAME_DEBUGFILE = 1,	 /* its separate debug file (.gnu_debuglink, build-id) */
	FRAME_DYNSYM = 2,	 /* its .dynsym only */
	FRAME_NONE = 3,		 /* no symbol: shown as object+0xoffset */
	FRAME_UNWIND_FAILED = 4, /* the stack did not unwind past here: "[unwind failed]" */
	FRAME_SOURCE_COUNT
};

struct sample_frame {
	char *name;	 /* the function; NULL for FRAME_NONE and FRAME_UNWIND_FAILED */
	char *object;	 /* the object's path as mapped; NULL for FRAME_UNWIND_FAILED */
	uint64_t offset; /* FRAME_NONE: the file offset in object; else 0 */
	enum frame_source source;
};

struct trace_sample {
	uint32_t run; /* index into trace.run */
	uint32_t tid;
	uint64_t ts;	     /* TSC ticks, on the shim's clock */
	uint32_t first, len; /* its frames: chain[first .. first + len), leaf first */
};

struct trace_sampling {
	uint64_t period_ns; /* the cpu-clock period asked for */
	struct sample_frame *frame;
	size_t nframe, capframe;
	uint32_t *chain; /* frame indices of every sample, back to back */
	size_t nchain, capchain;
	struct trace_sample *s; /* by run, then time */
	size_t n, cap;
	uint64_t lost;		/* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t unwind_failed; /* samples whose stack stopped at an [unwind failed] frame */
	uint64_t truncated;	/* samples cut at SAMPLE_MAX_FRAMES */
	size_t runs;		/* sampled runs */
	char *refused;		/* why sampling was refused ("perf_event_open: ..."); NULL if not */
	struct strmap index;	/* frame key -> index + 1, while frames are added */
};

/* At most this many frames of one stack are kept (the outermost are dropped). */
#define SAMPLE_MAX_FRAMES 128u

struct trace_sampling *sampling_new(uint64_t period_ns);
void sampling_free(struct trace_sampling *s);

/* The index of this frame, added on first use (the strings are copied). */
uint32_t sampling_frame(struct trace_sampling *s, const char *name, const char *object,
			uint64_t offset, enum frame_source src);

/* Append a sample with frames fr[0..n) (indices from sampling_frame). */
void sampling_add(struct trace_sampling *s, uint32_t run, uint32_t tid, uint64_t ts,
		  const uint32_t *fr, size_t n);

/* "func", "object+0x1a2b" or "[unwind failed]": a string of f, or written into buf. */
const char *sample_frame_label(const struct sample_frame *f, char *buf, size_t len);
/* The short object name shown next to a function: its file name. */
const char *sample_frame_object(const struct sample_frame *f);
/* "symtab", "debug file", "dynsym", "none", "unwind failed" */
const char *frame_source_name(enum frame_source s);

#endif
