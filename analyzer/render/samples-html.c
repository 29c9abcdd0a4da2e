/*
 * --sample in the HTML report: a flame graph of every sample, inline SVG
 * with the phases as the first level above the root, each frame a box as
 * wide as its samples; a click zooms into a box (its ancestors span the
 * width), a click on the root zooms out; #flame=NAME in the address zooms
 * into the first box named NAME on load. A few lines of script, nothing
 * fetched. Boxes under 1/2000 of the samples are left out (the folded
 * output has them all).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/html.h"
#include "render/samples.h"

#define FG_WIDTH     1200.0
#define FG_ROW	     17
#define FG_MIN_SHARE (1.0 / 2000)

struct fg_node {
	int phase;	/* a phase's node: which; else -1 */
	uint32_t frame; /* SAMPLES_NO_FRAME for the root and the phases */
	size_t count;
	size_t child, next; /* first child and next sibling, 0 for none (0 is the root) */
	int depth;
};

struct flame {
	struct fg_node *n;
	size_t len, cap;
	int depth;
};

static size_t child_of(struct flame *fg, size_t parent, int phase, uint32_t frame)
{
	size_t c = fg->n[parent].child, last = 0;

	for (; c; last = c, c = fg->n[c].next)
		if (fg->n[c].phase == phase && fg->n[c].frame == frame)
			return c;
	GROW(fg->n, fg->cap, fg->len);
	fg->n[fg->len] = (struct fg_node){phase, frame, 0, 0, 0, fg->n[parent].depth + 1};
	if (last)
		fg->n[last].next = fg->len;
	else
		fg->n[parent].child = fg->len;
	if (fg->n[fg->len].depth > fg->depth)
		fg->depth = fg->n[fg->len].depth;
	return fg->len++;
}

static void build(struct flame *fg, const struct report *rep)
{
	const struct sample_report *sr = rep->samples;
	const struct trace_sampling *s = sr->s;

	GROW(fg->n, fg->cap, 0);
	fg->n[fg->len++] = (struct fg_node){-1, SAMPLES_NO_FRAME, 0, 0, 0, 0};
	for (size_t i = 0; i < s->n; i++) {
		const struct trace_sample *x = &s->s[i];
		int p = sr->phase_of[i];
		if (p == SAMPLES_NO_PHASE)
			continue;
		size_t at = child_of(fg, 0, p, SAMPLES_NO_FRAME);
		fg->n[0].count++;
		fg->n[at].count++;
		for (uint32_t k = x->len; k-- > 0;) {
			at = child_of(fg, at, -1, s->chain[x->first + k]);
			fg->n[at].count++;
		}
	}
}

/* A warm colour from the object's name, so that one object keeps one hue. */
static void colour(FILE *f, const struct trace_sampling *s, const struct fg_node *n)
{
	unsigned h = 5381;
	const char *o;

	if (n->frame == SAMPLES_NO_FRAME) {
		fputs(n->phase < 0 ? "#bbb" : "#ccd", f);
		return;
	}
	o = sample_frame_object(&s->frame[n->frame]);
	for (; *o; o++)
		h = h * 33 + (unsigned char)*o;
	fprintf(f, "hsl(%u,75%%,%u%%)", 10 + h % 45, 55 + (h >> 8) % 15);
}

static void box(FILE *f, const struct report *rep, const struct flame *fg, size_t i, double x0)
{
	const struct trace_sampling *s = rep->samples->s;
	const struct fg_node *n = &fg->n[i];
	double total = (double)fg->n[0].count, w = (double)n->count / total;
	char buf[64];
	const char *name = n->frame != SAMPLES_NO_FRAME
				   ? sample_frame_label(&s->frame[n->frame], buf, sizeof buf)
			   : n->phase >= 0 ? phase_name(n->phase)
					   : "all samples";

	fprintf(f, "<g class=\"fg\" data-x=\"%.6f\" data-w=\"%.6f\" data-d=\"%d\"", x0 / total, w,
		n->depth);
	if (n->frame != SAMPLES_NO_FRAME) {
		fputs(" data-object=\"", f);
		html_text(f, s->frame[n->frame].object ? s->frame[n->frame].object : "");
		fputc('"', f);
	}
	fputs("><title>", f);
	html_text(f, name);
	if (n->frame != SAMPLES_NO_FRAME && s->frame[n->frame].source != FRAME_UNWIND_FAILED) {
		fputs(" (", f);
		html_text(f, sample_frame_object(&s->frame[n->frame]));
		fprintf(f, ", %s)", frame_source_name(s->frame[n->frame].source));
	}
	fprintf(f,
		": %zu samples, %.1f%%</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
		"height=\"%d\" fill=\"",
		n->count, 100 * w, FG_WIDTH * x0 / total, (fg->depth - n->depth) * FG_ROW,
		FG_WIDTH * w, FG_ROW - 1);
	colour(f, s, n);
	fprintf(f, "\"/><text x=\"%.2f\" y=\"%d\">", FG_WIDTH * x0 / total + 3,
		(fg->depth - n->depth) * FG_ROW + FG_ROW - 5);
	html_text(f, name);
	fputs("</text></g>\n", f);
}

