/*
 * The workload as CSV (RFC 4180): one row per exec of every counted run,
 * with its process, binary, times, phases and why it has none. Columns
 * are documented in docs/json.md.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "render/output.h"
#include "render/workload/workload-render.h"

static void status(FILE *f, bool have, int st)
{
	fputc(',', f);
	if (have && WIFEXITED(st))
		fprintf(f, "%d", WEXITSTATUS(st));
	fputc(',', f);
	if (have && WIFSIGNALED(st)) {
		char sig[SIGNAL_NAME_MAX];
		if (signal_name(WTERMSIG(st), sig))
			fputs(sig, f);
	}
}

/* The arguments joined by spaces (the JSON keeps them apart). */
static void argv_field(FILE *f, const struct trace *t, const struct wl_exec *x)
{
	size_t len = 1, argc;
	char *const *argv = workload_exec_argv(t, x, &argc);
	char *s;

	fputc(',', f);
	if (!argv)
		return;
	for (size_t i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = xcalloc(len, 1);
	for (size_t i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	csv_field(f, s);
	free(s);
}

static void exec_row(FILE *f, const struct workload *w, size_t ordinal, const struct wl_exec *x)
{
	const struct trace *t = w->t;
	const struct tree_proc *p = &t->run[x->run].tree->proc[x->proc];
	const struct tree_exec *e = &p->exec[x->exec];
	bool last = x->exec + 1 == p->nexec;

	fprintf(f, "%zu,%d,%d,%u,", ordinal, p->pid, p->ppid, x->exec);
	csv_field(f, e->path);
	fprintf(f, ",%s", tree_exec_kind_name(e->kind));
	render_csv_num(f, workload_run_us(w, x->run, workload_exec_start(t, x)));
	render_csv_num(f, e->end_ts ? workload_run_us(w, x->run, e->end_ts) : NAN);
	render_csv_num(f, x->wall_us);
	for (int k = 0; k < PH_COUNT; k++)
		render_csv_num(f, x->bd ? x->bd->phase_us[k] : NAN);
	render_csv_num(f, x->loader_us);
	render_csv_num(f, x->startup_us);
	status(f, last && p->have_status, p->wait_status);
	argv_field(f, t, x);
	fputc(',', f);
	csv_field(f, x->reason);
	fputc('\n', f);
}

void render_workload_csv(FILE *f, const struct workload *w)
{
	fputs("run,pid,ppid,exec_index,path,kind,start_us,end_us,wall_us", f);
	for (int k = 0; k < PH_COUNT; k++)
		fprintf(f, ",%s_us", phase_name(k));
	fputs(",loader_us,startup_us,exit_status,signal,argv,reason\n", f);
	for (size_t i = 0; i < w->nex; i++)
		exec_row(f, w, workload_run_ordinal(w, w->ex[i].run), &w->ex[i]);
}
