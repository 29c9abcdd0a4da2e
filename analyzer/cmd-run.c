/* ldprof [run]: profile a program's startup over many runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "commands.h"
#include "output.h"
#include "profile.h"

const char usage_run[] =
	"usage: ldprof [run] [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM many times under ldprof's shim (LD_AUDIT) and show where its\n"
	"startup went, per phase and per library, with 95% confidence intervals.\n"
	"Plain runs are interleaved to measure the shim's own cost.\n"
	"\n"
	"Options:\n" PROFILE_USAGE OUT_USAGE "  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when a report was printed (whatever the program's own status),\n"
	"1 when the program could not be run, 2 for bad options or a bad PROGRAM.\n";

static const struct option long_opts[] = {
	PROFILE_LONG_OPTIONS,
	OUT_LONG_OPTIONS,
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct profile_opts *p, struct out_opts *out)
{
	int c, handled;

	profile_opts_defaults(p);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+" PROFILE_SHORT_OPTIONS "o:h", long_opts, NULL)) !=
	       -1) {
		if ((handled = profile_option(c, optarg, p, "run")) ||
		    (handled = out_option(c, optarg, out, "run"))) {
			if (handled < 0)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'h':
			return print_usage(find_command("run"), stdout);
		case ':':
			return usage_error("run", "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("run", "no program given");
	return -1;
}

int cmd_run(int argc, char **argv)
{
	struct profile_opts p;
	struct out_opts out = {0};
	struct trace t = {0};
	struct report rep;
	struct errbuf err;
	int r = parse(argc, argv, &p, &out);

	if (r >= 0)
		return r;
	r = profile_program(&p, argc - optind, argv + optind, &t);
	if (r == EXIT_OK) {
		report_build(&t, &rep);
		if (out_write(&out, &rep, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
		}
		report_free(&rep);
	}
	trace_free(&t);
	return r;
}
