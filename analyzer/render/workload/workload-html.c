/*
 * The workload report as one self-contained HTML page (nothing fetched):
 * the whole workload's figures, the median run's tree as a timeline with
 * each process's startup shaded (workload-html-svg.c), the per-binary and
 * per-library tables and the notes.
 */
#include <math.h>
#include <stdlib.h>

#include "base/version.h"
#include "render/html.h"
#include "render/workload/workload-render.h"

static const char style[] =
	"<style>\n" HTML_BASE_STYLE "th:first-child,td:first-child{text-align:left}\n"
	"svg{width:100%;height:auto;display:block}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#333}svg "
	".axis{text-anchor:middle;fill:#777}\n"
	"svg "
	".tick{stroke:#eee}.life{fill:#ddd;background:#ddd}.exec{fill:#9ecae1;background:#9ecae1}"
	".exec.norec{fill:#bbb;background:#bbb}.startup{fill:#08519c;background:#08519c}\n"
	".legend span{display:inline-block;margin-right:14px;font-size:12px}"
	".legend "
	"i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}\n"
	"footer{margin-top:24px;color:#999;font-size:12px}\n"
	"</style>\n";

static void dur_td(FILE *f, double us)
{
	char d[32];

	html_dur(d, sizeof d, us);
	fprintf(f, "<td>%s</td>", d);
}

static void pct_td(FILE *f, double share)
{
	if (isnan(share))
		fputs("<td>-</td>", f);
	else
		fprintf(f, "<td>%.1f%%</td>", 100 * share);
}

static void header(FILE *f, const struct workload *w)
{
	const struct trace *t = w->t;
	char a[32], lo[32], hi[32], u[32], s[32], l[32];

	fputs("<header><h1>ldprof -f: <code>", f);
	for (int i = 0; i < t->argc; i++) {
		fputs(i ? " " : "", f);
		html_text(f, t->argv[i]);
	}
	fprintf(f, "</code></h1>\n<p class=\"sub\">the whole workload, %zu runs", w->runs);
	if (w->plain_runs)
		fprintf(f, ", %zu plain runs interleaved", w->plain_runs);
	fprintf(f, "; %.0f processes and %.0f execs per run</p>\n", w->procs.median,
		w->execs.median);
	html_dur(a, sizeof a, w->wall.median);
	html_dur(lo, sizeof lo, w->wall.ci_lo);
	html_dur(hi, sizeof hi, w->wall.ci_hi);
	html_dur(u, sizeof u, w->cpu_user.median);
	html_dur(s, sizeof s, w->cpu_sys.median);
	html_dur(l, sizeof l, w->loader_us.median);
	fprintf(f,
		"<p>Wall time <b>%s</b> <span class=\"sub\">(median; 95%% CI %s to %s)</span>; "
		"CPU: user %s, system %s.</p>\n"
		"<p>The loader: <b>%s</b> per run, <b>%.1f%%</b> of the wall time and %.1f%% of "
		"the CPU time <span class=\"sub\">(the exec, load and relocate phases of every "
		"recorded exec)</span>.</p>\n",
		a, lo, hi, u, s, l, 100 * w->loader_share_wall.median,
		100 * w->loader_share_cpu.median);
	if (w->whole.have_overhead) {
		html_dur(a, sizeof a, w->whole.overhead_us);
		fprintf(f,
			"<p class=\"sub\">Overhead of following and recording: %s (%+.1f%%) per "
			"run against %zu plain runs.</p>\n",
			a, w->whole.overhead_pct, w->plain_runs);
	}
	fputs("</header>\n", f);
}

