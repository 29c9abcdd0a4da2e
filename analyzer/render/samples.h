/*
 * The --sample part of each run-report format (render/samples-*.c),
 * called by the report renderers when the trace has samples
 * (rep->samples, model/samples.h).
 */
#ifndef LDPROF_RENDER_SAMPLES_H
#define LDPROF_RENDER_SAMPLES_H

#include <stdbool.h>
#include <stdio.h>

#include "model/samples.h"
#include "render/text-out.h"

/* Whether the report has samples to show (not only a refusal). */
bool samples_present(const struct report *rep);

/* "inside each phase": each phase's top functions, what the samples cannot see. */
void render_samples_text(const struct text_out *o, const struct report *rep);
/* "phase;outer;...;leaf count", one line per distinct stack. */
void render_samples_folded(FILE *f, const struct report *rep);

/* A frame's name for folded stacks and the flame graph: ';' and controls replaced. */
void samples_frame_name(struct sbuf *sb, const struct trace_sampling *s, uint32_t frame);

/*
 * Chrome trace events after the report's own: the sampled run of median
 * length (or every one) as track tid of process pid, its samples as
 * instant events.
 */
void render_samples_chrome(FILE *f, const struct report *rep, bool all_runs, int pid, int tid);

/* The page's flame graph section: inline SVG, click to zoom (samples-html.c). */
void render_samples_html(FILE *f, const struct report *rep);

struct json;
/* The "samples" member of the ldprof-run/1 object (docs/json.md). */
void render_samples_json(struct json *j, const struct report *rep);

#endif
