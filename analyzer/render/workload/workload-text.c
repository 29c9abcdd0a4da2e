/*
 * The workload report as text: the whole workload, then per binary and
 * per library, costliest first, then the top of the process tree
 * (workload-tree.c) and the notes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/out/textsafe.h"
#include "render/text-out.h"
#include "render/workload/workload-render.h"

static void header(const struct text_out *o, const struct workload *w)
{
	const struct trace *t = w->t;

	fputs(BOLD(o), o->f);
	for (int i = 0; i < t->argc; i++)
		fprintf(o->f, "%s%s", i ? " " : "", term_safe(t->argv[i]));
	fprintf(o->f, "%s\n", RESET(o));
	fprintf(o->f, "  the whole workload (-f), %zu %s", w->runs, w->runs == 1 ? "run" : "runs");
	if (w->warmup_runs)
		fprintf(o->f, " after %zu warmup", w->warmup_runs);
	if (w->plain_runs)
		fprintf(o->f, ", %zu plain runs interleaved", w->plain_runs);
	if (t->cold_cache)
		fputs(", CPU caches emptied before each", o->f);
	if (w->runs)
		fprintf(o->f, ": %.0f processes and %.0f execs per run (medians)", w->procs.median,
			w->execs.median);
	fputc('\n', o->f);
	text_outcomes(o, "the top process: ", &w->whole);
}

static void totals(const struct text_out *o, const struct workload *w)
{
	char med[32], lo[32], hi[32], mn[32], mx[32], u[32], s[32], c[32], l[32];
	const struct summary *wall = &w->wall;

	text_dur(o, med, sizeof med, wall->median);
	text_dur(o, lo, sizeof lo, wall->ci_lo);
	text_dur(o, hi, sizeof hi, wall->ci_hi);
	text_dur(o, mn, sizeof mn, wall->min);
	text_dur(o, mx, sizeof mx, wall->max);
	fprintf(o->f, "\n  %swall time%s  %s%s%s  95%% CI [%s, %s]  min %s  max %s (%.1f%% MAD)\n",
		BOLD(o), RESET(o), BOLD(o), med, RESET(o), lo, hi, mn, mx,
		wall->median > 0 ? 100 * wall->mad / wall->median : NAN);
	text_dur(o, u, sizeof u, w->cpu_user.median);
	text_dur(o, s, sizeof s, w->cpu_sys.median);
	text_dur(o, c, sizeof c, w->cpu.median);
	fprintf(o->f, "  %sCPU time%s   %s: user %s, system %s (every process of the tree)\n",
		BOLD(o), RESET(o), c, u, s);
	text_dur(o, l, sizeof l, w->loader_us.median);
	fprintf(o->f,
		"  %sthe loader%s %s%s%s per run: %.1f%% of the wall time, %.1f%% of the CPU "
		"time\n",
		BOLD(o), RESET(o), BOLD(o), l, RESET(o), 100 * w->loader_share_wall.median,
		100 * w->loader_share_cpu.median);
	text_dur(o, l, sizeof l, w->mapping_us.median);
	fprintf(o->f, "             of which loading and relocating the objects: %s (%.1f%%)\n", l,
		100 * w->mapping_share_wall.median);
	fprintf(o->f,
		"  %s(the exec, load and relocate phases of every recorded exec: from the kernel's "
		"exec point, whose mapping of the binary a static exec pays too, to the first "
		"constructor; medians over the runs)%s\n",
		DIM(o), RESET(o));
}

static void binary_line(const struct text_out *o, const struct workload *w,
			const struct wl_binary *b, int width)
{
	char ph[4][32], st[32], save[48];
	const struct report *r = &b->rep;

	for (int p = 0; p < 4; p++)
		text_dur(o, ph[p], sizeof ph[p],
			 b->have_rep && r->phase[p].n ? r->phase[p].median : NAN);
	text_dur(o, st, sizeof st, b->startup_us_per_run);
	if (b->have_static) {
		char s[32];
		text_dur(o, s, sizeof s, b->static_saved_us_per_run);
		snprintf(save, sizeof save, "%s %s", o->st->utf8 ? "\u2248" : "~", s);
	} else {
		snprintf(save, sizeof save, "-");
	}
	fprintf(o->f, "  %-*s %7.1f %9s %9s %9s %9s %10s ", width,
		term_safe(wl_short_path(w->t, b->path)), b->execs_per_run, ph[0], ph[1], ph[2],
		ph[3], st);
	if (isnan(b->startup_share))
		fprintf(o->f, "%6s", "-");
	else
		fprintf(o->f, "%5.1f%%", 100 * b->startup_share);
	fprintf(o->f, " %11s", save);
	if (!b->analyzed) {
		char wall[32];
		text_dur(o, wall, sizeof wall, b->wall_us_per_run);
		fprintf(o->f, "  %s(no records; %s per run in all)%s", DIM(o), wall, RESET(o));
	} else if (b->analyzed < b->execs) {
		fprintf(o->f, "  %s(%zu of %zu execs recorded)%s", DIM(o), b->analyzed, b->execs,
			RESET(o));
	}
	fputc('\n', o->f);
}

#define BINARIES_SHOWN 25 /* the costliest; the JSON and CSV have every one */

