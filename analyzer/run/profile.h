/*
 * Profiling a program: the settings every command that runs programs takes
 * (run, record, compare, calibrate; their options are in cmd/), and the run
 * loop from a command line to an in-memory trace.
 */
#ifndef LDPROF_PROFILE_H
#define LDPROF_PROFILE_H

#include <limits.h>
#include <stdbool.h>

#include "run/runner.h"
#include "trace/trace.h"

struct profile_opts {
	struct run_plan plan;
	bool show_output;
	bool preload;
	bool symbind;
	bool follow; /* -f: every process of the workload (follow.h) */
	/* --sample: perf samples of extra, uncounted runs after the timed ones (sample.h). */
	bool sample;
	unsigned long sample_period_us; /* --sample-period; 0 = the default, 20 */
	bool sample_required;		/* --sample-required: a refusal fails the command */
	double timeout_s;
	/*
	 * --fixed-runs: measure the fixed cost of being dynamic (the minimal
	 * pair, model/minimal-pair.h) in this many rounds after the program,
	 * for its verdict; 0 (profile_opts_defaults): the calibration's
	 * figure; PROFILE_FIXED_AUTO (profile_opts_defaults_verdict, run's,
	 * record's and compare's default): as many as the program's runs
	 * when calibrated (model/model-run.c).
	 */
	unsigned fixed_runs;
	/*
	 * Count the forks of the program's own image in one run under ptrace
	 * after the timed ones (run/fork-census.h), for its verdict:
	 * profile_opts_defaults_verdict sets it.
	 */
	bool fork_census;
};

#define PROFILE_FIXED_AUTO UINT_MAX

void profile_opts_defaults(struct profile_opts *o);
void profile_opts_defaults_verdict(struct profile_opts *o);

/*
 * o for a measurement of calibration's own programs: runs timed runs and
 * nothing else (no fixed cost, no fork census, no samples, not followed,
 * their output discarded), into out.
 */
void profile_opts_timed_only(const struct profile_opts *o, unsigned runs, struct profile_opts *out);

/*
 * Run argv[0] with its arguments as the options say, into t (which this
 * initialises), with the objects' ELF facts loaded. Returns an exit status:
 * 0, EXIT_FAIL, EXIT_USAGE (bad program), or 130 when interrupted before
 * the first run; messages are printed.
 */
int profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t);

/* After the report: EXIT_FAIL when --sample-required and the kernel refused, else r. */
int profile_sample_status(const struct profile_opts *o, const struct trace *t, int r);

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
