/*
 * Pieces of the HTML reports (report-html.c, workload/workload-html.c):
 * escaping, durations, the notes and the base style (html.c), and the two
 * SVG figures (report-html-svg.c), the median run's timeline and the
 * distribution of totals across runs.
 */
#ifndef LDPROF_HTML_H
#define LDPROF_HTML_H

#include <stdio.h>

#include "model/analyze.h"

/* Text with &, <, >, " and ' escaped. */
void html_text(FILE *f, const char *s);
/* "612.3 µs", "1.482 ms", "2.10 s"; "-" for NaN. */
void html_dur(char *buf, size_t n, double us);
/* The notes as a list in a section of their own; nothing when there are none. */
void html_notes(FILE *f, char *const *notes, size_t n);

/* The first rules of every page's style sheet: the page, headings, code and tables. */
#define HTML_BASE_STYLE                                                                            \
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"                           \
	"body{font:14px/1.4 system-ui,sans-serif;color:#222;background:#fff;max-width:1240px;"     \
	"margin:0 auto;padding:12px 20px}\n"                                                       \
	"h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:18px 0 6px}\n"                    \
	"code{font:13px ui-monospace,monospace}.sub,.hint{color:#666}.hint{font-size:12px}\n"      \
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"                      \
	"th,td{padding:2px 8px;border-bottom:1px solid #e4e4e4;text-align:right;"                  \
	"white-space:nowrap}\n"

/* The median run: a row of phases and one bar (g.bar) per shown object. */
void html_timeline_svg(FILE *f, const struct report *rep);
/* A histogram of the counted runs' totals, with the plain runs' when there are. */
void html_distribution_svg(FILE *f, const struct report *rep);

#endif
