#include "render/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/render.h"
#include "render/workload/workload-render.h"

const char *const out_format_names[] = {
	[OUT_TEXT] = "text",	       [OUT_JSON] = "json",	[OUT_CSV] = "csv",
	[OUT_HYPERFINE] = "hyperfine", [OUT_CHROME] = "chrome", [OUT_FOLDED] = "folded",
	[OUT_HTML] = "html",	       [OUT_HTML + 1] = NULL,
};

static int render(FILE *f, const struct out_opts *o, const struct report *rep, struct errbuf *err)
{
	struct text_style st;

	switch (o->format) {
	case OUT_TEXT:
		text_style_for(f, o->color, &st);
		render_text(f, rep, &st);
		return 0;
	case OUT_JSON:
		render_json(f, rep);
		return 0;
	case OUT_CSV:
		render_csv(f, rep);
		return 0;
	case OUT_HYPERFINE:
		render_hyperfine(f, rep);
		return 0;
	case OUT_CHROME:
		render_chrome(f, rep, o->all_runs);
		return 0;
	case OUT_FOLDED:
		render_folded(f, rep, o->all_runs);
		return 0;
	case OUT_HTML:
		render_html(f, rep);
		return 0;
	default:
		return set_err(err, ENOTSUP, "--format: unknown format %d", (int)o->format);
	}
}

/*
 * What a saved trace's report says about the file itself (cut short,
 * recorded elsewhere, binaries changed since: model/saved.c adds them
 * after report_build's own notes), carried into the workload report;
 * report_build's own notes are about the top process alone.
 */
static void add_file_notes(struct workload *w, const struct report *rep)
{
	struct report again;

	report_build(rep->t, &again);
	for (size_t i = again.nnotes; i < rep->nnotes; i++)
		workload_add_note(w, rep->notes[i]);
	report_free(&again);
}

/* With -f: the workload report, from the runs' trees (model/workload.h). */
static int render_workload(FILE *f, const struct out_opts *o, const struct report *rep,
			   struct errbuf *err)
{
	struct workload w;
	struct text_style st;
	int r = 0;

	if (o->format == OUT_HYPERFINE)
		return render(f, o, rep, err); /* the totals of the whole command */
	if (o->format == OUT_FOLDED)
		return set_err(err, ENOTSUP,
			       "--format folded: not available with -f (use chrome or json)");
	workload_build(rep->t, &w);
	add_file_notes(&w, rep);
	switch (o->format) {
	case OUT_TEXT:
		text_style_for(f, o->color, &st);
		render_workload_text(f, &w, &st);
		break;
	case OUT_JSON:
		render_workload_json(f, &w);
		break;
	case OUT_CSV:
		render_workload_csv(f, &w);
		break;
	case OUT_CHROME:
		render_workload_chrome(f, &w, o->all_runs);
		break;
	case OUT_HTML:
		render_workload_html(f, &w);
		break;
	default:
		r = set_err(err, ENOTSUP, "--format: unknown format %d", (int)o->format);
	}
	workload_free(&w);
	return r;
}

struct job {
	const struct out_opts *o;
	const struct report *rep;
};

static int render_job(FILE *f, void *arg, struct errbuf *err)
{
	const struct job *j = arg;

	if (j->rep->t && j->rep->t->follow)
		return render_workload(f, j->o, j->rep, err);
	return render(f, j->o, j->rep, err);
}

int out_write(const struct out_opts *o, const struct report *rep, struct errbuf *err)
{
	struct job j = {o, rep};

	return write_atomic(o->path, render_job, &j, err);
}
