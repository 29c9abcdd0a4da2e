/* The text report: aligned tables, share bars, colour only on a terminal. */
#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/out/textsafe.h"
#include "render/render.h"
#include "render/samples.h"
#include "render/text-out.h"
#include "model/timeline.h"

#define BAR_WIDTH 20

int text_style_for(FILE *f, const char *policy, struct text_style *st)
{
	const char *no_color = getenv("NO_COLOR");

	st->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!policy || !strcmp(policy, "auto"))
		st->color = isatty(fileno(f)) && !(no_color && *no_color);
	else if (!strcmp(policy, "always"))
		st->color = true;
	else if (!strcmp(policy, "never"))
		st->color = false;
	else
		return -1;
	return 0;
}

static const char *us_unit(const struct text_out *o)
{
	return o->st->utf8 ? "\u00b5s" : "us";
}

/* A value in the unit text_dur would choose for ref, without the unit. */
static void fmt_like(char *buf, size_t n, double us, double ref)
{
	if (isnan(us))
		snprintf(buf, n, "-");
	else if (fabs(ref) < 1000)
		snprintf(buf, n, "%.1f", us);
	else if (fabs(ref) < 1e6)
		snprintf(buf, n, "%.3f", us / 1e3);
	else
		snprintf(buf, n, "%.2f", us / 1e6);
}

static void fmt_num(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f", v);
}

/* A horizontal bar of share (0..1), in eighths with UTF-8, '#' without. */
static void bar(const struct text_out *o, double share)
{
	static const char *const eighths[] = {"",	"\u258f", "\u258e", "\u258d",
					      "\u258c", "\u258b", "\u258a", "\u2589"};
	double cells = isnan(share) ? 0 : fmin(fmax(share, 0), 1) * BAR_WIDTH;
	int full = (int)cells, part = (int)((cells - full) * 8);

	fputs(CYAN(o), o->f);
	for (int i = 0; i < full; i++)
		fputs(o->st->utf8 ? "\u2588" : "#", o->f);
	if (o->st->utf8 && full < BAR_WIDTH)
		fputs(eighths[part], o->f);
	fputs(RESET(o), o->f);
}

static void header(const struct text_out *o, const struct report *rep)
{
	const struct trace *t = rep->t;

	fputs(BOLD(o), o->f);
	for (int i = 0; i < t->argc; i++)
		fprintf(o->f, "%s%s", i ? " " : "", term_safe(t->argv[i]));
	fprintf(o->f, "%s\n", RESET(o));
	fprintf(o->f, "  %s, %zu runs", elf_kind_name(t->kind), rep->runs);
	if (rep->warmup_runs)
		fprintf(o->f, " after %zu warmup", rep->warmup_runs);
	if (rep->profiled && rep->plain_runs)
		fprintf(o->f, ", %zu plain runs interleaved", rep->plain_runs);
	if (t->cold_cache)
		fputs(", CPU caches emptied before each", o->f);
	fputc('\n', o->f);
	text_outcomes(o, "", rep);
}

void text_outcomes(const struct text_out *o, const char *whose, const struct report *rep)
{
	for (size_t i = 0; i < rep->noutcomes; i++) {
		char *d = describe_status(rep->outcomes[i].wait_status);
		if (rep->noutcomes == 1)
			fprintf(o->f, "  %s%s in every run\n", whose, d);
		else
			fprintf(o->f, "  %s%s in %zu runs\n", whose, d, rep->outcomes[i].runs);
		free(d);
	}
}

static void total_line(const struct text_out *o, const struct report *rep)
{
	const struct summary *s = &rep->total;
	char med[32], lo[32], hi[32], mn[32], mx[32];

	text_dur(o, med, sizeof med, s->median);
	text_dur(o, lo, sizeof lo, s->ci_lo);
	text_dur(o, hi, sizeof hi, s->ci_hi);
	text_dur(o, mn, sizeof mn, s->min);
	text_dur(o, mx, sizeof mx, s->max);
	fprintf(o->f, "\n  %stotal%s  %s%s%s  95%% CI [%s, %s]  min %s  max %s\n", BOLD(o),
		RESET(o), BOLD(o), med, RESET(o), lo, hi, mn, mx);
}

