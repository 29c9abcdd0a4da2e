/* Renderers of a run report: a text table for people, JSON for programs. */
#ifndef LDPROF_RENDER_H
#define LDPROF_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "model/analyze.h"

struct text_style {
	bool color; /* ANSI colours: a tty and NO_COLOR unset, or --color=always */
	bool utf8;  /* bars and "µs"; ASCII otherwise */
};

/* "612.3 µs" ("us" without utf8), "1.482 ms", "2.10 s"; "-" for NaN (dur.c). */
void render_dur(char *buf, size_t n, double us, bool utf8);

void render_text(FILE *f, const struct report *rep, const struct text_style *st);
void render_json(FILE *f, const struct report *rep);
/* The ldprof-run/1 object as a value inside another document. */
struct json;
void render_json_obj(struct json *j, const char *key, const struct report *rep);
/* A summary over runs (median, ci95, min, max, mad, mean, n), or null when empty. */
struct summary;
void render_json_summary(struct json *j, const char *key, const struct summary *s);
/* Opens a report's object: its schema, ldprof's version and the trace's command. */
void render_json_head(struct json *j, const char *key, const char *schema, const struct trace *t);
/* The notes as an array of strings. */
void render_json_notes(struct json *j, char *const *notes, size_t n);

/* The other --format outputs (docs/json.md): chrome and folded show the median run or all. */
void render_csv(FILE *f, const struct report *rep);
/* A CSV cell after its comma: the value to 3 decimals, empty when not finite. */
void render_csv_num(FILE *f, double v);
void render_hyperfine(FILE *f, const struct report *rep);
/* The plain runs of several traces side by side (compare), hyperfine's way. */
void render_hyperfine_plain(FILE *f, const struct trace *const *t, size_t n);
void render_chrome(FILE *f, const struct report *rep, bool all_runs);
void render_folded(FILE *f, const struct report *rep, bool all_runs);
void render_html(FILE *f, const struct report *rep);

/* compare's and audit's reports, text or JSON, to stdout or -o (render/output.h). */
struct out_opts;
struct compare;
struct audit;
struct errbuf;
int compare_write(const struct out_opts *o, const struct compare *c, struct errbuf *err);
int audit_write(const struct out_opts *out, const struct audit *a, size_t top, struct errbuf *err);

/* Style for stdout: colour policy "auto", "always" or "never". */
int text_style_for(FILE *f, const char *color_policy, struct text_style *st);

#endif
