/* ldprof [run]: profile a program's startup over many runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "model/analyze.h"
#include "model/model.h"

const char usage_run[] =
	"usage: ldprof [run] [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM many times under ldprof's shim (LD_AUDIT) and show where its\n"
	"startup went, per phase and per library, with 95% confidence intervals.\n"
	"Plain runs are interleaved to measure the shim's own cost.\n";

const char epilogue_run[] =
	"\n"
	"Exit status: 0 when a report was printed (whatever the program's own status),\n"
	"1 when the program could not be run, 2 for bad options or a bad PROGRAM.\n";

int cmd_run(const struct command *cmd, int argc, char **argv)
{
	struct profile_opts p;
	struct out_opts out = {0};
	struct trace t = {0};
	struct report rep;
	struct errbuf err;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		PROFILE_OPTIONS(&p),
		SAMPLE_OPTIONS(&p),
		REPORT_OUTPUT_OPTIONS(&out),
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
	if (p.follow && out.format == OUT_FOLDED) { /* said before the runs, not after */
		error_msg("--format folded: not available with -f (use chrome or json)");
		return EXIT_USAGE;
	}
	r = model_profile_program(&p, argc - first, argv + first, &t);
	if (r == EXIT_OK) {
		report_build(&t, &rep);
		if (out_write(&out, &rep, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
		}
		report_free(&rep);
	}
	r = profile_sample_status(&p, &t, r);
	trace_free(&t);
	return r;
}
