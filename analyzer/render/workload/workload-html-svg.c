/*
 * The workload's tree as a timeline (workload-html.c's figure), the way
 * systemd-analyze plot draws a boot: one row per process of the median
 * run in depth-first order, a bar from its fork to its exit, each exec
 * on it, and the startup of each recorded exec (exec to main) shaded
 * dark at its start. Every bar carries its figures in a <title>.
 */
#include <math.h>
#include <stdlib.h>

#include "render/html.h"
#include "render/workload/workload-render.h"

#define SVG_W	 1200
#define LABEL_W	 300
#define ROW_H	 16
#define TOP_H	 24
#define MAX_ROWS 400 /* beyond, the JSON has them */

struct plot {
	FILE *f;
	const struct workload *w;
	size_t run;
	const struct run_tree *tr;
	double span_us; /* the run's wall time: the plot's width */
	size_t rows;
};

static double x_of(const struct plot *p, double us)
{
	double fr = p->span_us > 0 ? us / p->span_us : 0;

	return LABEL_W + fmin(fmax(fr, 0), 1) * (SVG_W - LABEL_W - 10);
}

static void rect(const struct plot *p, const char *cls, double from_us, double to_us, double y,
		 double h, const char *title)
{
	double x0 = x_of(p, from_us), x1 = x_of(p, to_us);

	fprintf(p->f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\">",
		cls, x0, y, fmax(x1 - x0, 0.5), h);
	if (title) {
		fputs("<title>", p->f);
		html_text(p->f, title);
		fputs("</title>", p->f);
	}
	fputs("</rect>", p->f);
}

static void exec_bars(const struct plot *p, size_t proc, double y)
{
	const struct tree_proc *tp = &p->tr->proc[proc];
	const struct wl_exec *x = workload_exec(p->w, p->run, (uint32_t)proc);
	char title[1024], st[32], wall[32];

	for (size_t k = 0; x && k < tp->nexec; k++, x++) {
		const struct tree_exec *e = &tp->exec[k];
		double at = workload_run_us(p->w, p->run, workload_exec_start(p->w->t, x));
		double end = isnan(x->wall_us) ? at : at + x->wall_us;
		html_dur(wall, sizeof wall, x->wall_us);
		html_dur(st, sizeof st, x->startup_us);
		snprintf(title, sizeof title, "%s: %s%s%s", e->path ? e->path : "?", wall,
			 x->bd ? ", startup " : "; ", x->bd ? st : x->reason);
		rect(p, x->bd ? "exec" : "exec norec", at, end, y + 2, ROW_H - 4, title);
		if (x->bd && !isnan(x->startup_us))
			rect(p, "startup", at, at + x->startup_us, y + 2, ROW_H - 4, title);
	}
}

static void row(struct plot *p, size_t proc, int depth)
{
	const struct tree_proc *tp = &p->tr->proc[proc];
	double y = TOP_H + (double)p->rows * ROW_H;
	double from = workload_run_us(p->w, p->run, tp->fork_ts);
	double to = tp->exit_ts ? workload_run_us(p->w, p->run, tp->exit_ts) : p->span_us;
	const char *img =
		tp->nexec && tp->exec[tp->nexec - 1].path ? tp->exec[tp->nexec - 1].path : NULL;
	char title[512];

	fprintf(p->f, "<g class=\"proc\" data-pid=\"%d\">", tp->pid);
	fprintf(p->f, "<text class=\"lbl\" x=\"%d\" y=\"%.1f\">",
		4 + 10 * (depth < 12 ? depth : 12), y + ROW_H - 4);
	html_text(p->f, img ? path_basename(img) : "(fork)");
	fprintf(p->f, " %d</text>", tp->pid);
	snprintf(title, sizeof title, "pid %d, ppid %d, %zu exec%s%s", tp->pid, tp->ppid, tp->nexec,
		 tp->nexec == 1 ? "" : "s", tp->orphan ? ", outlived its parent" : "");
	rect(p, "life", from, to, y + 5, ROW_H - 10, title);
	exec_bars(p, proc, y);
	fputs("</g>\n", p->f);
	p->rows++;
}

/* Depth-first from the top; children in the order they were forked. */
static void rows(struct plot *p)
{
	size_t n = p->tr->nproc, depth = 0;
	size_t *first = xmalloc((n + 1) * sizeof *first), *next = xmalloc((n + 1) * sizeof *next);
	size_t *stack = xmalloc((n + 1) * sizeof *stack);
	int *level = xcalloc(n + 1, sizeof *level);

	for (size_t i = 0; i < n; i++)
		first[i] = next[i] = SIZE_MAX;
	for (size_t i = n; i-- > 1;)
		if (p->tr->proc[i].parent < n) {
			next[i] = first[p->tr->proc[i].parent];
			first[p->tr->proc[i].parent] = i;
		}
	stack[depth++] = 0;
	while (depth && p->rows < MAX_ROWS) {
		size_t q = stack[--depth], kids = 0;
		row(p, q, level[q]);
		for (size_t k = first[q]; k != SIZE_MAX; k = next[k])
			kids++, level[k] = level[q] + 1;
		size_t at = depth + kids;
		for (size_t k = first[q]; k != SIZE_MAX; k = next[k])
			stack[--at] = k;
		depth += kids;
	}
	free(first);
	free(next);
	free(stack);
	free(level);
}

/* A tick's label, with as many decimals as the step needs: "10 ms", "2.5 ms". */
static void tick_label(char *buf, size_t n, double t, double step)
{
	const char *unit = step >= 1e6 ? "s" : step >= 1e3 ? "ms" : "\u00b5s";
	double scale = step >= 1e6 ? 1e6 : step >= 1e3 ? 1e3 : 1;
	int decimals = (int)fmax(0, -floor(log10(step / scale) + 1e-9));

	snprintf(buf, n, "%.*f %s", decimals, t / scale, unit);
}

static void axis(const struct plot *p, double height)
{
	double step = pow(10, floor(log10(p->span_us > 0 ? p->span_us : 1)));
	char d[32];

	if (p->span_us / step < 4)
		step /= 5;
	for (double t = 0; t <= p->span_us + 1e-9; t += step) {
		double x = x_of(p, t);
		tick_label(d, sizeof d, t, step);
		fprintf(p->f,
			"<line class=\"tick\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.1f\"/>"
			"<text class=\"axis\" x=\"%.2f\" y=\"%d\">%s</text>\n",
			x, TOP_H - 6, x, height, x, TOP_H - 10, d);
	}
}

void html_workload_svg(FILE *f, const struct workload *w)
{
	struct plot p = {f, w, w->median_run, NULL, 0, 0};

	if (w->median_run == SIZE_MAX)
		return;
	p.tr = w->t->run[w->median_run].tree;
	p.span_us = trace_run_us(w->t, &w->t->run[w->median_run]);
	size_t shown = p.tr->nproc < MAX_ROWS ? p.tr->nproc : MAX_ROWS;
	double height = TOP_H + (double)shown * ROW_H + 4;
	fprintf(f, "<svg id=\"tree\" viewBox=\"0 0 %d %.0f\" role=\"img\">\n", SVG_W, height);
	axis(&p, height);
	if (p.tr->nproc)
		rows(&p);
	fputs("</svg>\n", f);
	if (p.tr->nproc > MAX_ROWS)
		fprintf(f,
			"<p class=\"hint\">The first %d of %zu processes; the JSON has them "
			"all.</p>\n",
			MAX_ROWS, p.tr->nproc);
}