/* The costliest dynamic binaries in a sentence each, as the text report says them. */
static void verdicts(FILE *f, const struct workload *w)
{
	size_t shown = 0;
	char each[32], st[32], save[32];

	for (size_t i = 0; i < w->nbins && shown < 3; i++) {
		const struct wl_binary *b = &w->bins[i];
		if (!b->dynamic || !b->analyzed)
			continue;
		fputs(shown++ ? "<li><b>" : "<ul class=\"verdicts\">\n<li><b>", f);
		html_text(f, wl_short_path(w->t, b->path));
		html_dur(each, sizeof each,
			 b->loader_us_per_run * (double)w->runs / (double)b->loader_n);
		html_dur(st, sizeof st, b->startup_us_per_run);
		fprintf(f,
			"</b>: %.0f %s, %s each in the loader on average, %s of startup per run "
			"(%.1f%% of the workload)",
			b->execs_per_run, b->execs_per_run == 1 ? "exec" : "execs", each, st,
			100 * b->startup_share);
		if (b->have_static) {
			html_dur(save, sizeof save, b->static_saved_us_per_run);
			fprintf(f, "; static linking would save &asymp; %s", save);
		}
		fputs("</li>\n", f);
	}
	if (shown)
		fputs("</ul>\n", f);
}

static void binaries(FILE *f, const struct workload *w)
{
	fputs("<section id=\"binaries\"><h2>Per binary</h2>\n<table><thead><tr><th>binary</th>"
	      "<th>execs/run</th><th>exec</th><th>load</th><th>relocate</th><th>init</th>"
	      "<th>startup/run</th><th>share</th><th>static link "
	      "saves/run</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < w->nbins; i++) {
		const struct wl_binary *b = &w->bins[i];
		fputs("<tr><td>", f);
		html_text(f, wl_short_path(w->t, b->path));
		fprintf(f, "</td><td>%.1f</td>", b->execs_per_run);
		for (int p = 0; p < 4; p++)
			dur_td(f, b->have_rep && b->rep.phase[p].n ? b->rep.phase[p].median : NAN);
		dur_td(f, b->startup_us_per_run);
		pct_td(f, b->startup_share);
		dur_td(f, b->have_static ? b->static_saved_us_per_run : NAN);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"hint\">Phases: medians per exec over the recorded "
	      "execs. Startup: exec to main, summed over a binary's execs per run.</p>\n",
	      f);
	verdicts(f, w);
	fputs("</section>\n", f);
}

static void libraries(FILE *f, const struct workload *w)
{
	fputs("<section id=\"libraries\"><h2>Per library, across the tree</h2>\n<table><thead><tr>"
	      "<th>library</th><th>execs/run</th><th>load</th><th>reloc</th><th>init</th>"
	      "<th>total/run</th><th>share</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < w->nlibs; i++) {
		const struct wl_library *l = &w->libs[i];
		fputs("<tr><td>", f);
		html_text(f, l->path);
		fprintf(f, "</td><td>%.1f</td>", l->execs_per_run);
		dur_td(f, l->load_us);
		dur_td(f, l->reloc_us);
		dur_td(f, l->init_us);
		dur_td(f, l->total_us);
		pct_td(f, l->share);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></section>\n", f);
}

void render_workload_html(FILE *f, const struct workload *w)
{
	fputs("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>ldprof -f: ",
	      f);
	html_text(f, w->t->argc ? w->t->argv[0] : "");
	fprintf(f, "</title>\n%s</head><body>\n", style);
	header(f, w);
	fputs("<section id=\"timeline\"><h2>The process tree of the median run</h2>\n"
	      "<p class=\"legend\"><span><i class=\"life\"></i>process</span>"
	      "<span><i class=\"exec\"></i>exec (recorded)</span>"
	      "<span><i class=\"exec norec\"></i>exec without records</span>"
	      "<span><i class=\"startup\"></i>startup: exec to main</span></p>\n",
	      f);
	html_workload_svg(f, w);
	fputs("</section>\n", f);
	binaries(f, w);
	libraries(f, w);
	html_notes(f, w->notes, w->nnotes);
	fputs("<footer>ldprof " LDPROF_VERSION "</footer>\n</body></html>\n", f);
}
