/*
 * The HTML report's figures, as inline SVG (no script, no network): the
 * median run's timeline and the distribution of totals across runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/html.h"
#include "model/timeline.h"

#define SVG_W	1200
#define PLOT_X	220.0
#define PLOT_W	960.0
#define AXIS_Y	14
#define PHASE_Y 22
#define PHASE_H 26
#define ROWS_Y	60
#define ROW_H	18
#define BAR_H	12

static double xpos(int64_t ns, int64_t total)
{
	return PLOT_X + (total > 0 ? (double)ns / (double)total * PLOT_W : 0);
}

/* A round step for about n ticks over span: 1, 2 or 5 times a power of ten. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw > 0 ? raw : 1)));

	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

/* Ticks along the top of the timeline, in the duration's own unit. */
static void time_axis(FILE *f, int64_t total_ns, int rows_h)
{
	double step = nice_step((double)total_ns / 1000, 8);
	char label[32];

	for (double us = 0; us * 1000 <= (double)total_ns; us += step) {
		double x = xpos((int64_t)(us * 1000), total_ns);
		html_dur(label, sizeof label, us);
		fprintf(f,
			"<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			"<text class=\"axis\" x=\"%.1f\" y=\"%d\">%s</text>\n",
			x, x, AXIS_Y + 2, ROWS_Y + rows_h, x, AXIS_Y - 4, label);
	}
}

static void slice_rect(FILE *f, const char *cls, double x0, double x1, int y, int h,
		       const char *what, int64_t ns)
{
	char d[32];

	html_dur(d, sizeof d, (double)ns / 1000);
	fprintf(f, "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"><title>",
		cls, x0, y, fmax(x1 - x0, 1), h);
	html_text(f, what);
	fprintf(f, " %s</title></rect>\n", d);
}

static void phase_row(FILE *f, const struct timeline *tl, int64_t total)
{
	fputs("<g class=\"phases\">\n", f);
	for (size_t i = 0; i < tl->n; i++) {
		const struct tl_slice *s = &tl->s[i];
		if (s->kind != TL_PHASE)
			continue;
		double x0 = xpos(s->start_ns, total), x1 = xpos(s->end_ns, total);
		char cls[32];
		snprintf(cls, sizeof cls, "ph ph-%s", phase_name(s->phase));
		slice_rect(f, cls, x0, x1, PHASE_Y, PHASE_H, phase_name(s->phase),
			   s->end_ns - s->start_ns);
		if (x1 - x0 > 44)
			fprintf(f, "<text class=\"phlabel\" x=\"%.1f\" y=\"%d\">%s</text>\n",
				(x0 + x1) / 2, PHASE_Y + 17, phase_name(s->phase));
	}
	fprintf(f, "<text class=\"lbl\" x=\"%.0f\" y=\"%d\">phases</text>\n</g>\n", PLOT_X - 8,
		PHASE_Y + 17);
}

/* One object's row: its label, a guide line, and its slices in the run. */
static void object_bar(FILE *f, const struct report *rep, const struct timeline *tl, uint32_t obj,
		       int y, int64_t total)
{
	static const char *const words[] = {"", "", "load", "relocate", "init", "fini"};
	const struct trace_object *o = &rep->t->obj[obj];
	char what[512];

	fputs("<g class=\"bar\" data-lib=\"", f);
	html_text(f, o->path);
	fprintf(f, "\">\n<text class=\"lbl\" x=\"%.0f\" y=\"%d\">", PLOT_X - 8, y + BAR_H - 2);
	html_text(f, object_label(o));
	fprintf(f, "</text><line class=\"guide\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%d\" y2=\"%d\"/>\n",
		PLOT_X, PLOT_X + PLOT_W, y + BAR_H / 2, y + BAR_H / 2);
	for (size_t i = 0; i < tl->n; i++) {
		const struct tl_slice *s = &tl->s[i];
		if (s->obj != obj)
			continue;
		char cls[32];
		snprintf(cls, sizeof cls, "seg seg-%s", tl_kind_name(s->kind));
		snprintf(what, sizeof what, "%s %s%s", object_label(o), words[s->kind],
			 s->estimated ? " (estimated)" : "");
		slice_rect(f, cls, xpos(s->start_ns, total), xpos(s->end_ns, total), y, BAR_H, what,
			   s->end_ns - s->start_ns);
	}
	fputs("</g>\n", f);
}