/* Depth first, children left to right; small boxes (and what is under them) left out. */
static void boxes(FILE *f, const struct report *rep, const struct flame *fg, size_t i, double x0)
{
	if ((double)fg->n[i].count < FG_MIN_SHARE * (double)fg->n[0].count)
		return;
	box(f, rep, fg, i, x0);
	for (size_t c = fg->n[i].child; c; c = fg->n[c].next) {
		boxes(f, rep, fg, c, x0);
		x0 += (double)fg->n[c].count;
	}
}

static const char fg_style[] =
	"<style>\n#flame svg text{font:11px ui-monospace,monospace;fill:#222;pointer-events:none}\n"
	"#flame g.fg{cursor:pointer}#flame g.fg:hover rect{stroke:#333;stroke-width:.5}\n"
	"</style>\n";

/* Zoom: the clicked box spans the width, its ancestors too, the rest hides; labels fit their box.
 */
static const char fg_script[] =
	"<script>\n"
	"(function(){var svg=document.querySelector('#flame svg');if(!svg)return;\n"
	"var W=1200,gs=Array.prototype.slice.call(svg.querySelectorAll('g.fg'));\n"
	"function show(g,x,w){var r=g.firstElementChild.nextElementSibling,t=r.nextElementSibling,"
	"n=g.firstElementChild.textContent.split(' (')[0].split(':')[0];g.style.display='';"
	"r.setAttribute('x',x*W);r.setAttribute('width',w*W);t.setAttribute('x',x*W+3);"
	"var "
	"c=Math.floor((w*W-6)/6.6);t.textContent=c<3?'':n.length>c?n.slice(0,c-1)+'\\u2026':n}\n"
	"function zoom(z){var zx=+z.dataset.x,zw=+z.dataset.w,zd=+z.dataset.d;svg.dataset.zoom="
	"z.querySelector('title').textContent;\n"
	"gs.forEach(function(g){var x=+g.dataset.x,w=+g.dataset.w,d=+g.dataset.d;"
	"if(d<zd){if(x<=zx+1e-9&&x+w>=zx+zw-1e-9)show(g,0,1);else g.style.display='none'}"
	"else if(x>=zx-1e-9&&x+w<=zx+zw+1e-9)show(g,(x-zx)/zw,w/zw);else "
	"g.style.display='none'})}\n"
	"gs.forEach(function(g){g.addEventListener('click',function(){zoom(g)})});\n"
	"function name(g){return g.firstElementChild.textContent.split(' (')[0].split(':')[0]}\n"
	"var m=/^#flame=(.+)$/.exec(location.hash),want=m&&decodeURIComponent(m[1]),"
	"z=gs.filter(function(g){return name(g)===want})[0]||gs[0];if(z)zoom(z)})();\n"
	"</script>\n";

void render_samples_html(FILE *f, const struct report *rep)
{
	const struct sample_report *sr = rep->samples;
	struct flame fg = {0};

	if (!sr || !sr->s)
		return;
	fputs("<section id=\"flame\"><h2>Inside each phase: a flame graph of the samples</h2>\n",
	      f);
	if (sr->s->refused) {
		fputs("<p>Not sampled: ", f);
		html_text(f, sr->s->refused);
		fputs("</p></section>\n", f);
		return;
	}
	build(&fg, rep);
	fprintf(f,
		"<p class=\"sub\">%zu samples from %zu sampled runs (runs of their own, not in the "
		"timing, after the timed ones), one per %.1f &micro;s of user CPU; %llu lost, %llu "
		"not unwound to their "
		"start. Click a box to zoom, the bottom bar to zoom out.</p>\n",
		sr->samples, sr->s->runs, (double)sr->s->period_ns / 1000.0,
		(unsigned long long)sr->s->lost, (unsigned long long)sr->s->unwind_failed);
	fputs(fg_style, f);
	fprintf(f, "<svg viewBox=\"0 0 %.0f %d\" role=\"img\" aria-label=\"flame graph\">\n",
		FG_WIDTH, (fg.depth + 1) * FG_ROW);
	if (fg.n[0].count)
		boxes(f, rep, &fg, 0, 0);
	fputs("</svg>\n", f);
	fputs(fg_script, f);
	fputs("</section>\n", f);
	free(fg.n);
}
