/*
 * `ldprof calibrate`: fit the relocation cost model on this machine from
 * synthetic programs whose relocation work is known (tools/gen-reloc-lib).
 */
#ifndef LDPROF_CALIBRATE_H
#define LDPROF_CALIBRATE_H

#include <stdbool.h>
#include <stdio.h>

#include "trace/model-coefs.h"
#include "run/profile.h"

/* --check: a program of the user's, run in the calibration's rounds, not fitted. */
struct calib_check {
	char **argv; /* split_words', NULL terminated: one allocation */
	size_t argc;
	char *line; /* as given */
};

struct calib_opts {
	struct profile_opts prof; /* runs per program and so on */
	bool quick;		  /* fewer, smaller programs (the tests) */
	bool keep;		  /* keep the build directory */
	FILE *log;		  /* progress and the fit, or NULL */
	struct calib_check *checks;
	size_t nchecks;
};

/*
 * The arrays hold n + nchecks entries: the fitted programs, then the
 * --check ones (whose names are their command lines).
 */
struct calib_result {
	struct model_coefs coefs;
	size_t n;	     /* programs fitted */
	size_t nchecks;	     /* --check programs after them */
	char **names;	     /* per program */
	double *measured_us; /* median relocate phase */
	double *load_us;     /* median load phase */
	double *exit_us;     /* median exit phase */
	double *model_us;    /* the fit's prediction */
	double *features;    /* n x MODEL_NFEAT, summed over the process */
	double warm_us;	     /* a warm line (calibrate-warm.h); 0: none measured */
	char **warnings;     /* what makes the figures doubtful (a busy machine) */
	size_t nwarnings;
	char *workdir;
	bool keep; /* do not remove workdir */
};

int calibrate(const struct calib_opts *o, struct calib_result *res, struct errbuf *err);
void calib_result_free(struct calib_result *res);

#endif
