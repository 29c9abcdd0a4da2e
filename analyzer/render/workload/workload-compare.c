/*
 * compare -f and diff of two -f traces: where two workloads' times differ,
 * after the ratio or change of their totals: the loader and CPU per run of each, then per binary
 * (matched by path) and per library (matched by file) side by side, the
 * largest difference first. Each figure is the workload report's own
 * (model/workload.h); B-A is the difference of those figures, a point
 * estimate (the ratio above carries the confidence interval).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/out/textsafe.h"
#include "render/workload/workload-render.h"

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
	render_dur(buf + (us > 0), n - 1, us, utf8);
}

/*
 * B's figure minus A's. A side where the row never ran counts 0; a side
 * where it ran but nothing was measured (no records) makes the difference
 * unknown: NAN, never that side's absence passed off as a saving.
 */
static double gap(const struct row *r)
{
	double v[2];

	for (int s = 0; s < 2; s++) {
		if (isnan(r->v[s]) && r->execs[s] > 0)
			return NAN;
		v[s] = isnan(r->v[s]) ? 0 : r->v[s];
	}
	return v[1] - v[0];
}

static int by_gap(const void *pa, const void *pb)
{
	double x = fabs(gap(pa)), y = fabs(gap(pb));

	/* Unknown differences last. */
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
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

static void print_rows(FILE *f, const char *const side[2], const char *title, const char *what,
		       struct row *rows, size_t n, bool utf8)
{
	char a[32], b[32], d[32], ea[16], eb[16], ha[32], hb[32], hd[48];
	int width = (int)strlen(what);

	if (n)
		qsort(rows, n, sizeof *rows, by_gap);
	for (size_t i = 0; i < n && i < ROWS; i++) {
		int k = (int)strlen(term_safe(rows[i].name));
		width = k > width ? k : width;
	}
	snprintf(ha, sizeof ha, "%s execs", side[0]);
	snprintf(hb, sizeof hb, "%s execs", side[1]);
	snprintf(hd, sizeof hd, "%s-%s", side[1], side[0]);
	fprintf(f, "\n  %s\n  %-*s %12s %11s %12s %11s %13s\n", title, width, what, ha, side[0], hb,
		side[1], hd);
	for (size_t i = 0; i < n && i < ROWS; i++) {
		const struct row *r = &rows[i];
		render_dur(a, sizeof a, r->v[0], utf8);
		render_dur(b, sizeof b, r->v[1], utf8);
		if (isnan(gap(r)) || (isnan(r->v[0]) && isnan(r->v[1])))
			snprintf(d, sizeof d, "-");
		else
			signed_dur(d, sizeof d, gap(r), utf8);
		execs_cell(ea, sizeof ea, r->execs[0], r->v[0]);
		execs_cell(eb, sizeof eb, r->execs[1], r->v[1]);
		fprintf(f, "  %-*s %12s %11s %12s %11s %13s\n", width, term_safe(r->name), ea, a,
			eb, b, d);
	}
	if (n > ROWS)
		fprintf(f, "  ... and %zu more\n", n - ROWS);
}

static void binaries(FILE *f, const char *const side[2], const struct workload w[2], bool utf8)
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
	print_rows(f, side,
		   "per binary: startup per run (exec to main), the largest difference first",
		   "binary", rows, n, utf8);
	free(rows);
}

static void libraries(FILE *f, const char *const side[2], const struct workload w[2], bool utf8)
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
	print_rows(f, side,
		   "per library: load + reloc + init per run, the largest difference first",
		   "library", rows, n, utf8);
	free(rows);
}

static void figure(FILE *f, const char *what, double a, double b, bool utf8)
{
	char x[32], y[32], d[32];

	render_dur(x, sizeof x, a, utf8);
	render_dur(y, sizeof y, b, utf8);
	signed_dur(d, sizeof d, b - a, utf8);
	fprintf(f, "  %-38s %11s %11s %13s\n", what, x, y, d);
}

void render_workload_compare(FILE *f, const struct trace *const t[2], const char *const side[2],
			     const struct text_style *st)
{
	struct workload w[2];
	char hd[48];

	workload_build(t[0], &w[0]);
	workload_build(t[1], &w[1]);
	snprintf(hd, sizeof hd, "%s-%s", side[1], side[0]);
	fprintf(f, "\n  %-38s %11s %11s %13s\n", "per run (medians, profiled runs)", side[0],
		side[1], hd);
	figure(f, "wall time", w[0].wall.median, w[1].wall.median, st->utf8);
	figure(f, "CPU time", w[0].cpu.median, w[1].cpu.median, st->utf8);
	figure(f, "the loader (exec + load + relocate)", w[0].loader_us.median,
	       w[1].loader_us.median, st->utf8);
	figure(f, "  of which load + relocate", w[0].mapping_us.median, w[1].mapping_us.median,
	       st->utf8);
	fprintf(f, "  %-38s %11.0f %11.0f %+13.0f\n", "execs", w[0].execs.median, w[1].execs.median,
		w[1].execs.median - w[0].execs.median);
	binaries(f, side, w, st->utf8);
	libraries(f, side, w, st->utf8);
	fprintf(f,
		"  (each side's own workload report; %s is the difference of its figures; a "
		"binary without records shows -)\n",
		hd);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < w[s].nnotes; i++)
			fprintf(f, "  note (%s): %s\n", side[s], term_clean(w[s].notes[i]));
		workload_free(&w[s]);
	}
}
