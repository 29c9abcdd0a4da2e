/*
 * Two saved traces compared (ldprof diff): per phase and per library the
 * median before and after, the change, and its 95% CI from a bootstrap
 * over the runs of each trace, resampled independently (the two traces
 * ran at different times, so their runs do not pair). Libraries are
 * matched by soname, else file name; the executable and ld.so by role.
 */
#ifndef LDPROF_DIFF_H
#define LDPROF_DIFF_H

#include <stdbool.h>

#include "model/analyze.h"

struct diff_est {
	double before, after;  /* medians in microseconds; NaN when absent */
	double change, lo, hi; /* after - before, and its 95% CI */
	double pct;	       /* change relative to before, in percent */
	bool significant;      /* the CI excludes 0 */
};

enum diff_status { DIFF_BOTH, DIFF_ADDED, DIFF_REMOVED };

struct diff_lib {
	const char *name; /* soname, file name, or the program's for the executable */
	enum diff_status status;
	const struct trace_object *obj[2]; /* before, after; NULL when absent */
	struct diff_est est;
};

/* --fail-above: a relative ("5%") or an absolute ("150us") threshold. */
struct diff_threshold {
	bool set;
	bool relative;
	double value; /* percent, or microseconds */
};

struct diff {
	const struct report *rep[2];
	struct diff_est total;
	bool phases; /* both sides are dynamic with the shim's data */
	struct diff_est phase[PH_COUNT];
	struct diff_lib *libs; /* the before side's order, then the added ones */
	size_t nlibs;
	char **notes;
	size_t nnotes, capnotes;
	struct diff_threshold threshold;
	bool regression; /* the median total grew significantly, beyond the threshold */
};

/* Parse "5%", "5" (percent), "150us", "0.2ms"; -EINVAL if not a positive amount. */
int diff_parse_threshold(const char *s, struct diff_threshold *th);

void diff_build(const struct report *before, const struct report *after,
		const struct diff_threshold *th, struct diff *d);
void diff_free(struct diff *d);

/* Text or JSON (ldprof-diff/1); names are the two files as given. */
void diff_render_text(FILE *f, const struct diff *d, const char *const names[2]);
void diff_render_json(FILE *f, const struct diff *d, const char *const names[2]);

#endif
