/*
 * A saved trace as report and diff use it: read the file, build the same
 * report run would, and add notes about the file itself (cut short,
 * recorded elsewhere, binaries changed since).
 */
#ifndef LDPROF_SAVED_H
#define LDPROF_SAVED_H

#include "model/analyze.h"
#include "trace/tracefile.h"

/*
 * Read path into t and build rep from it. Errors are "PATH: WHY" with
 * -EINVAL, -ENOTSUP or -EPROTO (bad input) or another -errno; on success,
 * info->warning says when the file was cut short. Free with
 * saved_trace_free even on error.
 */
int saved_trace_open(const char *path, struct trace *t, struct tracefile_info *info,
		     struct report *rep, struct errbuf *err);
void saved_trace_free(struct trace *t, struct report *rep);

#endif
