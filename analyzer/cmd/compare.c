/* ldprof compare: two programs side by side, interleaved, with the verdict of the numbers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "model/compare.h"
#include "model/model.h"
#include "base/out/json.h"
#include "cmd/common-options.h"
#include "render/render.h"
#include "base/words.h"

const char usage_compare[] =
	"usage: ldprof compare [OPTIONS] PROGRAM_A PROGRAM_B -- [ARGS...]\n"
	"       ldprof compare [OPTIONS] 'COMMAND A' 'COMMAND B'\n"
	"\n"
	"Run two programs interleaved (A B A B ...) and compare their start-up: the\n"
	"ratio B/A and the difference B-A of the median totals with 95% CIs (paired\n"
	"bootstrap), whether the difference is significant, the per-phase differences\n"
	"(dynamic sides) and the libraries only one side pays for. Both sides are timed\n"
	"alike without the shim, from the last timestamp before execve to reaping, so a\n"
	"static and a dynamic program compare fairly; dynamic sides also get profiled\n"
	"runs for their phases. In the first form both programs get the ARGS after\n"
	"--; in the second each quoted command line is split into words (quotes and\n"
	"backslashes as in sh, no expansion).\n";

const char epilogue_compare[] =
	"\n"
	"Exit status: 0 when the comparison was printed, 1 when a program could not be\n"
	"run, 2 for bad options or input.\n";

/* Build the two command lines from either form; -1 on a usage error. */
static int commands_of(int n, char **op, struct profile_cmd cmd[2], char **words[2])
{
	struct errbuf err;

	if (n >= 3 && !strcmp(op[2], "--")) {
		int nargs = n - 3;
		for (int s = 0; s < 2; s++) {
			words[s] = xcalloc((size_t)nargs + 2, sizeof *words[s]);
			words[s][0] = op[s];
			memcpy(words[s] + 1, op + 3, (size_t)nargs * sizeof *op);
			cmd[s] = (struct profile_cmd){nargs + 1, words[s]};
		}
		return 0;
	}
	if (n != 2) {
		usage_error("compare", "want PROGRAM_A PROGRAM_B -- ARGS, or two quoted commands");
		return -1;
	}
	for (int s = 0; s < 2; s++) {
		size_t nw;
		if (split_words(op[s], &words[s], &nw, &err)) {
			usage_error("compare", "'%s': %s", op[s], err.msg);
			return -1;
		}
		if (!nw) {
			usage_error("compare", "an empty command");
			return -1;
		}
		cmd[s] = (struct profile_cmd){(int)nw, words[s]};
	}
	return 0;
}

int cmd_compare(const struct command *cmd, int argc, char **argv)
{
	struct profile_opts p;
	struct out_opts out = {0};
	struct profile_cmd lines[2];
	char **words[2] = {NULL, NULL};
	struct trace t[2];
	struct compare c;
	struct errbuf err;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		PROFILE_OPTIONS(&p),
		OPT_FORMAT(&out.format,
			   FORMAT_BIT(OUT_TEXT) | FORMAT_BIT(OUT_JSON) | FORMAT_BIT(OUT_HYPERFINE),
			   "text (default), json (schema ldprof-compare/1) or\n"
			   "hyperfine (each side's plain runs, as hyperfine\n"
			   "--export-json)"),
		OPT_JSON(&out.format),
		OPT_OUTPUT(&out.path, "write there (atomically) instead of to standard output"),
		OPT_COLOR(&out.color),
		OPT_HELP(),
		OPT_END(),
	};
	int first, r;

	profile_opts_defaults_verdict(&p);
	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	if (commands_of(argc - first, argv + first, lines, words))
		return EXIT_USAGE;
	memset(t, 0, sizeof t);
	r = model_profile_programs(&p, 2, lines, t, true);
	if (r == EXIT_OK) {
		compare_build(&t[0], &t[1], &c);
		if (compare_write(&out, &c, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
		}
		compare_free(&c);
	}
	for (int s = 0; s < 2; s++) {
		trace_free(&t[s]);
		free(words[s]);
	}
	return r;
}
