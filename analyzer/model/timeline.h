/*
 * One run laid out in time, for the chrome, folded and html renderers: the
 * whole run, its phases, and per object the slices of loading, relocation,
 * constructors and destructors, properly nested (a child never sticks out
 * of its parent), in nanoseconds from the last timestamp before execve.
 */
#ifndef LDPROF_TIMELINE_H
#define LDPROF_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/analyze.h"

enum tl_kind { TL_RUN, TL_PHASE, TL_LOAD, TL_RELOC, TL_INIT, TL_FINI };

struct tl_slice {
	enum tl_kind kind;
	int phase;    /* TL_PHASE: which; else the phase it lies in, or -1 */
	uint32_t obj; /* the object, or TRACE_NO_OBJ for the run and phases */
	int64_t start_ns, end_ns;
	int depth;	/* 0 for the run, 1 for phases, 2+ below */
	size_t parent;	/* index of the enclosing slice; SIZE_MAX for the run */
	uint32_t funcs; /* TL_INIT/TL_FINI: functions called */
	bool estimated; /* TL_RELOC: the phase split by relocation count, not measured */
};

struct timeline {
	struct tl_slice *s; /* by start, parents before their children */
	size_t n, cap;
};

/*
 * Lay out rep->t->run[run] from the report's breakdown of it (only the run
 * itself for a run without one); tl must be zeroed.
 */
void timeline_build(const struct report *rep, size_t run, struct timeline *tl);
void timeline_free(struct timeline *tl);
/* A slice's own time: its duration minus its direct children's. */
int64_t timeline_self_ns(const struct timeline *tl, size_t i);

/*
 * The counted run whose total is nearest the report's median total (valid
 * ones only when profiled): the representative run. SIZE_MAX if none.
 */
size_t median_run(const struct report *rep);
/* Run i's number among the counted runs of its kind (profiled or plain), from 1, as csv numbers
 * them. */
size_t run_ordinal(const struct report *rep, size_t i);
/* Whether run i is one the report counts (not warmup, the report's kind). */
bool run_counted(const struct report *rep, size_t i);

const char *tl_kind_name(enum tl_kind k); /* "run", "phase", "load", "reloc", "init", "fini" */
/* An object's short name: its soname, else its file name. */
const char *object_label(const struct trace_object *o);
/* Whether the per-library tables show o: not the vDSO, not ld.so (its own phases). */
bool object_shown(const struct trace_object *o);

#endif