/* When the scheduler gave some runs' CPU to another task (model/sched-state.h). */
static void sched_line(const struct text_out *o, const struct report *rep)
{
	const struct sched_state *ss = &rep->sched;
	char pre[32], other[32];

	if (!ss->preempted)
		return;
	fprintf(o->f, "  %sthe scheduler preempted %zu of %zu runs for another task", DIM(o),
		ss->preempted, ss->runs);
	if (ss->total_preempted.n && ss->total_other.n) {
		text_dur(o, pre, sizeof pre, ss->total_preempted.median);
		text_dur(o, other, sizeof other, ss->total_other.median);
		fprintf(o->f, ": those took %s, the others %s", pre, other);
	}
	fprintf(o->f, "%s\n", RESET(o));
}

static void phase_table(const struct text_out *o, const struct report *rep)
{
	char med[32], lo[32], hi[32];

	fprintf(o->f, "\n  %s%-10s %12s  %-23s %6s%s\n", DIM(o), "phase", "median", "95% CI",
		"share", RESET(o));
	for (int p = 0; p < PH_COUNT; p++) {
		const struct summary *s = &rep->phase[p];
		double share = s->n && rep->total.median > 0 ? s->median / rep->total.median : NAN;
		text_dur(o, med, sizeof med, s->n ? s->median : NAN);
		fmt_like(lo, sizeof lo, s->n ? s->ci_lo : NAN, s->median);
		fmt_like(hi, sizeof hi, s->n ? s->ci_hi : NAN, s->median);
		char ci[80];
		snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
		fprintf(o->f, "  %-10s %12s  %-23s ", phase_name(p), med, ci);
		if (isnan(share))
			fprintf(o->f, "%6s  ", "-");
		else
			fprintf(o->f, "%5.1f%%  ", share * 100);
		bar(o, share);
		fputc('\n', o->f);
	}
	fprintf(o->f,
		"  %s(median elapsed time at each phase's end minus at its start, so the "
		"phases add up to the median total)%s\n",
		DIM(o), RESET(o));
	/* Runs without the shim's data count in the total but in no phase. */
	if (fabs(rep->phase_sum_us - rep->total.median) > 0.005 * rep->total.median) {
		char sum[32], tot[32];
		text_dur(o, sum, sizeof sum, rep->phase_sum_us);
		text_dur(o, tot, sizeof tot, rep->total.median);
		fprintf(o->f,
			"  %s(over the %zu runs with the shim's data: %s; over all runs: %s)%s\n",
			DIM(o), rep->valid_runs, sum, tot, RESET(o));
	}
}

static const char *role_tag(const struct trace_object *o)
{
	if (o->role == ROLE_EXECUTABLE)
		return " (executable)";
	if (o->role == ROLE_SHIM)
		return " (ldprof shim)";
	if (o->dlopened)
		return " (dlopen)";
	return "";
}

/* Which runs the measured relocate phase is of (report.c: hold_reloc). */
static const char *reloc_runs_said(enum reloc_runs r)
{
	if (r == RELOC_RUNS_CALM)
		return " in the runs the shared cache was not contended";
	if (r == RELOC_RUNS_CONTENDED)
		return " in the runs the shared cache was contended, as in the calibration";
	return "";
}

