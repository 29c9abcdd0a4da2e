/*
 * The HTML report: one self-contained page (inline CSS, SVG and a few
 * lines of script; nothing fetched), readable at 1280x800 and in print.
 * The timeline of the median run, the phases, the per-library table
 * (sortable by column), the distribution of totals, the static-link
 * verdict and recommendations when the model gave them, --sample's flame
 * graph (samples-html.c), and the notes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/html.h"
#include "render/render.h"
#include "render/samples.h"
#include "model/timeline.h"
#include "base/version.h"

static const char style[] =
	"<style>\n" HTML_BASE_STYLE "td.w{white-space:normal}\n"
	"th:first-child,td:first-child,.l{text-align:left}\n"
	"table.sortable th{cursor:pointer;user-select:none}\n"
	"th[aria-sort=ascending]::after{content:' \\25b2'}"
	"th[aria-sort=descending]::after{content:' \\25bc'}\n"
	"svg{width:100%;height:auto;display:block}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#333}\n"
	"svg .lbl{text-anchor:end}svg .axis{text-anchor:middle;fill:#777}\n"
	"svg .phlabel{text-anchor:middle;fill:#111}\n"
	"svg .tick{stroke:#eee}svg .guide{stroke:#f0f0f0}\n"
	".ph-exec,.sw-exec{fill:#8da0cb;background:#8da0cb}"
	".ph-load,.seg-load,.sw-load{fill:#66c2a5;background:#66c2a5}\n"
	".ph-relocate,.seg-reloc,.sw-reloc{fill:#fc8d62;background:#fc8d62}"
	".ph-init,.seg-init,.sw-init{fill:#e78ac3;background:#e78ac3}\n"
	".ph-main,.sw-main{fill:#a6d854;background:#a6d854}"
	".ph-exit,.seg-fini,.sw-fini{fill:#e5c494;background:#e5c494}\n"
	".hist-a{fill:#6a8fc7}.hist-b{fill:#bbb}.ci{fill:#6a8fc7;opacity:.15}"
	".median{stroke:#c33;stroke-width:2}\n"
	".legend span{display:inline-block;margin-right:14px;font-size:12px}"
	".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;"
	"vertical-align:-2px}\n"
	".verdict{border-left:4px solid #6a8fc7;padding:4px 12px;background:#f5f8fc}\n"
	"footer{margin-top:24px;color:#999;font-size:12px}\n"
	"@media print{body{max-width:none;padding:0;font-size:10pt}.hint{display:none}"
	"section{break-inside:avoid}table.sortable th{cursor:auto}svg text{font-size:15px}}\n"
	"</style>\n";

/* Click a column to sort by it (numbers descending first); #sort=KEY[-asc|-desc] on load. */
static const char script[] =
	"<script>\n"
	"(function(){\n"
	"function sortBy(t,i,asc){var th=t.tHead.rows[0].cells[i],num=th.dataset.type==='num',"
	"b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows);\n"
	"function v(r){var c=r.cells[i],x=c.dataset.v!==undefined?c.dataset.v:c.textContent;"
	"if(!num)return x.toLowerCase();x=parseFloat(x);return isNaN(x)?-Infinity:x}\n"
	"rows.sort(function(p,q){var x=v(p),y=v(q);return (x<y?-1:x>y?1:0)*(asc?1:-1)});\n"
	"rows.forEach(function(r){b.appendChild(r)});\n"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(c){c.removeAttribute("
	"'aria-sort')});\n"
	"th.setAttribute('aria-sort',asc?'ascending':'descending');"
	"t.dataset.sorted=th.dataset.key+(asc?'-asc':'-desc')}\n"
	"document.querySelectorAll('table.sortable').forEach(function(t){\n"
	"Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){th.tabIndex=0;\n"
	"function go(){var s=th.getAttribute('aria-sort');sortBy(t,i,s?s==='descending':"
	"th.dataset.type!=='num')}\n"
	"th.addEventListener('click',go);th.addEventListener('keydown',function(e){"
	"if(e.key==='Enter')go()})})});\n"
	"var m=/^#sort=([a-z_]+)(?:-(asc|desc))?$/.exec(location.hash),t=document.getElementById("
	"'libs');\n"
	"if(m&&t)Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){"
	"if(th.dataset.key===m[1])sortBy(t,i,m[2]==='asc')});\n"
	"})();\n"
	"</script>\n";

static void header(FILE *f, const struct report *rep)
{
	const struct trace *t = rep->t;
	char med[32], lo[32], hi[32];

	fputs("<header><h1>ldprof: <code>", f);
	for (int i = 0; i < t->argc; i++) {
		fputs(i ? " " : "", f);
		html_text(f, t->argv[i]);
	}
	fprintf(f, "</code></h1>\n<p class=\"sub\">%s, %zu runs", elf_kind_name(t->kind),
		rep->runs);
	if (rep->warmup_runs)
		fprintf(f, " after %zu warmup", rep->warmup_runs);
	if (rep->profiled && rep->plain_runs)
		fprintf(f, ", %zu plain runs interleaved", rep->plain_runs);
	for (size_t i = 0; i < rep->noutcomes; i++) {
		char *d = describe_status(rep->outcomes[i].wait_status);
		fprintf(f, "; %s in %zu runs", d, rep->outcomes[i].runs);
		free(d);
	}
	html_dur(med, sizeof med, rep->total.median);
	html_dur(lo, sizeof lo, rep->total.ci_lo);
	html_dur(hi, sizeof hi, rep->total.ci_hi);
	fprintf(f,
		"</p>\n<p>Total <b>%s</b> <span class=\"sub\">(median; 95%% CI %s to "
		"%s)</span></p>\n"
		"</header>\n",
		med, lo, hi);
}

static void legend(FILE *f)
{
	static const char *const keys[][2] = {
		{"exec", "exec"}, {"load", "load"}, {"reloc", "relocate (estimated)"},
		{"init", "init"}, {"main", "main"}, {"fini", "exit / fini"}};

	fputs("<p class=\"legend\">", f);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		fprintf(f, "<span><i class=\"sw-%s\"></i>%s</span>", keys[i][0], keys[i][1]);
	fputs("</p>\n", f);
}

static void timeline_section(FILE *f, const struct report *rep)
{
	size_t run = median_run(rep);
	char d[32];

	if (!rep->profiled || !rep->valid_runs)
		return;
	html_dur(d, sizeof d, trace_run_us(rep->t, &rep->t->run[run]));
	fprintf(f,
		"<section id=\"timeline\"><h2>Timeline of the median run</h2>\n"
		"<p class=\"hint\">Run %zu of %zu, total %s. Relocation is the relocate phase "
		"split by %s; hover for durations.</p>\n",
		run_ordinal(rep, run), rep->runs, d,
		rep->reloc_by_model ? "the cost model" : "relocation count");
	html_timeline_svg(f, rep);
	legend(f);
	fputs("</section>\n", f);
}

static void phase_table(FILE *f, const struct report *rep)
{
	char m[32], lo[32], hi[32];

	if (!rep->profiled || !rep->valid_runs)
		return;
	fputs("<section id=\"phases\"><h2>Phases</h2>\n<table><thead><tr><th>phase</th>"
	      "<th>median</th><th>95% CI</th><th>share</th><th class=\"l\">what</th></tr></thead>"
	      "<tbody>\n",
	      f);
	for (int p = 0; p < PH_COUNT; p++) {
		const struct summary *s = &rep->phase[p];
		html_dur(m, sizeof m, s->n ? s->median : NAN);
		html_dur(lo, sizeof lo, s->n ? s->ci_lo : NAN);
		html_dur(hi, sizeof hi, s->n ? s->ci_hi : NAN);
		fprintf(f,
			"<tr><td>%s</td><td>%s</td><td>%s to %s</td><td>%.1f%%</td>"
			"<td class=\"l w\">%s</td></tr>\n",
			phase_name(p), m, lo, hi,
			s->n && rep->total.median > 0 ? 100 * s->median / rep->total.median : 0,
			phase_help(p));
	}
	fputs("</tbody></table></section>\n", f);
}

static void num_cell(FILE *f, const struct summary *s)
{
	if (!s->n || isnan(s->median))
		fputs("<td data-v=\"\">-</td>", f);
	else
		fprintf(f, "<td data-v=\"%.3f\">%.1f</td>", s->median, s->median);
}

static void library_row(FILE *f, const struct report *rep, const struct report_object *ro)
{
	const struct trace_object *o = &rep->t->obj[ro->obj];
	double pm = ro->total.n ? fmax(ro->total.median - ro->total.ci_lo,
				       ro->total.ci_hi - ro->total.median)
				: NAN;

	fputs("<tr><td data-v=\"", f);
	html_text(f, object_label(o));
	fputs("\" title=\"", f);
	html_text(f, o->path);
	fputs("\">", f);
	html_text(f, object_label(o));
	fprintf(f, "</td><td class=\"l\">%s%s</td>", role_name(o->role),
		o->dlopened ? " (dlopen)" : "");
	num_cell(f, &ro->load);
	num_cell(f, &ro->reloc);
	num_cell(f, &ro->init);
	num_cell(f, &ro->fini);
	num_cell(f, &ro->total);
	fprintf(f, "<td data-v=\"%.3f\">%.1f</td>", isnan(pm) ? 0 : pm, isnan(pm) ? 0 : pm);
	fprintf(f, "<td data-v=\"%.5f\">%.1f%%</td>", isnan(ro->share) ? 0 : ro->share,
		isnan(ro->share) ? 0 : 100 * ro->share);
	if (o->have_facts)
		fprintf(f, "<td>%llu</td></tr>\n",
			(unsigned long long)reloc_counts_total(&o->relocs));
	else
		fputs("<td data-v=\"\">-</td></tr>\n", f);
}

static void library_table(FILE *f, const struct report *rep)
{
	static const char *const cols[][3] = {
		{"name", "text", "object"}, {"role", "text", "role"},
		{"load", "num", "load"},    {"reloc", "num", "reloc"},
		{"init", "num", "init"},    {"fini", "num", "fini"},
		{"total", "num", "total"},  {"ci", "num", "+/-"},
		{"share", "num", "share"},  {"relocations", "num", "relocations"},
	};

	if (!rep->profiled || !rep->valid_runs)
		return;
	fputs("<section id=\"libraries\"><h2>Per library</h2>\n"
	      "<table id=\"libs\" class=\"sortable\"><thead><tr>",
	      f);
	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		fprintf(f, "<th data-key=\"%s\" data-type=\"%s\"%s>%s</th>", cols[i][0], cols[i][1],
			i == 1 ? " class=\"l\"" : "", cols[i][2]);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < rep->nobjs; i++)
		if (object_shown(&rep->t->obj[rep->objs[i].obj]))
			library_row(f, rep, &rep->objs[i]);
	fprintf(f,
		"</tbody></table>\n<p class=\"hint\">µs, medians over %zu runs; +/- is the "
		"total's 95%% CI half-width. Click a column to sort.</p></section>\n",
		rep->valid_runs);
}

static void distribution_section(FILE *f, const struct report *rep)
{
	fputs("<section id=\"distribution\"><h2>Total time across runs</h2>\n", f);
	html_distribution_svg(f, rep);
	fprintf(f,
		"<p class=\"hint\">Blue: the %zu %s runs (red line: median; band: its 95%% "
		"CI)%s. The slowest 1%% are counted in the last bin.</p></section>\n",
		rep->runs, rep->profiled ? "profiled" : "counted",
		rep->profiled && rep->plain_runs ? "; grey: the plain runs without the shim" : "");
}

static void saving(FILE *f, double us, double lo, double hi)
{
	char d[32], l[32], h[32];

	html_dur(d, sizeof d, us);
	if (isnan(lo) || isnan(hi) || !(hi > lo)) {
		fprintf(f, "<b>%s</b>", d);
		return;
	}
	html_dur(l, sizeof l, lo);
	html_dur(h, sizeof h, hi);
	fprintf(f, "<b>%s</b> <span class=\"sub\">(95%% CI %s to %s)</span>", d, l, h);
}

/* Only when the cost model gave a verdict or advice. */
static void verdict_section(FILE *f, const struct report *rep)
{
	if (!rep->have_verdict && !rep->nadvice)
		return;
	fputs("<section id=\"verdict\"><h2>What would help</h2>\n", f);
	if (rep->have_verdict) {
		bool hurts = rep->static_verdict == SV_HURTS;
		fputs(hurts ? "<p class=\"verdict\">Don't link statically: it would cost "
		      : rep->static_verdict == SV_SAVES
			      ? "<p class=\"verdict\">Linking statically would save "
			      : "<p class=\"verdict\">Linking statically would not measurably "
				"help: it would save ",
		      f);
		if (hurts)
			saving(f, -rep->static_saved_us, -rep->static_saved_hi,
			       -rep->static_saved_lo);
		else
			saving(f, rep->static_saved_us, rep->static_saved_lo, rep->static_saved_hi);
		fprintf(f, " per exec (%.1f%% of the start)%s.</p>\n", fabs(rep->static_saved_pct),
			rep->t->model.calibrated
				? ""
				: " <span class=\"sub\">[uncalibrated: the reference machine's "
				  "figures; run <code>ldprof calibrate</code>]</span>");
	}
	if (rep->nadvice)
		fputs("<ol class=\"advice\">\n", f);
	for (size_t i = 0; i < rep->nadvice; i++) {
		const struct advice *a = &rep->advice[i];
		fputs("<li><b>", f);
		html_text(f, a->what ? a->what : "");
		fputs("</b>: saves ", f);
		saving(f, a->saved_us, a->saved_lo, a->saved_hi);
		fputs(" &mdash; ", f);
		html_text(f, a->why ? a->why : "");
		fputs("</li>\n", f);
	}
	if (rep->nadvice)
		fputs("</ol>\n", f);
	fputs("</section>\n", f);
}

static void overhead_and_notes(FILE *f, const struct report *rep)
{
	char d[32];

	if (rep->have_overhead) {
		html_dur(d, sizeof d, fabs(rep->overhead_us));
		fprintf(f,
			"<p id=\"overhead\" class=\"sub\">Shim overhead: %c%s (%+.1f%%; 95%% CI "
			"%+.1f to %+.1f µs) against %zu plain runs.</p>\n",
			rep->overhead_us < 0 ? '-' : '+', d, rep->overhead_pct, rep->overhead_ci_lo,
			rep->overhead_ci_hi, rep->plain_runs);
	}
	html_notes(f, rep->notes, rep->nnotes);
}

void render_html(FILE *f, const struct report *rep)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, "
	      "initial-scale=1\">\n<title>ldprof: ",
	      f);
	html_text(f, path_basename(rep->t->program));
	fputs("</title>\n", f);
	fputs(style, f);
	fputs("</head>\n<body>\n", f);
	header(f, rep);
	timeline_section(f, rep);
	verdict_section(f, rep);
	phase_table(f, rep);
	library_table(f, rep);
	distribution_section(f, rep);
	render_samples_html(f, rep);
	overhead_and_notes(f, rep);
	fputs("<footer>ldprof " LDPROF_VERSION "</footer>\n", f);
	fputs(script, f);
	fputs("</body></html>\n", f);
}
