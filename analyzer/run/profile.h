/*
 * Profiling a program: the options every command that runs programs takes
 * (run, record, and later compare), and the run loop from a command line to
 * an in-memory trace.
 */
#ifndef LDPROF_PROFILE_H
#define LDPROF_PROFILE_H

#include <getopt.h>
#include <stdbool.h>

#include "run/runner.h"
#include "run/trace.h"

struct profile_opts {
	struct run_plan plan;
	bool show_output;
	bool preload;
	bool symbind;
	double timeout_s;
};

enum {
	PROF_OPT_SHOW_OUTPUT = 900,
	PROF_OPT_TIMEOUT,
	PROF_OPT_MAX_TIME,
	PROF_OPT_NO_OVERHEAD,
	PROF_OPT_PRELOAD,
	PROF_OPT_SYMBIND,
};

#define PROFILE_SHORT_OPTIONS "n:w:"
#define PROFILE_LONG_OPTIONS                                                                       \
	{"runs", required_argument, NULL, 'n'}, {"warmup", required_argument, NULL, 'w'},          \
		{"max-time", required_argument, NULL, PROF_OPT_MAX_TIME},                          \
		{"no-overhead", no_argument, NULL, PROF_OPT_NO_OVERHEAD},                          \
		{"preload", no_argument, NULL, PROF_OPT_PRELOAD},                                  \
		{"symbind", no_argument, NULL, PROF_OPT_SYMBIND},                                  \
		{"timeout", required_argument, NULL, PROF_OPT_TIMEOUT},                            \
	{                                                                                          \
		"show-output", no_argument, NULL, PROF_OPT_SHOW_OUTPUT                             \
	}
#define PROFILE_USAGE                                                                              \
	"  -n, --runs N        exactly N counted runs (default: adaptive, at least 20,\n"          \
	"                      until the median total is known to +-1% or ~3 s pass,\n"            \
	"                      at most 1000)\n"                                                    \
	"  -w, --warmup N      N uncounted runs first (default 3)\n"                               \
	"      --max-time SEC  adaptive mode: stop after about SEC seconds (default 3)\n"          \
	"      --no-overhead   do not interleave plain runs (halves the work)\n"                   \
	"      --preload       see main and exit through an LD_PRELOAD library instead\n"          \
	"                      of patching GOT slots (costs one more mapped object)\n"             \
	"      --symbind       also time each BIND_NOW object's PLT binding with\n"                \
	"                      la_symbind64, to check the relocation model (slower)\n"             \
	"      --timeout SEC   kill a run after SEC seconds (default 60)\n"                        \
	"      --show-output   let the program write to the terminal (default: its\n"              \
	"                      stdout and stderr go to /dev/null; stdin is /dev/null)\n"

void profile_opts_defaults(struct profile_opts *o);

/* One getopt result: 1 if it was a profiling option, 0 if not, -1 on a usage error. */
int profile_option(int c, const char *arg, struct profile_opts *o, const char *cmd);

struct out_opts;
/*
 * The option loop of a command that runs programs (run, record, compare):
 * long_opts holds PROFILE_LONG_OPTIONS, its output options and "help";
 * -o is accepted. Stops at the first operand. Returns -1 to go on, with
 * optind at it, or an exit status (usage errors printed, -h answered).
 */
int profile_parse(int argc, char **argv, const char *cmd, const struct option *long_opts,
		  struct profile_opts *p, struct out_opts *out);

/*
 * Run argv[0] with its arguments as the options say, into t (which this
 * initialises), with the objects' ELF facts loaded. Returns an exit status:
 * 0, EXIT_FAIL, EXIT_USAGE (bad program), or 130 when interrupted before
 * the first run; messages are printed.
 */
int profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t);

/* A command line to profile. */
struct profile_cmd {
	int argc;
	char **argv;
};

/*
 * Several programs side by side, interleaved round by round, each into its
 * own trace. For compare, every side also gets plain runs (the fair
 * comparison) and the adaptive stop looks at those.
 */
int profile_programs(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
		     struct trace *traces, bool for_compare);

#endif
