/*
 * Renderers of the workload report (`ldprof -f`, model/workload.h): text,
 * JSON (docs/json.md, ldprof-workload/1), CSV (one row per exec), Chrome
 * trace (one track per process) and HTML (the tree as a timeline).
 */
#ifndef LDPROF_WORKLOAD_RENDER_H
#define LDPROF_WORKLOAD_RENDER_H

#include <stdio.h>

#include "model/workload/workload.h"
#include "render/render.h"

void render_workload_text(FILE *f, const struct workload *w, const struct text_style *st);
/* The process tree of the median run, repeated siblings collapsed (workload-tree.c). */
void render_workload_tree(FILE *f, const struct workload *w, const struct text_style *st);
void render_workload_json(FILE *f, const struct workload *w);
/* The ldprof-workload/1 object as a value inside another document (compare -f). */
struct json;
void render_workload_json_obj(struct json *j, const char *key, const struct workload *w);
void render_workload_csv(FILE *f, const struct workload *w);
void render_workload_chrome(FILE *f, const struct workload *w, bool all_runs);
void render_workload_html(FILE *f, const struct workload *w);
/* The page's figure: the median run's tree as a timeline, startup shaded (workload-html-svg.c). */
void html_workload_svg(FILE *f, const struct workload *w);

/*
 * compare -f and diff: both workloads' figures side by side, the sides
 * named side[0] and side[1] ("A", "B"; "before", "after"), after the
 * ratio or change of their totals (workload-compare.c).
 */
void render_workload_compare(FILE *f, const struct trace *const t[2], const char *const side[2],
			     const struct text_style *st);

/* A path as the user would type it: relative to the trace's cwd when under it. */
const char *wl_short_path(const struct trace *t, const char *path);
/* The command line of an exec: its argv when the shim saw it, else its path (term-safe). */
void wl_command(const struct trace *t, const struct tree_exec *e, char *buf, size_t n);

#endif
