/*
 * Option tables more than one command shares: how programs are profiled
 * (run, record, compare) and where a report goes (run, report, compare,
 * audit, diff, deps). Each expands to entries of a struct opt table.
 */
#ifndef LDPROF_COMMON_OPTIONS_H
#define LDPROF_COMMON_OPTIONS_H

#include "cmd/options.h"
#include "render/output.h"
#include "run/profile.h"

#define PROFILE_OPTIONS(p)                                                                         \
	OPT_UNSIGNED('n', "runs", "N", &(p)->plan.runs, 1, 1000000,                                \
		     "exactly N counted runs (default: adaptive, at least 20,\n"                   \
		     "until the median total is known to +-1% or ~3 s pass,\n"                     \
		     "at most 1000; with -f at least 3, +-2% or ~10 s)"),                          \
		OPT_BOOL('f', "follow", &(p)->follow,                                              \
			 "follow the whole workload: every process it starts, by\n"               \
			 "any route, each exec with its binary and its kind"),                     \
		OPT_UNSIGNED('w', "warmup", "N", &(p)->plan.warmup, 0, 1000000,                    \
			     "N uncounted runs first (default 3; 1 with -f)"),                     \
		OPT_SECONDS(0, "max-time", "SEC", &(p)->plan.max_seconds,                          \
			    "adaptive mode: stop after about SEC seconds (default 3;\n"           \
			    "10 with -f)"),                                                        \
		OPT_SET(0, "no-overhead", &(p)->plan.plain, 0,                                     \
			"do not interleave plain runs (halves the work)"),                         \
		OPT_BOOL(0, "cold-cache", &(p)->plan.cold_cache,                                   \
			 "empty the CPU caches before each run, as a first start\n"                \
			 "finds them (the page cache is left alone)"),                             \
		OPT_BOOL(0, "preload", &(p)->preload,                                              \
			 "see main and exit through an LD_PRELOAD library instead\n"               \
			 "of patching GOT slots (costs one more mapped object)"),                  \
		OPT_BOOL(0, "symbind", &(p)->symbind,                                              \
			 "also time each BIND_NOW object's PLT binding with\n"                     \
			 "la_symbind64, to check the relocation model (slower)"),                  \
		OPT_UNSIGNED(0, "fixed-runs", "N", &(p)->fixed_runs, 0, 100000,                    \
			     "for the static-link verdict, measure the fixed cost of\n"           \
			     "being dynamic after the runs: a minimal program built\n"           \
			     "both ways (cc, static libc), N runs of each; 0: the\n"             \
			     "calibration's (default when calibrated: as many as the\n"          \
			     "program's runs, 100 to 300; compare runs the pair in\n"            \
			     "the same rounds as its programs instead)"),                           \
		OPT_SECONDS(0, "timeout", "SEC", &(p)->timeout_s,                                  \
			    "kill a run after SEC seconds (default 60)"),                          \
		OPT_BOOL(0, "show-output", &(p)->show_output,                                      \
			 "let the program write to the terminal (default: its\n"                   \
			 "stdout and stderr go to /dev/null; stdin is /dev/null)")

/* run and record: --sample (run/sample.h). */
#define SAMPLE_OPTIONS(p)                                                                          \
	OPT_BOOL(0, "sample", &(p)->sample,                                                        \
		 "also sample what runs inside each phase (perf cpu-clock,\n"                      \
		 "user space, unwound offline): extra runs, not timed"),                           \
		OPT_BOOL(0, "sample-required", &(p)->sample_required,                              \
			 "--sample, and exit 1 (after the report) when the\n"                        \
			 "kernel refuses to sample"),                                              \
		OPT_UNSIGNED(0, "sample-period", "US", &(p)->sample_period_us, 10, 100000,         \
			     "--sample: a sample every US microseconds of CPU\n"                   \
			     "time (default 20)")

#define FORMAT_BIT(f)  (1ul << (f))
#define REPORT_FORMATS 0ul /* all of them */

#define OPT_JSON(v) OPT_SET(0, "json", v, OUT_JSON, "the same as --format json")
#define OPT_COLOR(v)                                                                               \
	OPT_CHOICE(0, "color", "WHEN", v, color_choices,                                           \
		   "auto, always or never (default auto; NO_COLOR is honoured)")
extern const char *const color_choices[];

/* What run and report write: any format, to stdout or -o FILE. */
#define REPORT_OUTPUT_OPTIONS(out)                                                                 \
	OPT_FORMAT(&(out)->format, REPORT_FORMATS,                                                 \
		   "text (default), json, csv, hyperfine, chrome, folded or html"),                \
		OPT_JSON(&(out)->format),                                                          \
		OPT_OUTPUT(&(out)->path,                                                           \
			   "write there (atomically) instead of to standard output"),              \
		OPT_BOOL(0, "all-runs", &(out)->all_runs,                                          \
			 "chrome and folded: every run, not only the median one"),                 \
		OPT_COLOR(&(out)->color)

#endif
