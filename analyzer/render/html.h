/*
 * Pieces of the HTML report (report-html.c): escaping and durations
 * (html.c), and the two SVG figures (report-html-svg.c), the median run's
 * timeline and the distribution of totals across runs.
 */
#ifndef LDPROF_HTML_H
#define LDPROF_HTML_H

#include <stdio.h>

#include "model/analyze.h"

/* Text with &, <, >, " and ' escaped. */
void html_text(FILE *f, const char *s);
/* "612.3 µs", "1.482 ms", "2.10 s"; "-" for NaN. */
void html_dur(char *buf, size_t n, double us);

/* The median run: a row of phases and one bar (g.bar) per shown object. */
void html_timeline_svg(FILE *f, const struct report *rep);
/* A histogram of the counted runs' totals, with the plain runs' when there are. */
void html_distribution_svg(FILE *f, const struct report *rep);

#endif
