/*
 * compare -f: where two workloads' times differ, after compare's ratio of
 * their plain runs: the loader and CPU per run of each, then per binary
 * (matched by path) and per library (matched by file) side by side, the
 * largest difference first. Each figure is the workload report's own
 * (model/workload.h); B-A is the difference of those figures, a point
 * estimate (the ratio above carries the confidence interval).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/textsafe.h"
#include "render/workload-render.h"

#define ROWS 12 /* per table; the JSON of each side has them all */

struct row {
	const char *name;
	double v[2]; /* per run; NAN: that side has none */
	double execs[2];
};

/* A difference: "+5.210 ms", "-12.0 µs". */
static void signed_dur(char *buf, size_t n, double us, bool utf8)
{
	if (n < 2)
		return;
	buf[0] = '+';
	wl_fmt_dur(buf + (us > 0), n - 1, us, utf8);
}

static int by_gap(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	double x = fabs((isnan(a->v[1]) ? 0 : a->v[1]) - (isnan(a->v[0]) ? 0 : a->v[0]));
	double y = fabs((isnan(b->v[1]) ? 0 : b->v[1]) - (isnan(b->v[0]) ? 0 : b->v[0]));

	return (x < y) - (x > y);
}

static struct row *find_row(struct row *rows, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	rows[*n] = (struct row){name, {NAN, NAN}, {0, 0}};
	return &rows[(*n)++];
}

static void execs_cell(char *buf, size_t n, double execs, double v)
{
	if (execs > 0 || !isnan(v))
		snprintf(buf, n, "%.1f", execs);
	else
		snprintf(buf, n, "-");
}

static void print_rows(FILE *f, const char *title, const char *what, struct row *rows, size_t n,
		       bool utf8)
{
	char a[32], b[32], d[32], ea[16], eb[16];
	int width = (int)strlen(what);

	if (n)
		qsort(rows, n, sizeof *rows, by_gap);
	for (size_t i = 0; i < n && i < ROWS; i++) {
		int k = (int)strlen(term_safe(rows[i].name));
		width = k > width ? k : width;
	}
	fprintf(f, "\n  %s\n  %-*s %7s %11s %7s %11s %11s\n", title, width, what, "A execs", "A",
		"B execs", "B", "B-A");
	for (size_t i = 0; i < n && i < ROWS; i++) {
		const struct row *r = &rows[i];
		wl_fmt_dur(a, sizeof a, r->v[0], utf8);
		wl_fmt_dur(b, sizeof b, r->v[1], utf8);
		if (isnan(r->v[0]) && isnan(r->v[1]))
			snprintf(d, sizeof d, "-");
		else
			signed_dur(d, sizeof d,
				   (isnan(r->v[1]) ? 0 : r->v[1]) - (isnan(r->v[0]) ? 0 : r->v[0]), utf8);
		execs_cell(ea, sizeof ea, r->execs[0], r->v[0]);
		execs_cell(eb, sizeof eb, r->execs[1], r->v[1]);
		fprintf(f, "  %-*s %7s %11s %7s %11s %11s\n", width, term_safe(r->name), ea, a, eb, b,
			d);
	}
	if (n > ROWS)
		fprintf(f, "  ... and %zu more\n", n - ROWS);
}

static void binaries(FILE *f, const struct workload w[2], bool utf8)
{
	struct row *rows = xcalloc(w[0].nbins + w[1].nbins + 1, sizeof *rows);
	size_t n = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < w[s].nbins; i++) {
			const struct wl_binary *b = &w[s].bins[i];
			struct row *r = find_row(rows, &n, wl_short_path(w[s].t, b->path));
			/* A binary without records still took its wall time: say which. */
			r->v[s] = b->analyzed ? b->startup_us_per_run : NAN;
			r->execs[s] = b->execs_per_run;
		}
	print_rows(f, "per binary: startup per run (exec to main), the largest difference first",
		   "binary", rows, n, utf8);
	free(rows);
}

static void libraries(FILE *f, const struct workload w[2], bool utf8)
{
	struct row *rows = xcalloc(w[0].nlibs + w[1].nlibs + 1, sizeof *rows);
	size_t n = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < w[s].nlibs; i++) {
			const struct wl_library *l = &w[s].libs[i];
			struct row *r = find_row(rows, &n, l->soname ? l->soname : l->path);
			r->v[s] = l->total_us;
			r->execs[s] = l->execs_per_run;
		}
	print_rows(f, "per library: load + reloc + init per run, the largest difference first",
		   "library", rows, n, utf8);
	free(rows);
}

static void figure(FILE *f, const char *what, double a, double b, bool utf8)
{
	char x[32], y[32], d[32];

	wl_fmt_dur(x, sizeof x, a, utf8);
	wl_fmt_dur(y, sizeof y, b, utf8);
	signed_dur(d, sizeof d, b - a, utf8);
	fprintf(f, "  %-38s %11s %11s %11s\n", what, x, y, d);
}

void render_workload_compare(FILE *f, const struct trace *const t[2], const struct text_style *st)
{
	struct workload w[2];

	workload_build(t[0], &w[0]);
	workload_build(t[1], &w[1]);
	fprintf(f, "\n  %-38s %11s %11s %11s\n", "per run (medians, profiled runs)", "A", "B",
		"B-A");
	figure(f, "wall time", w[0].wall.median, w[1].wall.median, st->utf8);
	figure(f, "CPU time", w[0].cpu.median, w[1].cpu.median, st->utf8);
	figure(f, "the loader (exec + load + relocate)", w[0].loader_us.median,
	       w[1].loader_us.median, st->utf8);
	figure(f, "  of which load + relocate", w[0].mapping_us.median, w[1].mapping_us.median,
	       st->utf8);
	fprintf(f, "  %-38s %11.0f %11.0f %+11.0f\n", "execs", w[0].execs.median, w[1].execs.median,
		w[1].execs.median - w[0].execs.median);
	binaries(f, w, st->utf8);
	libraries(f, w, st->utf8);
	fprintf(f,
		"  (each side's own workload report; B-A is the difference of its figures; a "
		"binary without records shows -)\n");
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < w[s].nnotes; i++)
			fprintf(f, "  note (%c): %s\n", "AB"[s], term_clean(w[s].notes[i]));
		workload_free(&w[s]);
	}
}
