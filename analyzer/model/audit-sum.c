/* Ranking the audit, totalling its libraries, and --measure. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/analyze.h"
#include "model/audit.h"
#include "model/model.h"
#include "run/profile.h"
#include "base/words.h"

/* Dynamic programs by cost, worst first; then static ones; then errors. */
static int by_cost(const void *x, const void *y)
{
	const struct audit_entry *a = x, *b = y;

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	if (a->cost_us != b->cost_us)
		return a->cost_us < b->cost_us ? 1 : -1;
	return strcmp(a->path, b->path);
}

static int by_total(const void *x, const void *y)
{
	const struct audit_lib *a = x, *b = y;

	if (a->total_us != b->total_us)
		return a->total_us < b->total_us ? 1 : -1;
	return strcmp(a->path, b->path);
}

static struct audit_lib *lib_for(struct audit *a, const char *path)
{
	for (size_t i = 0; i < a->nlib; i++)
		if (!strcmp(a->lib[i].path, path))
			return &a->lib[i];
	GROW(a->lib, a->caplib, a->nlib);
	a->lib[a->nlib] = (struct audit_lib){.path = xstrdup(path)};
	return &a->lib[a->nlib++];
}

void audit_summarize(struct audit *a)
{
	if (a->n) /* qsort(NULL, 0) is undefined */
		qsort(a->e, a->n, sizeof *a->e, by_cost);
	for (size_t i = 0; i < a->n; i++)
		for (unsigned k = 0; k < a->e[i].libs; k++) {
			struct audit_lib *l = lib_for(a, a->e[i].lib_paths[k]);
			l->users++;
			l->total_us += a->e[i].lib_us[k];
		}
	if (a->nlib)
		qsort(a->lib, a->nlib, sizeof *a->lib, by_total);
}

void audit_measure(const struct audit_opts *o, struct audit_entry *e)
{
	struct profile_opts po;
	struct trace t = {0};
	struct errbuf err;
	char **args = NULL, **argv;
	size_t nargs = 0;

	if (o->args && split_words(o->args, &args, &nargs, &err))
		return;
	argv = xcalloc(nargs + 2, sizeof *argv);
	argv[0] = e->path;
	if (nargs)
		memcpy(argv + 1, args, nargs * sizeof *argv);
	profile_opts_defaults(&po);
	po.plan.runs = o->runs;
	po.plan.warmup = 1;
	po.plan.plain = false;
	po.timeout_s = o->timeout_s;
	if (model_profile_program(&po, (int)nargs + 1, argv, &t) == 0) {
		struct report rep;
		report_build(&t, &rep);
		e->measured_us = rep.total.median;
		e->measured_loader_us = rep.phase[PH_EXEC].median + rep.phase[PH_LOAD].median +
					rep.phase[PH_RELOCATE].median;
		report_free(&rep);
	}
	trace_free(&t);
	free(argv);
	free(args);
}

void audit_free(struct audit *a)
{
	for (size_t i = 0; i < a->n; i++) {
		struct audit_entry *e = &a->e[i];
		free(e->path);
		free(e->error);
		free(e->elf_kind);
		free(e->unused);
		free(e->advice);
		for (unsigned k = 0; k < e->libs; k++)
			free(e->lib_paths[k]);
		free(e->lib_paths);
		free(e->lib_us);
	}
	free(a->e);
	for (size_t i = 0; i < a->nlib; i++)
		free(a->lib[i].path);
	free(a->lib);
	memset(a, 0, sizeof *a);
}
