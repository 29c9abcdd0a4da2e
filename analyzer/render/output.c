#include "render/output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/render.h"

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

struct job {
	const struct out_opts *o;
	const struct report *rep;
};

static int render_job(FILE *f, void *arg, struct errbuf *err)
{
	const struct job *j = arg;

	return render(f, j->o, j->rep, err);
}

int out_write(const struct out_opts *o, const struct report *rep, struct errbuf *err)
{
	struct job j = {o, rep};

	return write_atomic(o->path, render_job, &j, err);
}
