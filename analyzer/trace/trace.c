#include "trace/trace.h"

#include "ldprof-record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/stats.h"

void trace_init(struct trace *t, int argc, char **argv)
{
	memset(t, 0, sizeof *t);
	t->argc = argc;
	t->argv = xcalloc((size_t)argc + 1, sizeof *t->argv);
	for (int i = 0; i < argc; i++)
		t->argv[i] = xstrdup(argv[i]);
}

void trace_free(struct trace *t)
{
	for (int i = 0; i < t->argc; i++)
		free(t->argv[i]);
	free(t->argv);
	sampling_free(t->sampling);
	free(t->program);
	free(t->elf_path);
	for (size_t i = 0; i < t->nobj; i++) {
		free(t->obj[i].path);
		free(t->obj[i].soname);
		free(t->obj[i].facts_error);
		free(t->obj[i].build_id);
	}
	free(t->obj);
	for (size_t i = 0; i < t->nrun; i++) {
		free(t->run[i].ev);
		run_tree_free(t->run[i].tree);
		free(t->run[i].tree);
	}
	free(t->run);
	free(t->machine.hostname);
	free(t->machine.kernel);
	free(t->machine.kernel_version);
	free(t->machine.arch);
	free(t->machine.glibc);
	free(t->machine.cpu_model);
	for (size_t i = 0; i < t->nenv; i++)
		free(t->env[i]);
	free(t->env);
	free(t->cwd);
	free(t->ldprof_version);
	free(t->profiled_failure);
	memset(t, 0, sizeof *t);
}

uint32_t trace_intern(struct trace *t, const char *path)
{
	for (size_t i = 0; i < t->nobj; i++)
		if (!strcmp(t->obj[i].path, path))
			return (uint32_t)i;
	GROW(t->obj, t->capobj, t->nobj);
	t->obj[t->nobj] = (struct trace_object){.path = xstrdup(path), .role = ROLE_LIBRARY};
	return (uint32_t)t->nobj++;
}

struct trace_run *trace_add_run(struct trace *t)
{
	GROW(t->run, t->caprun, t->nrun);
	memset(&t->run[t->nrun], 0, sizeof t->run[0]);
	t->run[t->nrun].usage.nivcsw = -1;
	t->run[t->nrun].usage.tree_cpu_us = NAN;
	return &t->run[t->nrun++];
}

void trace_add_event(struct trace_run *r, const struct trace_event *e)
{
	GROW(r->ev, r->cap, r->nev);
	r->ev[r->nev++] = *e;
}

void trace_load_facts(struct trace *t)
{
	for (size_t i = 0; i < t->nobj; i++) {
		struct trace_object *o = &t->obj[i];
		const char *path =
			o->role == ROLE_EXECUTABLE && t->elf_path ? t->elf_path : o->path;
		struct elfobj *e;
		struct errbuf err;

		if (o->have_facts || o->facts_error || o->role == ROLE_VDSO)
			continue;
		if (elfobj_open(path, &e, &err)) {
			o->facts_error = xstrdup(err.msg);
			continue;
		}
		o->have_facts = true;
		o->soname = e->soname ? xstrdup(e->soname) : NULL;
		o->relocs = e->relocs;
		o->init_funcs = e->init_funcs;
		o->fini_funcs = e->fini_funcs;
		o->crt_faults16 = e->crt_faults16;
		o->bind_now = e->bind_now;
		elfobj_close(e);
	}
}

size_t trace_run_consistent_index(const struct trace_run *r)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].type == LDPROF_REC_ACTIVITY && r->ev[i].u32 == 0)
			return i;
	return r->nev;
}

size_t trace_run_main_end_index(const struct trace_run *r)
{
	size_t preinit = r->nev, end = r->nev, last_delete = r->nev;

	for (size_t i = 0; i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->type == LDPROF_REC_PREINIT && preinit == r->nev)
			preinit = i;
		else if ((e->type == LDPROF_REC_MAIN_RETURN || e->type == LDPROF_REC_EXIT_CALL) &&
			 preinit < r->nev && end == r->nev)
			end = i;
		else if (e->type == LDPROF_REC_ACTIVITY && e->u32 == 2 /* LA_ACT_DELETE */)
			last_delete = i;
	}
	if (end == r->nev && preinit < r->nev && last_delete < r->nev &&
	    r->ev[last_delete].ts > r->ev[preinit].ts)
		end = last_delete;
	return end;
}

