/*
 * --sample in the text report: per phase, its top functions (self and
 * total share of the phase's samples, the object, where the name came
 * from, the most frequent caller), and the part of the phase's time the
 * samples cannot see (the kernel's, with exclude_kernel).
 */
#include <math.h>

#include "base/out/textsafe.h"
#include "render/samples.h"

#define TOP_FUNCTIONS 5

bool samples_present(const struct report *rep)
{
	return rep->samples && rep->samples->s && rep->samples->s->n;
}

/* "name (object)", with the name's source unless it is the object's own .symtab. */
static void fn_label(const struct text_out *o, const struct trace_sampling *s, uint32_t f)
{
	const struct sample_frame *fr = &s->frame[f];
	char buf[64];

	fprintf(o->f, "%s", term_safe(sample_frame_label(fr, buf, sizeof buf)));
	if (fr->source == FRAME_UNWIND_FAILED)
		return;
	fprintf(o->f, " %s(%s", DIM(o), term_clean(sample_frame_object(fr)));
	if (fr->source != FRAME_SYMTAB)
		fprintf(o->f, ", %s", frame_source_name(fr->source));
	fprintf(o->f, ")%s", RESET(o));
}

/*
 * What the phase took in the sampled runs against the user time their
 * samples stand for: the rest is the kernel's (exclude_kernel) or waiting.
 */
static void phase_head(const struct text_out *o, const struct report *rep, int p)
{
	const struct phase_samples *ph = &rep->samples->ph[p];
	double took = ph->phase_us, unseen = took - ph->sampled_us;
	char seen[32], all[32], rest[32];

	text_dur(o, seen, sizeof seen, ph->sampled_us);
	text_dur(o, all, sizeof all, took);
	fprintf(o->f, "\n  %s%-9s%s %zu samples: %s of user CPU per run", BOLD(o), phase_name(p),
		RESET(o), ph->n, seen);
	if (isfinite(took) && took > 0 && unseen > 0) {
		text_dur(o, rest, sizeof rest, unseen);
		fprintf(o->f,
			" of its %s there; %s (%.0f%%) unseen: the kernel's (sampling's included) "
			"or waiting",
			all, rest, 100 * unseen / took);
	}
	fputc('\n', o->f);
}

static void phase_top(const struct text_out *o, const struct report *rep, int p)
{
	const struct phase_samples *ph = &rep->samples->ph[p];
	const struct trace_sampling *s = rep->samples->s;

	for (size_t i = 0; i < ph->nfn && i < TOP_FUNCTIONS && ph->fn[i].self; i++) {
		const struct sample_fn *fn = &ph->fn[i];
		fprintf(o->f, "   %5.1f%% %5.1f%%  ", samples_share(ph, fn->self),
			samples_share(ph, fn->total));
		fn_label(o, s, fn->frame);
		if (fn->caller != SAMPLES_NO_FRAME) {
			char buf[64];
			fprintf(o->f, " %s %s", o->st->utf8 ? "←" : "<-",
				term_safe(sample_frame_label(&s->frame[fn->caller], buf,
							     sizeof buf)));
		}
		fputc('\n', o->f);
	}
}

static void losses(const struct text_out *o, const struct report *rep)
{
	const struct sample_report *sr = rep->samples;
	const struct trace_sampling *s = sr->s;
	char a[32], b[32];

	if (sr->total_us.n && rep->plain_total.n) {
		text_dur(o, a, sizeof a, sr->total_us.median);
		text_dur(o, b, sizeof b, rep->plain_total.median);
		fprintf(o->f, "  %s(a sampled run takes %s, a plain one %s: medians)%s\n", DIM(o),
			a, b, RESET(o));
	}
	if (s->lost)
		fprintf(o->f, "  %llu samples lost: the kernel's ring buffer overflowed\n",
			(unsigned long long)s->lost);
	if (s->unwind_failed)
		fprintf(o->f,
			"  %llu of %zu stacks did not unwind to their start: [unwind failed] "
			"stands for their callers\n",
			(unsigned long long)s->unwind_failed, s->n);
	if (s->truncated)
		fprintf(o->f, "  %llu stacks were cut at %u frames\n",
			(unsigned long long)s->truncated, SAMPLE_MAX_FRAMES);
	if (sr->unplaced)
		fprintf(o->f,
			"  %zu samples fell in no phase (a run without the shim's milestones)\n",
			sr->unplaced);
}

void render_samples_text(const struct text_out *o, const struct report *rep)
{
	const struct sample_report *sr = rep->samples;
	char period[32];

	if (!sr || !sr->s)
		return;
	if (sr->s->refused) {
		fprintf(o->f, "\n  %sinside each phase:%s not sampled: %s\n", BOLD(o), RESET(o),
			term_clean(sr->s->refused));
		return;
	}
	if (!sr->s->runs) {
		fprintf(o->f, "\n  %sinside each phase:%s no sampled run%s\n", BOLD(o), RESET(o),
			rep->is_static ? ": a static program has no loader phases to sample" : "");
		return;
	}
	text_dur(o, period, sizeof period, (double)sr->s->period_ns / 1000.0);
	fprintf(o->f,
		"\n  %sinside each phase%s: %zu samples from %zu sampled runs, one per %s of user "
		"CPU (runs of their own, after the timed ones)\n",
		BOLD(o), RESET(o), sr->samples, sr->s->runs, period);
	fprintf(o->f, "  %s    self  total  function (object), its most frequent caller%s\n",
		DIM(o), RESET(o));
	for (int p = 0; p < PH_COUNT; p++) {
		if (!sr->ph[p].n)
			continue;
		phase_head(o, rep, p);
		phase_top(o, rep, p);
	}
	losses(o, rep);
}
