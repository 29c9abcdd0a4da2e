/* Rendering a comparison: text for people, "ldprof-compare/1" JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/out/textsafe.h"
#include "model/compare.h"
#include "base/out/json.h"
#include "render/output.h"
#include "render/render.h"
#include "render/workload/workload-render.h"

struct job {
	const struct out_opts *o;
	const struct compare *c;
};

static void cmdline(FILE *f, const struct trace *t)
{
	for (int i = 0; i < t->argc; i++)
		fprintf(f, "%s%s", i ? " " : "", term_safe(t->argv[i]));
}

static void side_line(FILE *f, const struct compare *c, int s, const struct text_style *st)
{
	const struct summary *p = &c->plain[s];

	fprintf(f, "  %s%c%s  %9.1f %s  [%.1f, %.1f]  %-19s ", st->color ? "\033[1m" : "", "AB"[s],
		st -> color ? "\033[0m" : "", p->median, st->utf8 ? "\u00b5s" : "us", p->ci_lo,
		p->ci_hi, elf_kind_name(c->t[s]->kind));
	cmdline(f, c->t[s]);
	fputc('\n', f);
}

/*
 * How a side's runs ended, when not all with exit status 0, as run says it:
 * "A: killed by SIGSEGV in every run". Its times are then of a failing start.
 */
static void outcome_line(FILE *f, const struct compare *c, int s)
{
	const struct report *rep = &c->rep[s];
	bool clean = true;

	for (size_t i = 0; i < rep->noutcomes; i++)
		clean = clean && WIFEXITED(rep->outcomes[i].wait_status) &&
			WEXITSTATUS(rep->outcomes[i].wait_status) == 0;
	if (clean)
		return;
	fprintf(f, "  %c: ", "AB"[s]);
	for (size_t i = 0; i < rep->noutcomes; i++) {
		char *d = describe_status(rep->outcomes[i].wait_status);
		if (rep->noutcomes == 1)
			fprintf(f, "%s in every run", d);
		else
			fprintf(f, "%s%s in %zu runs", i ? ", " : "", d, rep->outcomes[i].runs);
		free(d);
	}
	fputc('\n', f);
}

static void phase_rows(FILE *f, const struct compare *c)
{
	if (c->t[0]->is_static && c->t[1]->is_static)
		return;
	fprintf(f, "\n  %-10s %10s %10s %10s  %-22s\n", "phase", "A", "B", "B-A", "95% CI of B-A");
	for (int p = 0; p < PH_COUNT; p++) {
		const struct phase_delta *d = &c->phase[p];
		char a[32], b[32], diff[32] = "-", ci[64] = "";
		snprintf(a, sizeof a, isnan(d->a_us) ? "-" : "%.1f", d->a_us);
		snprintf(b, sizeof b, isnan(d->b_us) ? "-" : "%.1f", d->b_us);
		if (d->known) {
			snprintf(diff, sizeof diff, "%+.1f", d->diff.median);
			snprintf(ci, sizeof ci, "[%+.1f, %+.1f]%s", d->diff.lo, d->diff.hi,
				 d->significant ? " *" : "");
		}
		fprintf(f, "  %-10s %10s %10s %10s  %s\n", phase_name(p), a, b, diff, ci);
	}
	fprintf(f, "  (phases of the profiled runs%s; * the difference is significant)\n",
		c->t[0]->is_static || c->t[1]->is_static ? "; a static side has none" : "");
}

static void only_rows(FILE *f, const struct compare *c)
{
	for (int s = 0; s < 2; s++) {
		bool any = false;
		for (size_t i = 0; i < c->nonly; i++) {
			const struct lib_only *lo = &c->only[i];
			if (lo->side != s)
				continue;
			if (!any)
				fprintf(f, "\n  only %c pays for:\n", "AB"[s]);
			any = true;
			fprintf(f,
				"    %-44s %8.1f per exec (load %.1f, reloc %.1f, init %.1f, fini "
				"%.1f)\n",
				term_safe(c->t[s]->obj[lo->obj->obj].path), lo->obj->total.median,
				lo->obj->load.median, lo->obj->reloc.median, lo->obj->init.median,
				lo->obj->fini.median);
		}
	}
}

/*
 * When the scheduler preempted some runs: the longer program is preempted
 * more often, which widens the difference (model/sched-state.h).
 */
static void sched_line(FILE *f, const struct compare *c)
{
	const struct sched_state *a = &c->rep[0].sched, *b = &c->rep[1].sched;

	if (!a->preempted && !b->preempted)
		return;
	fprintf(f,
		"  (the scheduler preempted %.0f%% of A's runs and %.0f%% of B's for another task: "
		"on a busy machine the longer program is preempted more often)\n",
		sched_state_pct(a), sched_state_pct(b));
}

