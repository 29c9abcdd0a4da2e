/*
 * Where and how a report is written: the --format and -o options shared by
 * run, report and compare, and the dispatch to the renderers.
 */
#ifndef LDPROF_OUTPUT_H
#define LDPROF_OUTPUT_H

#include <stdbool.h>

#include "model/analyze.h"
#include "base/util.h"

enum out_format {
	OUT_TEXT,
	OUT_JSON,
	OUT_CSV,       /* one row per run per phase or library */
	OUT_HYPERFINE, /* hyperfine's JSON export, for the totals */
	OUT_CHROME,    /* Chrome/Perfetto trace JSON */
	OUT_FOLDED,    /* folded stacks for flamegraph tools */
	OUT_HTML,      /* one self-contained page */
};

struct out_opts {
	enum out_format format;
	const char *path;  /* -o FILE; NULL for stdout */
	const char *color; /* auto, always, never */
	bool all_runs;	   /* chrome: every run, not only the median one */
};

/* The long options every reporting command accepts, and their help text. */
enum {
	OUT_OPT_FORMAT = 1000,
	OUT_OPT_JSON,
	OUT_OPT_COLOR,
	OUT_OPT_ALL_RUNS,
};
#define OUT_LONG_OPTIONS                                                                           \
	{"format", required_argument, NULL, OUT_OPT_FORMAT},                                       \
		{"json", no_argument, NULL, OUT_OPT_JSON},                                         \
		{"color", required_argument, NULL, OUT_OPT_COLOR},                                 \
		{"all-runs", no_argument, NULL, OUT_OPT_ALL_RUNS},                                 \
	{                                                                                          \
		"output", required_argument, NULL, 'o'                                             \
	}
#define OUT_USAGE                                                                                  \
	"      --format FMT    text (default), json, csv, hyperfine, chrome, folded or html\n"     \
	"      --json          the same as --format json\n"                                        \
	"  -o, --output FILE   write there (atomically) instead of to standard output\n"           \
	"      --all-runs      chrome and folded: every run, not only the median one\n"            \
	"      --color WHEN    auto, always or never (default auto; NO_COLOR is honoured)\n"

/*
 * Handle one getopt result for the options above: 1 if it was one of them,
 * 0 if not, or -1 after printing a usage error for cmd.
 */
int out_option(int c, const char *arg, struct out_opts *o, const char *cmd);

/* Render rep; -o files are written to a temporary name and renamed. */
int out_write(const struct out_opts *o, const struct report *rep, struct errbuf *err);

/* One CSV field (RFC 4180): quoted when it holds a comma, quote or newline; NULL is empty. */
void csv_field(FILE *f, const char *s);

#endif
