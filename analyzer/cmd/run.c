/* ldprof [run]: profile a program's startup over many runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analyze.h"
#include "cmd/commands.h"
#include "model/model.h"
#include "render/output.h"
#include "run/profile.h"

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

int cmd_run(int argc, char **argv)
{
	struct profile_opts p;
	struct out_opts out = {0};
	struct trace t = {0};
	struct report rep;
	struct errbuf err;
	int r = profile_parse(argc, argv, "run", long_opts, &p, &out);

	if (r >= 0)
		return r;
	if (optind >= argc)
		return usage_error("run", "no program given");
	r = model_profile_program(&p, argc - optind, argv + optind, &t);
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
