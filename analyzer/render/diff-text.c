/* ldprof diff's output: a text table for people, ldprof-diff/1 JSON for programs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/out/textsafe.h"
#include "model/diff.h"
#include "base/out/json.h"
#include "model/timeline.h"
#include "base/version.h"
#include "render/workload/workload-render.h"

/* A number right-aligned in 10 columns, "-" for NaN. */
static void cell(struct sbuf *sb, double v, const char *fmt)
{
	if (isnan(v))
		sbuf_printf(sb, "%10s", "-");
	else
		sbuf_printf(sb, fmt, v);
}

/* One line, without the padding it would end with. */
static void put_line(FILE *f, struct sbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = 0;
	fprintf(f, "%s\n", sb->len ? sb->buf : "");
	sbuf_free(sb);
}

static const char *status_word(const struct diff_lib *l)
{
	return l->status == DIFF_ADDED ? "added" : l->status == DIFF_REMOVED ? "removed" : "";
}

/* name  before  after  change (pct)  [lo, hi]  * tag */
static void row(FILE *f, const char *name, const struct diff_est *e, const char *tag)
{
	struct sbuf sb = {0};
	char pct[32] = "", ci[64] = "";

	if (!isnan(e->pct))
		snprintf(pct, sizeof pct, "(%+.1f%%)", e->pct);
	if (!isnan(e->lo))
		snprintf(ci, sizeof ci, "[%+.1f, %+.1f]", e->lo, e->hi);
	sbuf_printf(&sb, "  %-24s", name);
	cell(&sb, e->before, "%10.1f");
	cell(&sb, e->after, "%10.1f");
	cell(&sb, e->change, "%+10.1f");
	sbuf_printf(&sb, " %-11s %-20s %-1s %s", pct, ci, e->significant ? "*" : "", tag);
	put_line(f, &sb);
}

static void side_line(FILE *f, const char *label, const char *name, const struct report *rep)
{
	fprintf(f, "  %-7s%s: %s, %zu runs%s\n", label, term_safe(name), term_safe(rep->t->program),
		rep->runs, rep->profiled ? "" : " (no shim data)");
}

static void verdict(FILE *f, const struct diff *d)
{
	const struct diff_threshold *th = &d->threshold;
	char limit[32];

	if (!th->set)
		return;
	if (th->relative)
		snprintf(limit, sizeof limit, "%g%%", th->value);
	else
		snprintf(limit, sizeof limit, "%g us", th->value);
	if (d->regression)
		fprintf(f,
			"\n  REGRESSION: the median total grew by %+.1f%% (%+.1f us), "
			"significantly and by more than --fail-above %s\n",
			d->total.pct, d->total.change, limit);
	else
		fprintf(f, "\n  ok: no significant growth of the median total beyond %s\n", limit);
}

void diff_render_text(FILE *f, const struct diff *d, const char *const names[2])
{
	fprintf(f, "ldprof diff\n");
	side_line(f, "before", names[0], d->rep[0]);
	side_line(f, "after", names[1], d->rep[1]);
	fprintf(f, "\n  %-24s%10s%10s%10s %-11s %s\n", "", "before", "after", "change", "",
		"95% CI");
	row(f, "total", &d->total, "");
	if (d->rep[0]->t->follow && d->rep[1]->t->follow) { /* -f: the workloads, not their tops */
		struct text_style st;
		text_style_for(f, "never", &st);
		fputs("  (us, medians; * significant: the 95% CI of the change excludes 0)\n", f);
		render_workload_compare(f, (const struct trace *const[2]){d->rep[0]->t, d->rep[1]->t},
					(const char *const[2]){"before", "after"}, &st);
		for (size_t i = 0; i < d->nnotes; i++)
			fprintf(f, "  note: %s\n", term_clean(d->notes[i]));
		verdict(f, d);
		return;
	}
	if (d->phases) {
		fputs("\n  phase\n", f);
		for (int p = 0; p < PH_COUNT; p++)
			row(f, phase_name(p), &d->phase[p], "");
		fputs("\n  library\n", f);
		for (size_t i = 0; i < d->nlibs; i++) {
			const struct diff_lib *l = &d->libs[i];
			row(f, term_safe(l->name), &l->est, status_word(l));
		}
	}
	fputs("  (us, medians; * significant: the 95% CI of the change, from a bootstrap over "
	      "each trace's runs, excludes 0)\n",
	      f);
	for (size_t i = 0; i < d->nnotes; i++)
		fprintf(f, "  note: %s\n", term_clean(d->notes[i]));
	verdict(f, d);
}

static void pair(struct json *j, const char *key, double lo, double hi)
{
	if (isnan(lo)) {
		json_null(j, key);
		return;
	}
	json_pair(j, key, lo, hi);
}

static void est_fields(struct json *j, const struct diff_est *e)
{
	json_num(j, "before_us", e->before);
	json_num(j, "after_us", e->after);
	json_num(j, "change_us", e->change);
	json_num(j, "change_pct", e->pct);
	pair(j, "change_us_ci95", e->lo, e->hi);
	if (isnan(e->lo))
		json_null(j, "significant");
	else
		json_bool(j, "significant", e->significant);
}

static void side_obj(struct json *j, const char *key, const char *file, const struct report *rep)
{
	json_obj_open(j, key);
	json_str(j, "file", file);
	json_arr_open(j, "command");
	for (int i = 0; i < rep->t->argc; i++)
		json_str(j, NULL, rep->t->argv[i]);
	json_arr_close(j);
	json_str(j, "program", rep->t->program);
	json_int(j, "runs", (long long)rep->runs);
	json_int(j, "valid_runs", (long long)rep->valid_runs);
	json_str(j, "hostname", rep->t->machine.hostname);
	json_obj_close(j);
}

static void libraries(struct json *j, const struct diff *d)
{
	json_arr_open(j, "libraries");
	for (size_t i = 0; i < d->nlibs; i++) {
		const struct diff_lib *l = &d->libs[i];
		json_obj_open(j, NULL);
		json_str(j, "name", l->name);
		json_str(j, "status", l->status == DIFF_BOTH ? "both" : status_word(l));
		json_str(j, "before_path", l->obj[0] ? l->obj[0]->path : NULL);
		json_str(j, "after_path", l->obj[1] ? l->obj[1]->path : NULL);
		est_fields(j, &l->est);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void threshold(struct json *j, const struct diff *d)
{
	if (!d->threshold.set) {
		json_null(j, "fail_above");
		return;
	}
	json_obj_open(j, "fail_above");
	json_num(j, d->threshold.relative ? "pct" : "us", d->threshold.value);
	json_obj_close(j);
}

void diff_render_json(FILE *f, const struct diff *d, const char *const names[2])
{
	struct json j;

	json_begin(&j, f);
	json_obj_open(&j, NULL);
	json_str(&j, "schema", "ldprof-diff/1");
	json_str(&j, "ldprof_version", LDPROF_VERSION);
	side_obj(&j, "before", names[0], d->rep[0]);
	side_obj(&j, "after", names[1], d->rep[1]);
	json_obj_open(&j, "total");
	est_fields(&j, &d->total);
	json_obj_close(&j);
	json_arr_open(&j, "phases");
	for (int p = 0; d->phases && p < PH_COUNT; p++) {
		json_obj_open(&j, NULL);
		json_str(&j, "name", phase_name(p));
		est_fields(&j, &d->phase[p]);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	libraries(&j, d);
	threshold(&j, d);
	json_bool(&j, "regression", d->regression);
	json_arr_open(&j, "notes");
	for (size_t i = 0; i < d->nnotes; i++)
		json_str(&j, NULL, d->notes[i]);
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
}
