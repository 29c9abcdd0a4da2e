/*
 * Chrome/Perfetto trace JSON: one thread per run shown (the median one, or
 * every counted run), each a track with the whole run, its phases, and per
 * object slices of loading, relocation, constructors and destructors
 * nested inside; with --sample, the sampled runs' tracks and their samples
 * (samples-chrome.c). ts and dur are microseconds, printed from whole
 * nanoseconds so that rounding never breaks the nesting.
 */
#include <math.h>
#include <stdlib.h>

#include "base/out/json.h"
#include "render/render.h"
#include "render/samples.h"
#include "model/timeline.h"
#include "base/version.h"

#define PID 1

static void put_us(FILE *f, int64_t ns)
{
	fprintf(f, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static void put_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

static void metadata(FILE *f, const char *what, int tid, const char *name, bool *first)
{
	fprintf(f, "%s{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		*first ? "" : ",\n", what, PID, tid);
	json_put_string(f, name);
	fputs("}}", f);
	*first = false;
}

static void reloc_args(FILE *f, const struct trace_object *o)
{
	const struct reloc_counts *r = &o->relocs;

	if (!o->have_facts)
		return;
	fprintf(f,
		",\"relocations\":%llu,\"relative\":%llu,\"relr\":%llu,\"glob_dat\":%llu,"
		"\"jump_slot\":%llu,\"symbolic\":%llu,\"tls\":%llu,\"irelative\":%llu,\"copy\":%"
		"llu",
		(unsigned long long)reloc_counts_total(r), (unsigned long long)r->relative,
		(unsigned long long)r->relr, (unsigned long long)r->glob_dat,
		(unsigned long long)r->jump_slot, (unsigned long long)r->symbolic,
		(unsigned long long)r->tls, (unsigned long long)r->irelative,
		(unsigned long long)r->copy);
}

static void slice_args(FILE *f, const struct report *rep, const struct tl_slice *s, size_t run)
{
	const struct trace *t = rep->t;

	if (s->kind == TL_RUN) {
		char *how = describe_status(t->run[run].wait_status);
		fprintf(f, "\"run\":%zu,\"outcome\":", run_ordinal(rep, run));
		json_put_string(f, how);
		free(how);
		return;
	}
	if (s->kind == TL_PHASE) {
		fputs("\"median_us_over_runs\":", f);
		put_num(f, rep->phase[s->phase].n ? rep->phase[s->phase].median : NAN);
		fputs(",\"description\":", f);
		json_put_string(f, phase_help(s->phase));
		return;
	}
	const struct trace_object *o = &t->obj[s->obj];
	fputs("\"path\":", f);
	json_put_string(f, o->path);
	fprintf(f, ",\"role\":\"%s\"", role_name(o->role));
	if (s->kind == TL_RELOC) {
		fputs(",\"estimated\":true", f);
		reloc_args(f, o);
	} else if (s->kind == TL_INIT || s->kind == TL_FINI) {
		fprintf(f, ",\"functions\":%u", s->funcs);
	}
}

static void slice_name(FILE *f, const struct report *rep, const struct tl_slice *s)
{
	static const char *const verbs[] = {"", "", "load", "relocate", "init", "fini"};
	char buf[512];

	if (s->kind == TL_RUN)
		json_put_string(f, path_basename(rep->t->program));
	else if (s->kind == TL_PHASE)
		json_put_string(f, phase_name(s->phase));
	else {
		snprintf(buf, sizeof buf, "%s %s", object_label(&rep->t->obj[s->obj]),
			 verbs[s->kind]);
		json_put_string(f, buf);
	}
}

static void run_events(FILE *f, const struct report *rep, size_t run, int tid)
{
	struct timeline tl = {0};

	timeline_build(rep, run, &tl);
	for (size_t i = 0; i < tl.n; i++) {
		const struct tl_slice *s = &tl.s[i];
		fputs(",\n{\"name\":", f);
		slice_name(f, rep, s);
		fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", tl_kind_name(s->kind));
		put_us(f, s->start_ns);
		fputs(",\"dur\":", f);
		put_us(f, s->end_ns - s->start_ns);
		fprintf(f, ",\"pid\":%d,\"tid\":%d,\"args\":{", PID, tid);
		slice_args(f, rep, s, run);
		fputs("}}", f);
	}
	timeline_free(&tl);
}

static void thread(FILE *f, const struct report *rep, size_t run, int tid, bool median)
{
	const struct trace *t = rep->t;
	char name[128];
	bool first = false;

	snprintf(name, sizeof name, "%s%zu (%.1f us)", median ? "median run: run " : "run ",
		 run_ordinal(rep, run), trace_run_us(t, &t->run[run]));
	metadata(f, "thread_name", tid, name, &first);
	fprintf(f,
		",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
		"\"args\":{\"sort_index\":%d}}",
		PID, tid, tid);
	run_events(f, rep, run, tid);
}

static void other_data(FILE *f, const struct report *rep)
{
	const struct trace *t = rep->t;

	fputs("\"otherData\":{\"ldprof_version\":\"" LDPROF_VERSION "\",\"command\":", f);
	json_put_string(f, t->argc ? t->argv[0] : t->program);
	fprintf(f, ",\"runs\":%zu,\"median_total_us\":", rep->runs);
	put_num(f, rep->total.median);
	fputs(",\"tsc_hz\":", f);
	put_num(f, t->tsc_hz);
	fputs("}", f);
}

void render_chrome(FILE *f, const struct report *rep, bool all_runs)
{
	const struct trace *t = rep->t;
	size_t median = median_run(rep);
	bool first = true;
	int tid = 1;

	fputs("{\"traceEvents\":[\n", f);
	metadata(f, "process_name", 0, path_basename(t->program), &first);
	for (size_t i = 0; i < t->nrun; i++) {
		if (all_runs ? !run_counted(rep, i) : i != median)
			continue;
		thread(f, rep, i, tid++, i == median);
	}
	if (samples_present(rep))
		render_samples_chrome(f, rep, all_runs, PID, tid);
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n", f);
	other_data(f, rep);
	fputs("}\n", f);
}
