/* ldprof diff: compare two saved traces; a CI gate for startup regressions. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "model/diff.h"
#include "model/saved.h"

const char usage_diff[] =
	"usage: ldprof diff [OPTIONS] BEFORE AFTER\n"
	"\n"
	"Compare two traces written by 'ldprof record': the median total, each phase\n"
	"and each library before and after, the change, and whether it is significant\n"
	"(the 95% CI of the change, from a bootstrap over each trace's runs, excludes\n"
	"0). Libraries are matched by soname; added and removed ones are listed.\n"
	"\n"
	"Options:\n"
	"      --fail-above T  exit 1 when the median total grew significantly and by\n"
	"                      more than T: a percentage (5%) or a time (150us, 0.2ms)\n"
	"      --format FMT    text (default) or json (schema ldprof-diff/1)\n"
	"      --json          the same as --format json\n"
	"  -o, --output FILE   write there (atomically) instead of to standard output\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when the traces were compared and no regression beyond\n"
	"--fail-above was found, 1 for such a regression, 2 for bad options, a file\n"
	"that is not a readable trace, or an output error.\n";

enum { OPT_FAIL_ABOVE = 3000, OPT_FORMAT, OPT_JSON };

static const struct option long_opts[] = {
	{"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"json", no_argument, NULL, OPT_JSON},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct diff_opts {
	struct diff_threshold th;
	bool json;
	const char *out;
};

static int option(int c, const char *arg, struct diff_opts *o)
{
	switch (c) {
	case OPT_FAIL_ABOVE:
		if (diff_parse_threshold(arg, &o->th))
			return usage_error("diff",
					   "--fail-above wants a percentage (5%%) or a time "
					   "(150us, 0.2ms), not '%s'",
					   arg);
		return -1;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			return usage_error("diff", "--format wants text or json, not '%s'", arg);
		o->json = !strcmp(arg, "json");
		return -1;
	case OPT_JSON:
		o->json = true;
		return -1;
	case 'o':
		o->out = arg;
		return -1;
	default:
		return EXIT_USAGE;
	}
}

/* Returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct diff_opts *o)
{
	int c, r;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", long_opts, NULL)) != -1) {
		if (c == 'h')
			return print_usage(find_command("diff"), stdout);
		if (c == ':')
			return usage_error("diff", "option '%s' needs a value", argv[optind - 1]);
		if (c == '?')
			return usage_error("diff", "unknown option '%s'", argv[optind - 1]);
		if ((r = option(c, optarg, o)) >= 0)
			return r;
	}
	if (argc - optind != 2)
		return usage_error("diff", "two trace files wanted (BEFORE AFTER), got %d",
				   argc - optind);
	return -1;
}

struct render_args {
	const struct diff *d;
	const char *const *names;
	bool json;
};

/* Exit 1 means a regression here, so a write error must be told apart: write_atomic checks. */
static int render(FILE *f, void *arg, struct errbuf *err)
{
	const struct render_args *a = arg;

	(void)err;
	if (a->json)
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

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {0};
	struct trace t[2] = {{0}};
	struct report rep[2] = {{0}};
	struct diff d;
	struct errbuf err;
	int r = parse(argc, argv, &o);

	if (r >= 0)
		return r;
	char **files = argv + optind;
	if ((r = open_both(files, t, rep)) == EXIT_OK) {
		const char *names[2] = {files[0], files[1]};
		struct render_args a = {&d, names, o.json};
		diff_build(&rep[0], &rep[1], &o.th, &d);
		if (write_atomic(o.out, render, &a, &err)) {
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
