/*
 * ldprof deps over many FILEs (deps-run.c): worker threads analyse and
 * render them, and the output comes out in FILE order.
 */
#ifndef LDPROF_DEPS_RUN_H
#define LDPROF_DEPS_RUN_H

#include <stdio.h>

#include "model/deps-report.h"

struct json;
/* Analyse files on threads workers, writing to out in order; returns the exit status. */
int deps_run(struct ldenv *env, const struct deps_options *opt, char **files, int nfiles,
	     int threads, FILE *out, struct json *j);

#endif