size_t trace_run_cpu_index(const struct trace_run *r)
{
	size_t end = trace_run_main_end_index(r);

	for (size_t i = end; i < r->nev; i++)
		if (r->ev[i].type == LDPROF_REC_CPU)
			return i;
	return r->nev;
}

size_t trace_run_start_cpu_index(const struct trace_run *r)
{
	size_t c = trace_run_consistent_index(r);

	return c + 1 < r->nev && r->ev[c + 1].type == LDPROF_REC_CPU ? c + 1 : r->nev;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void trace_count_lazy(struct trace *t)
{
	uint32_t *v = xcalloc(t->nrun + 1, sizeof *v);

	for (size_t o = 0; o < t->nobj; o++) {
		size_t n = 0;
		for (size_t i = 0; i < t->nrun; i++) {
			const struct trace_run *r = &t->run[i];
			for (size_t k = 0; trace_run_counted(r, true) && k < r->nev; k++)
				if (r->ev[k].type == LDPROF_REC_LAZY && r->ev[k].obj == o) {
					v[n++] = r->ev[k].u32;
					break;
				}
		}
		qsort(v, n, sizeof *v, cmp_u32);
		t->obj[o].lazy_binds = n ? v[n / 2] : 0;
	}
	free(v);
}

bool trace_run_events_ok(const struct trace *t, const struct trace_run *r)
{
	uint64_t last = r->exec_ts;

	for (size_t i = 0; i < r->nev; i++) {
		const struct trace_event *e = &r->ev[i];
		if (e->type < LDPROF_REC_VERSION ||
		    (e->type > LDPROF_REC_SYMBIND && e->type != LDPROF_REC_LAZY &&
		     e->type != LDPROF_REC_CPU) ||
		    (e->obj != TRACE_NO_OBJ && e->obj >= t->nobj) || e->ts < r->exec_ts ||
		    (r->reap_ts && e->ts > r->reap_ts))
			return false;
		if (e->type == LDPROF_REC_SYMBIND)
			continue; /* stamped with its last call, before the record it follows */
		if (e->ts < last)
			return false;
		last = e->ts;
	}
	return true;
}

double trace_ticks_to_us(const struct trace *t, uint64_t ticks)
{
	return (double)ticks * 1e6 / t->tsc_hz;
}

double trace_run_us(const struct trace *t, const struct trace_run *r)
{
	return trace_ticks_to_us(t, r->reap_ts - r->exec_ts);
}

bool trace_run_counted(const struct trace_run *r, bool profiled)
{
	return !r->warmup && r->profiled == profiled;
}

double trace_profiled_median(const struct trace *t, trace_run_figure figure, const void *arg)
{
	double *v = xcalloc(t->nrun + 1, sizeof *v), m;
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++)
		if (trace_run_counted(&t->run[i], true))
			v[n++] = figure(t, &t->run[i], arg);
	m = median_picked(v, NULL, n, v);
	free(v);
	return m;
}

bool trace_fails_only_profiled(const struct trace *t)
{
	size_t profiled = 0, plain = 0;
	int plain_status = 0;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (trace_run_counted(r, false)) {
			if (plain++ && r->wait_status != plain_status)
				return false;
			plain_status = r->wait_status;
		}
	}
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (!trace_run_counted(r, true))
			continue;
		if (r->wait_status == plain_status)
			return false;
		profiled++;
	}
	return plain && profiled;
}

size_t trace_counted_totals(const struct trace *t, bool profiled, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nrun; i++)
		if (trace_run_counted(&t->run[i], profiled))
			out[n++] = trace_run_us(t, &t->run[i]);
	return n;
}