/* How reloc was split, and how well the model predicts the whole phase. */
static void model_line(const struct text_out *o, const struct report *rep)
{
	const struct model_coefs *m = &rep->t->model;
	char pred[32], meas[32];

	if (!rep->reloc_by_model) {
		fprintf(o->f,
			"  %s(reloc splits the relocate phase by relocation count: the analyzer "
			"could not replay this program)%s\n",
			DIM(o), RESET(o));
		return;
	}
	text_dur(o, pred, sizeof pred, rep->reloc_model_us);
	text_dur(o, meas, sizeof meas, rep->reloc_measured_us);
	fprintf(o->f,
		"  %s(reloc splits the relocate phase by the cost model, %s: it predicts %s, "
		"measured %s%s, residual %+.1f %s (%+.0f%%))%s\n",
		DIM(o), m->calibrated ? "calibrated" : "uncalibrated, built-in defaults", pred,
		meas, reloc_runs_said(rep->reloc_measured_runs),
		rep->reloc_residual_us, us_unit(o),
		100 * rep->reloc_residual_us / rep->reloc_measured_us, RESET(o));
	/* The shift of a cold line's price to the runs' state (model_line_state), when it moved. */
	double now = m->coef_us[MF_COLD_LINES] * 1000, cal = rep->t->cold_line_cal_us * 1000;
	if (rep->t->cold_line_shifted && fabs(now - cal) >= 1)
		fprintf(o->f,
			"  %s(a cold line priced at %.0f ns in the runs' state of the shared "
			"cache, "
			"%.0f in the calibration's)%s\n",
			DIM(o), now, cal, RESET(o));
}

/* When another tenant streamed through the shared cache during some runs. */
static void cache_line(const struct text_out *o, const struct report *rep)
{
	const struct cache_state *c = &rep->cache;
	char calm[32], busy[32];

	if (!c->contended)
		return;
	fprintf(o->f,
		"  %sthe shared cache was contended in %zu of %zu runs (a line read after an idle "
		"spell took %.0f ns, %.0f when hot)",
		DIM(o), c->contended, c->probed, c->contended_line_ns, c->hot_ns);
	if (c->reloc_calm.n && c->reloc_contended.n) {
		text_dur(o, calm, sizeof calm, c->reloc_calm.median);
		text_dur(o, busy, sizeof busy, c->reloc_contended.median);
		fprintf(o->f, ": relocation took %s in those runs, %s in the others", busy, calm);
	}
	fprintf(o->f, "%s\n", RESET(o));
}

static void object_table(const struct text_out *o, const struct report *rep)
{
	int w = 6;
	char name[4096], c[5][32], pm[32];

	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct trace_object *to = &rep->t->obj[rep->objs[i].obj];
		int n = snprintf(name, sizeof name, "%s%s", term_safe(to->path), role_tag(to));
		if (object_shown(to) && n > w)
			w = n;
	}
	fprintf(o->f, "\n  %s%-*s %8s %8s %8s %8s %8s %7s %6s%s\n", DIM(o), w, "object", "load",
		"reloc", "init", "fini", "total", "+/-", "share", RESET(o));
	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct report_object *ro = &rep->objs[i];
		const struct trace_object *to = &rep->t->obj[ro->obj];
		if (!object_shown(to))
			continue;
		const struct summary *s[5] = {&ro->load, &ro->reloc, &ro->init, &ro->fini,
					      &ro->total};
		for (int k = 0; k < 5; k++)
			fmt_num(c[k], sizeof c[k], s[k]->n ? s[k]->median : NAN);
		fmt_num(pm, sizeof pm,
			ro->total.n ? fmax(ro->total.median - ro->total.ci_lo,
					   ro->total.ci_hi - ro->total.median)
				    : NAN);
		snprintf(name, sizeof name, "%s%s", term_safe(to->path), role_tag(to));
		fprintf(o->f, "  %-*s %8s %8s %8s %8s %8s %7s ", w, name, c[0], c[1], c[2], c[3],
			c[4], pm);
		if (isnan(ro->share))
			fprintf(o->f, "%6s  ", "-");
		else
			fprintf(o->f, "%5.1f%%  ", ro->share * 100);
		bar(o, ro->share);
		fputc('\n', o->f);
	}
	fprintf(o->f, "  %s(%s, medians over %zu runs; +/- is the total's 95%% CI half-width)%s\n",
		DIM(o), us_unit(o), rep->valid_runs, RESET(o));
	model_line(o, rep);
	cache_line(o, rep);
}

