/*
 * Where and how a report is written: the output settings shared by run,
 * report and compare (their options are in cmd/), and the dispatch to the
 * renderers.
 */
#ifndef LDPROF_OUTPUT_H
#define LDPROF_OUTPUT_H

#include <stdbool.h>

#include "model/analyze.h"
#include "base/out/csv.h" /* csv_field, for the CSV renderers */
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

/* "text", "json", ... by enum out_format; NULL-terminated. */
extern const char *const out_format_names[];

/* Render rep; -o files are written to a temporary name and renamed. */
int out_write(const struct out_opts *o, const struct report *rep, struct errbuf *err);

#endif
