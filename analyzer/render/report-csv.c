/*
 * CSV for spreadsheets (RFC 4180): one row per counted run for its total,
 * and for each profiled run with the shim's data one row per phase and one
 * per object. Columns are documented in docs/json.md.
 */
#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "render/output.h"
#include "render/render.h"

void render_csv_num(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.3f", v);
}

/* run,mode,exit_status,signal,kind,name,role, */
static void row_start(FILE *f, size_t n, const struct trace_run *r, const char *kind,
		      const char *name, const char *role)
{
	fprintf(f, "%zu,%s,", n, r->profiled ? "profiled" : "plain");
	if (WIFEXITED(r->wait_status))
		fprintf(f, "%d", WEXITSTATUS(r->wait_status));
	fputc(',', f);
	if (WIFSIGNALED(r->wait_status)) {
		char sig[SIGNAL_NAME_MAX];
		signal_name(WTERMSIG(r->wait_status), sig);
		fputs(sig, f);
	}
	fprintf(f, ",%s,", kind);
	csv_field(f, name);
	fprintf(f, ",%s", role);
}

static void breakdown_rows(FILE *f, const struct report *rep, size_t n,
			   const struct run_breakdown *bd)
{
	const struct trace *t = rep->t;
	const struct trace_run *r = &t->run[bd->run];

	for (int p = 0; bd->valid && p < PH_COUNT; p++) {
		row_start(f, n, r, "phase", phase_name(p), "");
		render_csv_num(f, bd->phase_us[p]);
		fputs(",,,,\n", f);
	}
	for (size_t i = 0; bd->valid && i < rep->nobjs; i++) {
		uint32_t o = rep->objs[i].obj;
		double part[4] = {bd->load_us[o], bd->reloc_us[o], bd->init_us[o], bd->fini_us[o]};
		double sum = NAN;
		for (int k = 0; k < 4; k++)
			if (!isnan(part[k]))
				sum = (isnan(sum) ? 0 : sum) + part[k];
		row_start(f, n, r, "object", t->obj[o].path, role_name(t->obj[o].role));
		render_csv_num(f, sum);
		for (int k = 0; k < 4; k++)
			render_csv_num(f, part[k]);
		fputc('\n', f);
	}
}

void render_csv(FILE *f, const struct report *rep)
{
	const struct trace *t = rep->t;
	size_t n_profiled = 0, n_plain = 0;

	fputs("run,mode,exit_status,signal,kind,name,role,us,load_us,reloc_us,init_us,fini_us\n",
	      f);
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (r->warmup)
			continue;
		size_t n = r->profiled ? ++n_profiled : ++n_plain;
		row_start(f, n, r, "total", t->program, "");
		render_csv_num(f, trace_run_us(t, r));
		fputs(",,,,\n", f);
		const struct run_breakdown *bd = report_breakdown(rep, i);
		if (bd)
			breakdown_rows(f, rep, n, bd);
	}
}