static void static_figures(const struct text_out *o, const struct report *rep)
{
	char u[32], s[32];

	text_dur(o, u, sizeof u, rep->utime.median);
	text_dur(o, s, sizeof s, rep->stime.median);
	if (!rep->maxrss_is_bound) {
		fprintf(o->f, "  user %s, system %s, %.0f page faults, %.0f KiB max RSS (medians)\n", u,
			s, rep->minflt.median, rep->maxrss.median);
		return;
	}
	fprintf(o->f,
		"  user %s, system %s, %.0f page faults, max RSS at most %.0f KiB (medians; the kernel "
		"counts ldprof's own %.0f KiB, shared until the exec)\n",
		u, s, rep->minflt.median, rep->maxrss.median, rep->launcher_rss_kb);
}

/* The verdict's first line: a saving, or that linking statically would not help or would hurt. */
static void verdict_head(const struct text_out *o, const struct report *rep)
{
	char s[32], hw[32];
	const char *unc = rep->t->model.calibrated ? "" : " [uncalibrated]";

	text_dur(o, s, sizeof s, fabs(rep->static_saved_us));
	text_dur(o, hw, sizeof hw, (rep->static_saved_hi - rep->static_saved_lo) / 2);
	if (rep->static_verdict == SV_SAVES)
		fprintf(o->f,
			"\n  %slinking statically would save \u2248 %s per exec (\u00b1%s, "
			"%.0f%%)%s%s\n",
			BOLD(o), s, hw, rep->static_saved_pct, unc, RESET(o));
	else if (rep->static_verdict == SV_HURTS)
		fprintf(o->f,
			"\n  %sdon't link statically: it would cost \u2248 %s more per exec "
			"(\u00b1%s, %.0f%%)%s%s\n",
			BOLD(o), s, hw, -rep->static_saved_pct, unc, RESET(o));
	else
		fprintf(o->f,
			"\n  %slinking statically would not measurably help: %s%s per exec "
			"(\u00b1%s)%s%s\n",
			BOLD(o), rep->static_saved_us < 0 ? "-" : "\u2248 ", s, hw, unc, RESET(o));
}

/* What the saving adds up, and the static build it predicts. */
static void verdict_parts(const struct text_out *o, const struct report *rep)
{
	char fx[32], libs[32], ex[32], lz[32], crt[32], own[32], tot[32], err[32], fk[192] = "";

	text_dur(o, fx, sizeof fx, rep->static_fixed_us + rep->static_exe_us);
	text_dur(o, libs, sizeof libs, rep->static_libs_us);
	text_dur(o, ex, sizeof ex, rep->static_exit_us);
	text_dur(o, lz, sizeof lz, rep->static_lazy_us);
	text_dur(o, crt, sizeof crt, rep->static_crt_us);
	text_dur(o, own, sizeof own, rep->static_own_us + rep->static_unwind_us);
	text_dur(o, tot, sizeof tot, rep->static_total_us);
	text_dur(o, err, sizeof err, rep->static_model_err_us);
	if (rep->static_fork_us > 0) {
		char d[32];
		text_dur(o, d, sizeof d, rep->static_fork_us);
		snprintf(fk, sizeof fk, ", %u forks of its image %s", rep->t->image_forks, d);
	}
	if (rep->static_nss_us > 0) {
		char d[32];
		size_t k = strlen(fk);
		text_dur(o, d, sizeof d, rep->static_nss_us);
		snprintf(fk + k, sizeof fk - k, ", %u first NSS lookups %s", rep->t->image_nss, d);
	}
	if (rep->static_noalloc_us > 0) {
		char d[32];
		size_t k = strlen(fk);
		text_dur(o, d, sizeof d, rep->static_noalloc_us);
		snprintf(fk + k, sizeof fk - k, ", less a first allocation it never makes %s", d);
	}
	fprintf(o->f,
		"  %s(sheds being dynamic %s, the libraries' loading and relocation %s, their exit "
		"path %s, lazy binding %s, their own _init and _fini %s%s; pays its "
		"own start %s; a static build \u2248 %s per exec; \u00b1 includes the model's "
		"validated error %s)%s\n",
		DIM(o), fx, libs, ex, lz, crt, fk, own, tot, err, RESET(o));
}

