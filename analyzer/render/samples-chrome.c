/*
 * --sample in the Chrome/Perfetto trace: each sampled run shown (the one
 * of median length, or every one with --all-runs) gets a track of its own
 * with the run and its phases as slices, and every sample as an instant
 * event on it, named by its leaf function, with its stack and phase.
 */
#include <math.h>
#include <stdlib.h>

#include "base/out/json.h"
#include "render/samples.h"

static void put_us(FILE *f, double us)
{
	fprintf(f, "%.3f", isfinite(us) && us > 0 ? us : 0.0);
}

static void slice(FILE *f, const char *name, const char *cat, double start_us, double dur_us,
		  int pid, int tid)
{
	fputs(",\n{\"name\":", f);
	json_put_string(f, name);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", cat);
	put_us(f, start_us);
	fputs(",\"dur\":", f);
	put_us(f, dur_us);
	fprintf(f, ",\"pid\":%d,\"tid\":%d,\"args\":{}}", pid, tid);
}

static void sample_event(FILE *f, const struct report *rep, size_t i, int pid, int tid)
{
	const struct trace *t = rep->t;
	const struct trace_sampling *s = t->sampling;
	const struct trace_sample *x = &s->s[i];
	int p = rep->samples->phase_of[i];
	struct sbuf stack = {0};

	for (uint32_t k = x->len; k-- > 0;) {
		samples_frame_name(&stack, s, s->chain[x->first + k]);
		if (k)
			sbuf_putc(&stack, ';');
	}
	fputs(",\n{\"name\":", f);
	if (x->len) {
		struct sbuf leaf = {0};
		samples_frame_name(&leaf, s, s->chain[x->first]);
		json_put_string(f, leaf.buf ? leaf.buf : ""); /* an empty name leaves no buffer */
		sbuf_free(&leaf);
	} else {
		json_put_string(f, "?");
	}
	fputs(",\"cat\":\"sample\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", f);
	put_us(f, trace_ticks_to_us(t, x->ts - t->run[x->run].exec_ts));
	fprintf(f, ",\"pid\":%d,\"tid\":%d,\"args\":{\"phase\":", pid, tid);
	if (p == SAMPLES_NO_PHASE) /* a sample outside its run's milestones */
		fputs("null", f);
	else
		json_put_string(f, phase_name(p));
	fputs(",\"stack\":", f);
	json_put_string(f, stack.buf ? stack.buf : "");
	fputs("}}", f);
	sbuf_free(&stack);
}

/* One sampled run's track: its name, its phases, its samples. */
static void run_track(FILE *f, const struct report *rep, size_t run, size_t first, int pid, int tid)
{
	const struct trace *t = rep->t;
	const struct trace_run *r = &t->run[run];
	struct run_breakdown bd = {0};
	char name[128];

	snprintf(name, sizeof name, "sampled run %zu (%.1f us)", run, trace_run_us(t, r));
	fprintf(f,
		",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{"
		"\"name\":",
		pid, tid);
	json_put_string(f, name);
	fputs("}}", f);
	slice(f, path_basename(t->program), "run", 0, trace_run_us(t, r), pid, tid);
	analyze_run(t, r, &bd);
	for (int p = 0; bd.valid && p < PH_COUNT; p++)
		if (isfinite(bd.elapsed_us[p]) && isfinite(bd.phase_us[p]))
			slice(f, phase_name(p), "phase", bd.elapsed_us[p], bd.phase_us[p], pid,
			      tid);
	run_breakdown_free(&bd);
	for (size_t i = first; i < t->sampling->n && t->sampling->s[i].run == run; i++)
		sample_event(f, rep, i, pid, tid);
}

static int by_us(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

void render_samples_chrome(FILE *f, const struct report *rep, bool all_runs, int pid, int tid)
{
	const struct trace *t = rep->t;
	const struct trace_sampling *s = t->sampling;
	double(*runs)[2] = xcalloc(s->n + 1, sizeof *runs); /* duration, first sample */
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (!i || s->s[i].run != s->s[i - 1].run) {
			runs[n][0] = trace_run_us(t, &t->run[s->s[i].run]);
			runs[n++][1] = (double)i;
		}
	qsort(runs, n, sizeof *runs, by_us);
	for (size_t k = 0; k < n; k++) {
		if (!all_runs && k != n / 2)
			continue;
		size_t first = (size_t)runs[k][1];
		run_track(f, rep, s->s[first].run, first, pid, tid++);
	}
	free(runs);
}
