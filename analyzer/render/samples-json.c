/*
 * --sample in the run report's JSON (docs/json.md, "samples"): per phase
 * its top functions and its distinct stacks, then the whole run's top
 * functions, with the sampling's own counts (lost, not unwound).
 */
#include <math.h>

#include "base/out/json.h"
#include "render/samples.h"

#define JSON_TOP_FUNCTIONS 20
#define JSON_MAX_STACKS	   500 /* per phase; the rest are counted in stacks_omitted */

static void frame_fields(struct json *j, const struct trace_sampling *s, uint32_t f)
{
	const struct sample_frame *fr = &s->frame[f];
	char buf[64];

	json_str(j, "name", sample_frame_label(fr, buf, sizeof buf));
	json_str(j, "object", fr->object);
	json_str(j, "source", frame_source_name(fr->source));
}

static void functions(struct json *j, const struct trace_sampling *s,
		      const struct phase_samples *ph)
{
	char buf[64];

	json_arr_open(j, "functions");
	for (size_t i = 0; i < ph->nfn && i < JSON_TOP_FUNCTIONS; i++) {
		const struct sample_fn *fn = &ph->fn[i];
		json_obj_open(j, NULL);
		frame_fields(j, s, fn->frame);
		json_int(j, "self", (long long)fn->self);
		json_int(j, "total", (long long)fn->total);
		json_num(j, "self_share", samples_share(ph, fn->self) / 100);
		json_num(j, "total_share", samples_share(ph, fn->total) / 100);
		if (fn->caller == SAMPLES_NO_FRAME)
			json_null(j, "caller");
		else
			json_str(j, "caller",
				 sample_frame_label(&s->frame[fn->caller], buf, sizeof buf));
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void stacks(struct json *j, const struct trace_sampling *s, const struct phase_samples *ph)
{
	char buf[64];

	json_arr_open(j, "stacks");
	for (size_t i = 0; i < ph->nst && i < JSON_MAX_STACKS; i++) {
		const struct trace_sample *x = &s->s[ph->st[i].sample];
		json_obj_open(j, NULL);
		json_arr_open(j, "frames"); /* outermost first, as folded stacks */
		for (uint32_t k = x->len; k-- > 0;)
			json_str(j, NULL,
				 sample_frame_label(&s->frame[s->chain[x->first + k]], buf,
						    sizeof buf));
		json_arr_close(j);
		json_int(j, "count", (long long)ph->st[i].count);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_int(j, "stacks_omitted",
		 ph->nst > JSON_MAX_STACKS ? (long long)(ph->nst - JSON_MAX_STACKS) : 0);
}

static void phase(struct json *j, const struct sample_report *sr, int p)
{
	const struct phase_samples *ph = &sr->ph[p];

	json_obj_open(j, NULL);
	json_str(j, "name", phase_name(p));
	json_int(j, "samples", (long long)ph->n);
	json_num(j, "sampled_user_us", ph->sampled_us);
	json_num(j, "phase_us", ph->phase_us);
	json_num(j, "unseen_us", ph->phase_us - ph->sampled_us);
	functions(j, sr->s, ph);
	stacks(j, sr->s, ph);
	json_obj_close(j);
}

void render_samples_json(struct json *j, const struct report *rep)
{
	const struct sample_report *sr = rep->samples;
	const struct trace_sampling *s = sr ? sr->s : NULL;

	if (!s) {
		json_null(j, "samples");
		return;
	}
	json_obj_open(j, "samples");
	json_int(j, "period_ns", (long long)s->period_ns);
	json_int(j, "sampled_runs", (long long)s->runs);
	json_int(j, "samples", (long long)sr->samples);
	json_int(j, "unplaced", (long long)sr->unplaced);
	json_int(j, "lost", (long long)s->lost);
	json_int(j, "unwind_failed", (long long)s->unwind_failed);
	json_int(j, "truncated", (long long)s->truncated);
	json_str(j, "refused", s->refused);
	json_arr_open(j, "phases");
	for (int p = 0; p < PH_COUNT; p++)
		phase(j, sr, p);
	json_arr_close(j);
	json_obj_open(j, "whole_run");
	json_int(j, "samples", (long long)sr->ph[PH_COUNT].n);
	functions(j, s, &sr->ph[PH_COUNT]);
	json_obj_close(j);
	json_obj_close(j);
}
