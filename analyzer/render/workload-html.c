/* The workload as one HTML page: filled in below. */
#include "render/workload-render.h"

void render_workload_html(FILE *f, const struct workload *w)
{
	(void)w;
	fputs("<!doctype html><title>ldprof -f</title><p>not yet</p>\n", f);
}
