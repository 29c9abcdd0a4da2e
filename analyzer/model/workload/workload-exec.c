/*
 * The workload report's view of one exec (workload.h): where it starts,
 * what it ran with, which records are its own, what its breakdown gives,
 * and the lookups by run and process the renderers use.
 */
#include <math.h>
#include <stdlib.h>

#include "model/workload/workload-internal.h"

const char *workload_kind_name(enum tree_exec_kind k)
{
	static const char *const names[] = {
		[TREE_EXEC_SHIM] = "recorded by the shim",
		[TREE_EXEC_STATIC] = "static binary: no loader to time, wall time only",
		[TREE_EXEC_SETUID] = "set-ID binary: ld.so ignores LD_AUDIT and the kernel "
				     "stops following it; followed to its exec only",
		[TREE_EXEC_NO_SHIM] = "dynamic but no records: its environment was cleared, "
				      "or the record buffer was out of reach",
		[TREE_EXEC_LOST] = "not recorded: the record buffer was full",
		[TREE_EXEC_UNKNOWN] = "the binary could not be read",
	};
	return (unsigned)k <= TREE_EXEC_UNKNOWN ? names[k] : "unknown kind";
}

const struct tree_exec *workload_tree_exec(const struct trace *t, const struct wl_exec *x)
{
	return &t->run[x->run].tree->proc[x->proc].exec[x->exec];
}

char *const *workload_exec_argv(const struct trace *t, const struct wl_exec *x, size_t *argc)
{
	const struct tree_exec *e = workload_tree_exec(t, x);

	*argc = 0;
	if (e->argv) {
		*argc = e->argc;
		return e->argv;
	}
	if (x->proc == 0 && x->exec == 0 && t->argv) {
		*argc = (size_t)t->argc;
		return t->argv;
	}
	return NULL;
}

double workload_run_us(const struct workload *w, size_t run, uint64_t ts)
{
	const struct trace *t = w->t;
	int64_t d = (int64_t)(ts - t->run[run].exec_ts);

	return t->tsc_hz > 0 ? (double)d * 1e6 / t->tsc_hz : NAN;
}

const struct wl_exec *workload_exec(const struct workload *w, size_t run, uint32_t proc)
{
	if (run >= w->t->nrun || !w->proc_first || !w->proc_first[run])
		return NULL;
	size_t i = w->proc_first[run][proc];
	return i < w->nex && w->ex[i].run == run && w->ex[i].proc == proc ? &w->ex[i] : NULL;
}

size_t workload_run_ordinal(const struct workload *w, size_t run)
{
	size_t n = 0;

	for (size_t i = 0; i <= run && i < w->t->nrun; i++)
		n += w->proc_first[i] != NULL;
	return n;
}

size_t workload_run_execs(const struct workload *w, size_t run, size_t *first)
{
	size_t lo = 0, hi = w->nex, n = 0;

	while (lo < hi) { /* w->ex is in run order */
		size_t mid = lo + (hi - lo) / 2;
		if (w->ex[mid].run < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < w->nex && w->ex[lo + n].run == run)
		n++;
	return n;
}

bool workload_exec_is_run(const struct trace *t, const struct wl_exec *x)
{
	(void)t;
	return x->proc == 0 && x->exec == 0;
}

uint64_t workload_exec_start(const struct trace *t, const struct wl_exec *x)
{
	return workload_exec_is_run(t, x) ? t->run[x->run].exec_ts : workload_tree_exec(t, x)->ts;
}

bool workload_exec_has_records(const struct trace *t, const struct wl_exec *x)
{
	return workload_tree_exec(t, x)->kind == TREE_EXEC_SHIM;
}

void workload_exec_set_breakdown(struct wl_exec *x, const struct run_breakdown *bd)
{
	if (!bd->valid) {
		x->reason = "its records are incomplete or failed validation: wall time only";
		return;
	}
	x->bd = bd;
	x->reason = NULL;
	/* From the exec point to the start of init (loader), and of main (startup). */
	x->loader_us = bd->elapsed_us[PH_INIT];
	x->mapping_us = bd->elapsed_us[PH_INIT] - bd->elapsed_us[PH_LOAD];
	x->startup_us = bd->elapsed_us[PH_MAIN];
}
