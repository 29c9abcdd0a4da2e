#include "render/output.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "render/render.h"

static const char *const format_names[] = {
	[OUT_TEXT] = "text",	       [OUT_JSON] = "json",	[OUT_CSV] = "csv",
	[OUT_HYPERFINE] = "hyperfine", [OUT_CHROME] = "chrome", [OUT_FOLDED] = "folded",
	[OUT_HTML] = "html",
};

int out_option(int c, const char *arg, struct out_opts *o, const char *cmd)
{
	switch (c) {
	case OUT_OPT_FORMAT:
		for (size_t i = 0; i < ARRAY_SIZE(format_names); i++) {
			if (!strcmp(arg, format_names[i])) {
				o->format = (enum out_format)i;
				return 1;
			}
		}
		usage_error(cmd,
			    "unknown format '%s' (text, json, csv, hyperfine, chrome, folded, "
			    "html)",
			    arg);
		return -1;
	case OUT_OPT_JSON:
		o->format = OUT_JSON;
		return 1;
	case OUT_OPT_COLOR:
		if (strcmp(arg, "auto") && strcmp(arg, "always") && strcmp(arg, "never")) {
			usage_error(cmd, "--color wants auto, always or never");
			return -1;
		}
		o->color = arg;
		return 1;
	case OUT_OPT_ALL_RUNS:
		o->all_runs = true;
		return 1;
	case 'o':
		o->path = arg;
		return 1;
	default:
		return 0;
	}
}

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

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