/* When the machine's load stretched the program's processes: what that adds. */
static void stretch_line(const struct text_out *o, const struct report *rep)
{
	const struct summary *s = &rep->tree_stretch;
	char d[32];

	if (!rep->stretch_applied)
		return;
	text_dur(o, d, sizeof d, fabs(rep->static_load_us));
	fprintf(o->f,
		"  %s(its processes' wall time %.2f times their CPU time [%.2f, %.2f], %zu runs: "
		"the saving in wall time is that much of theirs, %s%s)%s\n",
		DIM(o), s->median, s->ci_lo, s->ci_hi, s->n, rep->static_load_us < 0 ? "-" : "+", d,
		RESET(o));
}

/* Lazy binding after startup, per object that did any. */
static void lazy_lines(const struct text_out *o, const struct report *rep)
{
	char d[32];

	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct report_object *ro = &rep->objs[i];
		const struct trace_object *to = &rep->t->obj[ro->obj];
		if (!to->lazy_binds)
			continue;
		text_dur(o, d, sizeof d, ro->lazy_us);
		fprintf(o->f, "  %slazy binding after startup: %s, %u slots, %s%s\n", DIM(o),
			term_safe(to->path), to->lazy_binds, d, RESET(o));
	}
}

static void verdict(const struct text_out *o, const struct report *rep)
{
	char d[32];

	if (!rep->have_verdict)
		return;
	verdict_head(o, rep);
	verdict_parts(o, rep);
	stretch_line(o, rep);
	lazy_lines(o, rep);
	if (!rep->nadvice)
		return;
	fprintf(o->f, "  %srecommendations, with what each would save per exec:%s\n", DIM(o),
		RESET(o));
	for (size_t i = 0; i < rep->nadvice; i++) {
		const struct advice *a = &rep->advice[i];
		text_dur(o, d, sizeof d, a->saved_us);
		fprintf(o->f, "  %10s  %s%s%s: %s\n", d, BOLD(o), term_clean(a->what), RESET(o),
			term_clean(a->why));
	}
}

static void overhead_line(const struct text_out *o, const struct report *rep)
{
	char d[32];

	if (!rep->have_overhead)
		return;
	text_dur(o, d, sizeof d, fabs(rep->overhead_us));
	fprintf(o->f,
		"\n  shim overhead: %c%s (%+.1f%%), %+.0f page faults per run, against %zu "
		"plain runs\n",
		rep->overhead_us < 0 ? '-' : '+', d, rep->overhead_pct, rep->overhead_minflt,
		rep->plain_runs);
	fprintf(o->f, "  %s(95%% CI of the overhead: %+.1f to %+.1f %s)%s\n", DIM(o),
		rep->overhead_ci_lo, rep->overhead_ci_hi, us_unit(o), RESET(o));
}

void render_text(FILE *f, const struct report *rep, const struct text_style *st)
{
	struct text_out o = {f, st};

	header(&o, rep);
	total_line(&o, rep);
	sched_line(&o, rep);
	if (rep->profiled && rep->valid_runs) {
		phase_table(&o, rep);
		object_table(&o, rep);
	} else {
		static_figures(&o, rep);
	}
	verdict(&o, rep);
	overhead_line(&o, rep);
	for (size_t i = 0; i < rep->nnotes; i++)
		fprintf(f, "  %snote:%s %s\n", BOLD(&o), RESET(&o), term_clean(rep->notes[i]));
	render_samples_text(&o, rep);
}
