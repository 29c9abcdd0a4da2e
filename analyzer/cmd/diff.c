/* ldprof diff: compare two saved traces; a CI gate for startup regressions. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "model/diff.h"
#include "model/saved.h"

const char usage_diff[] =
	"usage: ldprof diff [OPTIONS] BEFORE AFTER\n"
	"\n"
	"Compare two traces written by 'ldprof record': the median total, each phase\n"
	"and each library before and after, the change, and whether it is significant\n"
	"(the 95% CI of the change, from a bootstrap over each trace's runs, excludes\n"
	"0). Libraries are matched by soname; added and removed ones are listed.\n";

const char epilogue_diff[] =
	"\n"
	"Exit status: 0 when the traces were compared and no regression beyond\n"
	"--fail-above was found, 1 for such a regression, 2 for bad options, a file\n"
	"that is not a readable trace, or an output error.\n";

static int threshold(void *value, const char *arg, struct errbuf *err)
{
	if (diff_parse_threshold(arg, value))
		return set_err(err, EINVAL,
			       "--fail-above wants a percentage (5%%) or a time (150us, 0.2ms), "
			       "not '%s'",
			       arg);
	return 0;
}

struct render_args {
	const struct diff *d;
	const char *const *names;
	enum out_format format;
};

/* Exit 1 means a regression here, so a write error must be told apart: write_atomic checks. */
static int render(FILE *f, void *arg, struct errbuf *err)
{
	const struct render_args *a = arg;

	(void)err;
	if (a->format == OUT_JSON)
		diff_render_json(f, a->d, a->names);
	else
		diff_render_text(f, a->d, a->names);
	return 0;
}

/* Both traces, each with its warning when cut short; EXIT_USAGE when one is unreadable. */
static int open_both(char **files, struct trace t[2], struct report rep[2])
{
	struct tracefile_info info;
	struct errbuf err;
	int r = EXIT_OK;

	for (int k = 0; k < 2; k++) {
		if (saved_trace_open(files[k], &t[k], &info, &rep[k], &err)) {
			error_msg("%s", err.msg);
			r = EXIT_USAGE;
		} else if (info.warning[0]) {
			warn_msg("%s: %s", files[k], info.warning);
		}
		if (r)
			break;
	}
	return r;
}

int cmd_diff(const struct command *cmd, int argc, char **argv)
{
	struct diff_threshold th = {0};
	struct out_opts out = {0};
	struct trace t[2] = {{0}};
	struct report rep[2] = {{0}};
	struct diff d;
	struct errbuf err;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		OPT_CALLBACK(0, "fail-above", "T", &th, threshold,
			     "exit 1 when the median total grew significantly and by\n"
			     "more than T: a percentage (5%) or a time (150us, 0.2ms)"),
		OPT_FORMAT(&out.format, FORMAT_BIT(OUT_TEXT) | FORMAT_BIT(OUT_JSON),
			   "text (default) or json (schema ldprof-diff/1)"),
		OPT_JSON(&out.format),
		OPT_OUTPUT(&out.path, "write there (atomically) instead of to standard output"),
		OPT_HELP(),
		OPT_END(),
	};
	int first, r;

	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	char **files = argv + first;
	if ((r = open_both(files, t, rep)) == EXIT_OK) {
		const char *names[2] = {files[0], files[1]};
		struct render_args a = {&d, names, out.format};
		diff_build(&rep[0], &rep[1], &th, &d);
		if (write_atomic(out.path, render, &a, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_USAGE;
		} else {
			r = d.regression ? EXIT_FAIL : EXIT_OK;
		}
		diff_free(&d);
	}
	for (int k = 0; k < 2; k++)
		saved_trace_free(&t[k], &rep[k]);
	return r;
}
