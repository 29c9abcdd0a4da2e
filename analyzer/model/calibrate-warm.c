#include "model/calibrate-warm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "model/analyze.h"

/* Three blocks of each, alternated: a median of three, as the fit's figures. */
#define WARM_BLOCKS   3
#define WARM_MIN_RUNS 10

static const char *const warm_pair[2] = {"names-160", "scatter-160"};

static int program_index(const struct calib_result *res, const char *name)
{
	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->names[i], name))
			return (int)i;
	return -1;
}

/*
 * One block of runs of path, each after a run of base (libc alone): a real
 * program's run always holds what base's does (its exec, libc's start, its
 * exit), which moves some of the lines to the shared cache; run alone, a
 * synthetic program does nothing else. Its median relocate phase in *us.
 */
static int block_median(const struct profile_opts *prof, unsigned runs, const char *path,
			const char *base, double *us)
{
	char *argv[4] = {(char *)path, NULL, (char *)base, NULL};
	struct profile_cmd c[2] = {{1, &argv[0]}, {1, &argv[2]}};
	struct profile_opts po;
	struct report rep;
	struct trace t[2];
	int r;

	profile_opts_timed_only(prof, runs, &po);
	memset(t, 0, sizeof t);
	if (!(r = profile_programs(&po, 2, c, t, false))) {
		report_build(&t[0], &rep);
		*us = rep.phase[PH_RELOCATE].median;
		report_free(&rep);
	}
	trace_free(&t[0]);
	trace_free(&t[1]);
	return r;
}

int warm_measure(const struct calib_opts *o, const struct calib_result *res, double *us,
		 struct errbuf *err)
{
	int idx[2] = {program_index(res, warm_pair[0]), program_index(res, warm_pair[1])};
	unsigned runs =
		o->prof.plan.runs / 2 > WARM_MIN_RUNS ? o->prof.plan.runs / 2 : WARM_MIN_RUNS;
	double diff[WARM_BLOCKS], lines;
	int r = 0;

	if (idx[0] < 0 || idx[1] < 0)
		return set_err(err, ENOENT, "no %s and %s among the programs", warm_pair[0],
			       warm_pair[1]);
	lines = res->features[(size_t)idx[1] * MODEL_NFEAT + MF_COLD_LINES] -
		res->features[(size_t)idx[0] * MODEL_NFEAT + MF_COLD_LINES];
	if (!(lines > 0))
		return set_err(err, EINVAL, "%s reads no more cold lines than %s", warm_pair[1],
			       warm_pair[0]);
	char *base = xasprintf("%s/base", res->workdir);
	for (size_t b = 0; !r && b < WARM_BLOCKS; b++) {
		double m[2] = {NAN, NAN};
		for (size_t k = 0; !r && k < 2; k++) {
			char *path = xasprintf("%s/%s", res->workdir, warm_pair[k]);
			r = block_median(&o->prof, runs, path, base, &m[k]);
			free(path);
		}
		diff[b] = m[1] - m[0];
	}
	free(base);
	if (r)
		return set_err(err, EIO, "the runs of %s and %s failed", warm_pair[0],
			       warm_pair[1]);
	qsort(diff, WARM_BLOCKS, sizeof *diff, cmp_double);
	if (!isfinite(diff[WARM_BLOCKS / 2]))
		return set_err(err, EIO, "%s and %s measured nothing", warm_pair[0], warm_pair[1]);
	*us = fmax(0, diff[WARM_BLOCKS / 2] / lines);
	return 0;
}
