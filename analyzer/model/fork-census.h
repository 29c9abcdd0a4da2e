/*
 * The forks a program's own image makes in one run: each copies its
 * address space, and a dynamic image's costs more to copy, tear down and
 * run in (the child binds lazily again, through libraries whose pages it
 * has not mapped: docs/model.md, "The forks"). One followed run outside
 * the measurement (run/follow.h) counts them; the verdict prices them.
 */
#ifndef LDPROF_FORK_CENSUS_H
#define LDPROF_FORK_CENSUS_H

#include <stdint.h>

#include "base/util.h"
#include "trace/trace.h"
#include "trace/tree.h"

/*
 * The processes of t forked from the top program's image: by the top
 * before any exec of its own, or by such a fork before it executed
 * anything (the middle of a double fork).
 */
uint32_t tree_image_forks(const struct run_tree *t);

/*
 * One followed run of t's program (as profiled, its output discarded):
 * *forks gets tree_image_forks of it. -errno with err set when it could
 * not be followed (perf task events refused) or run.
 */
int fork_census(const struct trace *t, double timeout_s, uint32_t *forks, struct errbuf *err);

#endif
