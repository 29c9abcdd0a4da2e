/* What workload.c and workload-bins.c share, and nothing else uses. */
#ifndef LDPROF_WORKLOAD_INTERNAL_H
#define LDPROF_WORKLOAD_INTERNAL_H

#include "model/workload/workload.h"

/* Whether the exec's records go to its binary's analysis (kind SHIM). */
bool workload_exec_has_records(const struct trace *t, const struct wl_exec *x);
/* Attach the exec's breakdown and derive its loader and startup times. */
void workload_exec_set_breakdown(struct wl_exec *x, const struct run_breakdown *bd);
/*
 * Whether x is the launched process's first exec: the run itself, whose
 * start is the run's exec_ts and whose records are the run's own
 * (trace_run.ev), as without -f.
 */
bool workload_exec_is_run(const struct trace *t, const struct wl_exec *x);
void workload_analyze_binaries(const struct trace *t, struct workload *w);
void workload_libraries(const struct trace *t, struct workload *w);
void workload_free_binary(struct wl_binary *b);

#endif
