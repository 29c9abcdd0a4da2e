/* ldprof record: profile like run, and save the trace to a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "model/model.h"
#include "trace/machine.h"
#include "trace/tracefile.h"

extern char **environ;

const char usage_record[] =
	"usage: ldprof record -o FILE [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM exactly like 'ldprof run' and save every run's events, the\n"
	"machine, the LD_* environment and each object's facts and identity\n"
	"(build-id, size, mtime) to FILE. 'ldprof report FILE' then shows the\n"
	"report in any format, and 'ldprof diff' compares two traces, on any\n"
	"machine and without the binaries.\n";

const char epilogue_record[] =
	"\n"
	"Exit status: 0 when the trace was written, 1 when the program could not be\n"
	"run or FILE could not be written, 2 for bad options or a bad PROGRAM.\n";

static void print_summary(const char *path, const struct trace *t)
{
	struct stat st;
	double kib = stat(path, &st) == 0 ? (double)st.st_size / 1024 : 0;

	fprintf(stderr, "ldprof record: wrote %zu runs of %s to %s (%.1f KiB)\n", t->nrun,
		t->program, path, kib);
	if (t->sampling && t->sampling->runs)
		fprintf(stderr, "  with %zu samples from %zu sampled runs (--sample)\n",
			t->sampling->n, t->sampling->runs);
}

int cmd_record(const struct command *cmd, int argc, char **argv)
{
	struct profile_opts p;
	const char *path = NULL;
	struct trace t = {0};
	struct errbuf err;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		OPT_OUTPUT(&path, "the trace file to write (atomically); required"),
		PROFILE_OPTIONS(&p),
		SAMPLE_OPTIONS(&p),
		OPT_HELP(),
		OPT_END(),
	};
	int first, r;

	profile_opts_defaults_verdict(&p);
	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	p.sample = p.sample || p.sample_required;
	if (p.sample && p.follow)
		return usage_error(cmd->name,
				   "--sample: not available with -f (one process is sampled)");
	if (!path)
		return usage_error("record", "no trace file given (-o FILE)");
	r = model_profile_program(&p, argc - first, argv + first, &t);
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
	r = profile_sample_status(&p, &t, r);
	trace_free(&t);
	return r;
}