static void binaries(const struct text_out *o, const struct workload *w)
{
	size_t shown = w->nbins < BINARIES_SHOWN ? w->nbins : BINARIES_SHOWN;
	int width = 6;

	for (size_t i = 0; i < shown; i++) {
		int n = (int)strlen(term_safe(wl_short_path(w->t, w->bins[i].path)));
		width = n > width ? n : width;
	}
	fprintf(o->f, "\n  %s%-*s %7s %9s %9s %9s %9s %10s %6s %11s%s\n", DIM(o), width, "binary",
		"execs", "exec", "load", "relocate", "init", "startup", "share", "static",
		RESET(o));
	for (size_t i = 0; i < shown; i++)
		binary_line(o, w, &w->bins[i], width);
	if (shown < w->nbins)
		fprintf(o->f, "  %s... and %zu more binaries (the JSON and CSV have them all)%s\n",
			DIM(o), w->nbins - shown, RESET(o));
	fprintf(o->f,
		"  %s(execs per run; each phase's median per exec; startup: exec to main, summed "
		"over its execs, per run, and its share of the wall time; static: what linking it "
		"statically would save per run, the model's per-exec estimate times its execs)%s\n",
		DIM(o), RESET(o));
}

/*
 * The costliest binaries in one sentence each, as the question is asked:
 * "sh.dynamic: 101 execs, 0.58 ms each in the loader, 64.2 ms of startup
 * per run (24% of the workload); static linking would save ~ 32.5 ms".
 */
static void verdicts(const struct text_out *o, const struct workload *w)
{
	size_t shown = 0;

	for (size_t i = 0; i < w->nbins && shown < 3; i++) {
		const struct wl_binary *b = &w->bins[i];
		char each[32], st[32], save[32];
		if (!b->dynamic || !b->analyzed)
			continue;
		if (!shown++)
			fputc('\n', o->f);
		text_dur(o, each, sizeof each,
			 b->loader_us_per_run * (double)w->runs / (double)b->loader_n);
		text_dur(o, st, sizeof st, b->startup_us_per_run);
		fprintf(o->f, "  %s%s%s: %.0f %s", BOLD(o), term_safe(wl_short_path(w->t, b->path)),
			RESET(o), b->execs_per_run, b->execs_per_run == 1 ? "exec" : "execs");
		/* The loader and startup figures speak of the recorded execs only. */
		if (b->analyzed < b->execs)
			fprintf(o->f, " (%.0f recorded: the loader and startup figures are theirs)",
				(double)b->analyzed / (double)w->runs);
		fprintf(o->f,
			", %s each in the loader on average, %s of startup per run (%.1f%% of the "
			"workload)",
			each, st, 100 * b->startup_share);
		if (b->have_static) {
			text_dur(o, save, sizeof save, b->static_saved_us_per_run);
			fprintf(o->f, "; static linking would save %s %s",
				o->st->utf8 ? "\u2248" : "~", save);
		}
		fputc('\n', o->f);
	}
}

static void libraries(const struct text_out *o, const struct workload *w)
{
	int width = 7;
	size_t shown = w->nlibs < 20 ? w->nlibs : 20;

	if (!w->nlibs)
		return;
	for (size_t i = 0; i < shown; i++) {
		int n = (int)strlen(term_safe(w->libs[i].path));
		width = n > width ? n : width;
	}
	fprintf(o->f, "\n  %s%-*s %7s %9s %9s %9s %10s %6s%s\n", DIM(o), width, "library", "execs",
		"load", "reloc", "init", "total", "share", RESET(o));
	for (size_t i = 0; i < shown; i++) {
		const struct wl_library *l = &w->libs[i];
		char c[4][32];
		text_dur(o, c[0], sizeof c[0], l->load_us);
		text_dur(o, c[1], sizeof c[1], l->reloc_us);
		text_dur(o, c[2], sizeof c[2], l->init_us);
		text_dur(o, c[3], sizeof c[3], l->total_us);
		fprintf(o->f, "  %-*s %7.1f %9s %9s %9s %10s %5.1f%%\n", width, term_safe(l->path),
			l->execs_per_run, c[0], c[1], c[2], c[3], 100 * l->share);
	}
	if (shown < w->nlibs)
		fprintf(o->f, "  %s... and %zu more libraries%s\n", DIM(o), w->nlibs - shown,
			RESET(o));
	fprintf(o->f,
		"  %s(per run, summed over every recorded exec that loaded it: execs, and its "
		"loading, relocation and constructors)%s\n",
		DIM(o), RESET(o));
}

static void overhead(const struct text_out *o, const struct workload *w)
{
	const struct report *r = &w->whole;
	char d[32], lo[32], hi[32];

	if (!r->have_overhead)
		return;
	text_dur(o, d, sizeof d, fabs(r->overhead_us));
	text_dur(o, lo, sizeof lo, r->overhead_ci_lo);
	text_dur(o, hi, sizeof hi, r->overhead_ci_hi);
	fprintf(o->f,
		"\n  overhead of following and recording: %c%s (%+.1f%%) per run against %zu "
		"plain runs (95%% CI %s to %s)\n",
		r->overhead_us < 0 ? '-' : '+', d, r->overhead_pct, r->plain_runs, lo, hi);
}

void render_workload_text(FILE *f, const struct workload *w, const struct text_style *st)
{
	struct text_out o = {f, st};

	header(&o, w);
	if (w->runs) {
		totals(&o, w);
		binaries(&o, w);
		verdicts(&o, w);
		libraries(&o, w);
		render_workload_tree(f, w, st);
		overhead(&o, w);
	} else {
		fprintf(f, "  no profiled run with a process tree\n");
	}
	for (size_t i = 0; i < w->nnotes; i++)
		fprintf(f, "  %snote:%s %s\n", BOLD(&o), RESET(&o), term_clean(w->notes[i]));
}
