/* ldprof record: profile like run, and save the trace to a file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "model/model.h"
#include "run/machine.h"
#include "render/output.h"
#include "run/profile.h"
#include "run/tracefile.h"

extern char **environ;

const char usage_record[] =
	"usage: ldprof record -o FILE [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM exactly like 'ldprof run' and save every run's events, the\n"
	"machine, the LD_* environment and each object's facts and identity\n"
	"(build-id, size, mtime) to FILE. 'ldprof report FILE' then shows the\n"
	"report in any format, and 'ldprof diff' compares two traces, on any\n"
	"machine and without the binaries.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE   the trace file to write (atomically); required\n" PROFILE_USAGE
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when the trace was written, 1 when the program could not be\n"
	"run or FILE could not be written, 2 for bad options or a bad PROGRAM.\n";

static const struct option long_opts[] = {
	PROFILE_LONG_OPTIONS,
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void print_summary(const char *path, const struct trace *t)
{
	struct stat st;
	double kib = stat(path, &st) == 0 ? (double)st.st_size / 1024 : 0;

	fprintf(stderr, "ldprof record: wrote %zu runs of %s to %s (%.1f KiB)\n", t->nrun,
		t->program, path, kib);
}

int cmd_record(int argc, char **argv)
{
	struct profile_opts p;
	struct out_opts out = {0}; /* only -o: the trace file */
	struct trace t = {0};
	struct errbuf err;
	int r = profile_parse(argc, argv, "record", long_opts, &p, &out);
	const char *path = out.path;

	if (r >= 0)
		return r;
	if (!path)
		return usage_error("record", "no trace file given (-o FILE)");
	if (optind >= argc)
		return usage_error("record", "no program given");
	r = model_profile_program(&p, argc - optind, argv + optind, &t);
	if (r == EXIT_OK) {
		/* Right after the runs, so the identities are of the files that ran. */
		trace_record_identities(&t);
		trace_record_context(&t, environ);
		if (tracefile_write(path, &t, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
		} else {
			print_summary(path, &t);
		}
	}
	trace_free(&t);
	return r;
}