static int render_text_compare(FILE *f, void *arg, struct errbuf *err)
{
	const struct job *j = arg;
	const struct compare *c = j->c;
	struct text_style st;

	(void)err;
	text_style_for(f, j->o->color, &st);
	side_line(f, c, 0, &st);
	side_line(f, c, 1, &st);
	outcome_line(f, c, 0);
	outcome_line(f, c, 1);
	fprintf(f, "\n  B/A  %.3fx  95%% CI [%.3f, %.3f]\n", c->ratio.median, c->ratio.lo,
		c->ratio.hi);
	fprintf(f, "  B-A  %+.1f %s  95%% CI [%+.1f, %+.1f]  %s\n", c->diff.median,
		st.utf8 ? "\u00b5s" : "us", c->diff.lo, c->diff.hi,
		c->significant ? "significant" : "not significant (the CI includes 0)");
	fprintf(f,
		"  (medians of %zu plain runs of each, interleaved A B A B; timed from the last "
		"timestamp before execve to reaping)\n",
		c->pairs);
	sched_line(f, c);
	if (c->t[0]->follow && c->t[1]->follow) { /* -f: the workloads, not their top processes */
		render_workload_compare(f, c->t, (const char *const[2]){"A", "B"}, &st);
		return 0;
	}
	phase_rows(f, c);
	only_rows(f, c);
	return 0;
}

static void interval(struct json *j, const char *key, const struct interval *v)
{
	json_obj_open(j, key);
	json_num(j, "median", v->median);
	json_pair(j, "ci95", v->lo, v->hi);
	json_obj_close(j);
}

static void json_phases(struct json *j, const struct compare *c)
{
	json_arr_open(j, "phases");
	for (int p = 0; p < PH_COUNT; p++) {
		const struct phase_delta *d = &c->phase[p];
		json_obj_open(j, NULL);
		json_str(j, "name", phase_name(p));
		json_num(j, "a_us", d->a_us);
		json_num(j, "b_us", d->b_us);
		if (d->known) {
			interval(j, "diff_us", &d->diff);
			json_bool(j, "significant", d->significant);
		} else {
			json_null(j, "diff_us");
			json_null(j, "significant");
		}
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_only(struct json *j, const struct compare *c, int side, const char *key)
{
	json_arr_open(j, key);
	for (size_t i = 0; i < c->nonly; i++) {
		const struct lib_only *lo = &c->only[i];
		if (lo->side != side)
			continue;
		json_obj_open(j, NULL);
		json_str(j, "path", c->t[side]->obj[lo->obj->obj].path);
		json_str(j, "soname", c->t[side]->obj[lo->obj->obj].soname);
		json_num(j, "total_us", lo->obj->total.median);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_workloads(struct json *j, const struct compare *c)
{
	static const char *const keys[2] = {"workload_a", "workload_b"};
	struct workload w;

	for (int s = 0; s < 2; s++) {
		workload_build(c->t[s], &w);
		render_workload_json_obj(j, keys[s], &w);
		workload_free(&w);
	}
}

static int render_json_compare(FILE *f, void *arg, struct errbuf *err)
{
	const struct compare *c = ((const struct job *)arg)->c;
	struct json j;

	(void)err;
	json_begin(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, "schema", "ldprof-compare/1");
	render_json_obj(&j, "a", &c->rep[0]);
	render_json_obj(&j, "b", &c->rep[1]);
	json_int(&j, "pairs", (long long)c->pairs);
	interval(&j, "a_total_us",
		 &(struct interval){c->plain[0].median, c->plain[0].ci_lo, c->plain[0].ci_hi});
	interval(&j, "b_total_us",
		 &(struct interval){c->plain[1].median, c->plain[1].ci_lo, c->plain[1].ci_hi});
	interval(&j, "ratio", &c->ratio);
	interval(&j, "diff_us", &c->diff);
	json_bool(&j, "significant", c->significant);
	json_phases(&j, c);
	json_only(&j, c, 0, "only_a");
	json_only(&j, c, 1, "only_b");
	if (c->t[0]->follow && c->t[1]->follow) /* -f: each side's whole workload */
		json_workloads(&j, c);
	json_obj_close(&j);
	json_end(&j);
	return 0;
}

static int render_hyperfine_compare(FILE *f, void *arg, struct errbuf *err)
{
	const struct compare *c = ((const struct job *)arg)->c;

	(void)err;
	render_hyperfine_plain(f, c->t, 2);
	return 0;
}

int compare_write(const struct out_opts *o, const struct compare *c, struct errbuf *err)
{
	struct job j = {o, c};

	switch (o->format) {
	case OUT_JSON:
		return write_atomic(o->path, render_json_compare, &j, err);
	case OUT_HYPERFINE:
		return write_atomic(o->path, render_hyperfine_compare, &j, err);
	default:
		return write_atomic(o->path, render_text_compare, &j, err);
	}
}