void html_timeline_svg(FILE *f, const struct report *rep)
{
	size_t run = median_run(rep), rows = 0;
	struct timeline tl = {0};

	if (run == SIZE_MAX) {
		fputs("<p>No run with the shim's data to show.</p>\n", f);
		return;
	}
	timeline_build(rep, run, &tl);
	for (size_t i = 0; i < rep->nobjs; i++)
		rows += object_shown(&rep->t->obj[rep->objs[i].obj]);
	int64_t total = tl.s[0].end_ns;
	int h = ROWS_Y + (int)rows * ROW_H + 8;
	fprintf(f,
		"<svg id=\"timeline-svg\" class=\"timeline\" viewBox=\"0 0 %d %d\" "
		"preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
		"aria-label=\"Timeline of the median run: phases, and one bar per library\">\n",
		SVG_W, h);
	time_axis(f, total, (int)rows * ROW_H);
	phase_row(f, &tl, total);
	for (size_t i = 0, k = 0; i < rep->nobjs; i++) {
		uint32_t o = rep->objs[i].obj;
		if (object_shown(&rep->t->obj[o]))
			object_bar(f, rep, &tl, o, ROWS_Y + (int)k++ * ROW_H, total);
	}
	fputs("</svg>\n", f);
	timeline_free(&tl);
}

#define BINS   40
#define HIST_H 160
#define HIST_X 70.0
#define HIST_W 1100.0

struct hist {
	double lo, hi; /* the range binned; values above hi go in the last bin */
	unsigned count[2][BINS], max;
};

static void fill(struct hist *h, int k, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* Clamped as a double: a damaged trace's total need not fit an int. */
		double x = (v[i] - h->lo) / (h->hi - h->lo) * BINS;
		int b = !(x >= 0) ? 0 : x >= BINS ? BINS - 1 : (int)x;
		if (++h->count[k][b] > h->max)
			h->max = h->count[k][b];
	}
}

static double hx(const struct hist *h, double us)
{
	return HIST_X + (us - h->lo) / (h->hi - h->lo) * HIST_W;
}

static void hist_bars(FILE *f, const struct hist *h, int kinds)
{
	double bw = HIST_W / BINS;

	for (int k = 0; k < kinds; k++)
		for (int b = 0; b < BINS; b++) {
			double bh = (double)h->count[k][b] / h->max * HIST_H;
			if (!h->count[k][b])
				continue;
			fprintf(f,
				"<rect class=\"hist-%c\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"><title>%u runs</title></rect>\n",
				k ? 'b' : 'a', HIST_X + b * bw + (kinds == 2 ? k * bw / 2 : 0),
				10 + HIST_H - bh, kinds == 2 ? bw / 2 - 1 : bw - 1, bh,
				h->count[k][b]);
		}
}

static void hist_axis(FILE *f, const struct hist *h, const struct summary *s)
{
	double step = nice_step(h->hi - h->lo, 6);
	char d[32];

	fprintf(f, "<rect class=\"ci\" x=\"%.1f\" y=\"10\" width=\"%.1f\" height=\"%d\"/>\n",
		hx(h, s->ci_lo), fmax(hx(h, s->ci_hi) - hx(h, s->ci_lo), 1), HIST_H);
	fprintf(f, "<line class=\"median\" x1=\"%.1f\" x2=\"%.1f\" y1=\"6\" y2=\"%d\"/>\n",
		hx(h, s->median), hx(h, s->median), HIST_H + 10);
	for (double us = ceil(h->lo / step) * step; us <= h->hi; us += step) {
		html_dur(d, sizeof d, us);
		fprintf(f, "<text class=\"axis\" x=\"%.1f\" y=\"%d\">%s</text>\n", hx(h, us),
			HIST_H + 26, d);
	}
	fprintf(f, "<text class=\"axis\" x=\"%.0f\" y=\"20\" text-anchor=\"end\">%u runs</text>\n",
		HIST_X - 6, h->max);
}

void html_distribution_svg(FILE *f, const struct report *rep)
{
	const struct trace *t = rep->t;
	double *a = xmalloc((t->nrun + 1) * sizeof *a), *b = xmalloc((t->nrun + 1) * sizeof *b);
	double *all = xmalloc((2 * t->nrun + 1) * sizeof *all);
	size_t na = trace_counted_totals(t, rep->profiled, a),
	       nb = rep->profiled ? trace_counted_totals(t, false, b) : 0;
	struct hist h = {0};

	memcpy(all, a, na * sizeof *a);
	memcpy(all + na, b, nb * sizeof *b);
	qsort(all, na + nb, sizeof *all, cmp_double);
	if (na) {
		/* The top 1% would squash the rest into a few bins: it goes in the last one. */
		h.lo = all[0];
		h.hi = all[(size_t)((double)(na + nb - 1) * 0.99)];
		if (h.hi <= h.lo)
			h.hi = h.lo + 1;
		fill(&h, 0, a, na);
		fill(&h, 1, b, nb);
		fprintf(f,
			"<svg id=\"distribution-svg\" viewBox=\"0 0 %d %d\" role=\"img\" "
			"aria-label=\"Distribution of the total time across runs\">\n",
			SVG_W, HIST_H + 34);
		hist_bars(f, &h, nb ? 2 : 1);
		hist_axis(f, &h, &rep->total);
		fputs("</svg>\n", f);
	}
	free(a);
	free(b);
	free(all);
}
