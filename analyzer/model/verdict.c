/*
 * Would linking statically pay, and what else would? From the measured
 * phases and per-library costs, the calibrated model and the analyzer's
 * replay of ld.so (docs/model.md has the reasoning and its validation).
 *
 * A static build does not pay: the cost of being dynamic at all (ld.so's
 * bootstrap, mapping and relocating libc, the dynamic exit path), measured
 * at calibration on a minimal C program built both ways; each further
 * library's loading and relocation; the executable's own relocations. It
 * still pays the constructors and the IFUNC resolvers (static glibc runs
 * them too).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/analyze.h"
#include "model/model.h"

static double half_width(const struct summary *s)
{
	return s->n ? fmax(s->median - s->ci_lo, s->ci_hi - s->median) : 0;
}

/* Measured microseconds per model microsecond (the reloc split's scale). */
static double scale(const struct report *rep)
{
	return rep->reloc_model_us > 0 ? rep->phase[PH_RELOCATE].median / rep->reloc_model_us : 0;
}

/* The part of an object's measured reloc_us spent calling IFUNC resolvers. */
static double ifunc_us(const struct report *rep, const struct trace_object *o)
{
	return rep->t->model.coef_us[MF_IFUNC] * o->feat[MF_IFUNC] * scale(rep);
}

static bool is_libc(const struct trace_object *o)
{
	return o->soname && !strncmp(o->soname, "libc.so.", 8);
}

/*
 * Advice that would save less than this per exec is left out: no run
 * resolves a saving that small (a total's CI is microseconds wide), and
 * one at the edge would come and go with the machine's noise.
 */
#define ADVICE_MIN_US 1.0

/* hw: the half-width of the saving's 95% CI, NAN where only the model's point estimate exists. */
static void add_advice(struct report *rep, double saved, double hw, const char *what,
		       const char *fmt, ...)
{
	struct advice *a;
	va_list ap;

	if (!(saved >= ADVICE_MIN_US))
		return;
	rep->advice = xrealloc(rep->advice, (rep->nadvice + 1) * sizeof *rep->advice);
	a = &rep->advice[rep->nadvice++];
	a->what = xstrdup(what);
	va_start(ap, fmt);
	if (vasprintf(&a->why, fmt, ap) < 0)
		a->why = NULL;
	va_end(ap);
	a->saved_us = saved;
	a->saved_lo = isnan(hw) ? NAN : fmax(0, saved - hw);
	a->saved_hi = saved + hw;
}

/* Linking statically: the whole and each library's part. */
static void static_link(const struct trace *t, struct report *rep)
{
	const struct model_coefs *m = &t->model;
	double saved = m->dynamic_fixed_us, var, kept = 0;
	size_t nlibs = 0;
	double hw = fmax(m->dynamic_fixed_hi - m->dynamic_fixed_us,
			 m->dynamic_fixed_us - m->dynamic_fixed_lo);

	var = hw * hw;
	for (size_t i = 0; i < rep->nobjs; i++) {
		struct report_object *ro = &rep->objs[i];
		const struct trace_object *o = &t->obj[ro->obj];
		double reloc = ro->reloc.n ? ro->reloc.median : 0, keep = ifunc_us(rep, o);
		if (o->dlopened || o->role == ROLE_SHIM)
			continue;
		if (o->role == ROLE_EXECUTABLE) {
			/* Static, not static-pie: its relocations happen at link time. */
			saved += reloc;
			var += pow(half_width(&ro->reloc), 2);
			continue;
		}
		if (o->role != ROLE_LIBRARY)
			continue;
		nlibs++;
		if (is_libc(o))
			continue; /* libc and ld.so: in the calibrated fixed cost */
		ro->link_saved_us = fmax(0, (ro->load.n ? ro->load.median : 0) + reloc - keep);
		saved += ro->link_saved_us;
		kept += keep;
		var += pow(half_width(&ro->load), 2) + pow(half_width(&ro->reloc), 2);
	}
	double base = rep->plain_total.n ? rep->plain_total.median : rep->total.median;
	rep->have_verdict = true;
	rep->static_saved_us = saved;
	rep->static_saved_lo = saved - sqrt(var);
	rep->static_saved_hi = saved + sqrt(var);
	rep->static_saved_pct = 100 * saved / base;
	rep->static_kept_us = kept;
	add_advice(rep, saved, sqrt(var), "link statically",
		   "a static build skips ld.so's bootstrap, loading %zu libraries and relocating "
		   "them%s",
		   nlibs, m->calibrated ? "" : " (uncalibrated estimate: run ldprof calibrate)");
}

static void drop_unused(const struct trace *t, struct report *rep)
{
	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct report_object *ro = &rep->objs[i];
		const struct trace_object *o = &t->obj[ro->obj];
		char what[512];
		if (!o->advice.unused)
			continue;
		snprintf(what, sizeof what, "drop %s", o->soname ? o->soname : o->path);
		add_advice(rep, ro->total.median, half_width(&ro->total), what,
			   "the executable needs it but nothing takes a symbol from it "
			   "(link with -Wl,--as-needed)");
	}
}

/* Relocation-level changes, summed over the objects they apply to. */
static void reloc_advice(const struct trace *t, struct report *rep)
{
	const struct model_coefs *m = &t->model;
	double lazy = 0, relr = 0, gnu = 0, local = 0, nplt = 0, nrel = 0, nself = 0;
	double k = scale(rep); /* the model's figures in this run's measured time */
	size_t olazy = 0, orelr = 0, ognu = 0, olocal = 0;

	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct trace_object *o = &t->obj[rep->objs[i].obj];
		if (!o->have_feat || o->dlopened || o->role == ROLE_LOADER)
			continue;
		struct model_savings sv;
		model_object_savings(m, o->feat, &o->advice, o->role == ROLE_EXECUTABLE, &sv);
		if (o->advice.now_plt > 0) {
			lazy += sv.lazy * k, nplt += o->advice.now_plt, olazy++;
		}
		if (o->feat[MF_RELATIVE] > 0 && sv.relr > 0) {
			relr += sv.relr * k, nrel += o->feat[MF_RELATIVE], orelr++;
		}
		if (o->advice.sysv_only && o->advice.sysv_passes > 0) {
			gnu += sv.gnu_hash * k, ognu++;
		}
		if (o->advice.self_binds > 0 && o->role != ROLE_EXECUTABLE) {
			local += sv.self_bind * k, nself += o->advice.self_binds, olocal++;
		}
	}
	add_advice(rep, lazy, NAN, "bind lazily",
		   "%.0f PLT slots in %zu objects are bound at startup (BIND_NOW); lazily, each is "
		   "bound at its first call instead, if ever",
		   nplt, olazy);
	add_advice(rep, relr, NAN, "pack relative relocations",
		   "%.0f relative relocations in %zu objects; -Wl,-z,pack-relative-relocs makes "
		   "them DT_RELR",
		   nrel, orelr);
	add_advice(rep, gnu, NAN, "use the GNU hash style",
		   "%zu objects have only DT_HASH, so every lookup passing them walks a hash chain "
		   "(-Wl,--hash-style=gnu adds a Bloom filter)",
		   ognu);
	add_advice(rep, local, NAN, "bind internal references at link time",
		   "%.0f lookups in %zu libraries find a symbol in the library itself; "
		   "-fvisibility=hidden or -Wl,-Bsymbolic removes them",
		   nself, olocal);
}

static int by_saving(const void *a, const void *b)
{
	double x = ((const struct advice *)a)->saved_us, y = ((const struct advice *)b)->saved_us;

	return (x < y) - (x > y);
}

/* The verdict's caveats, as notes (allocated) for report_build to add. */
static size_t caveats(const struct trace *t, char *notes[VERDICT_NOTES])
{
	size_t dl = 0, lazy = 0, n = 0;

	for (size_t i = 0; i < t->nobj; i++) {
		dl += t->obj[i].dlopened;
		lazy += t->obj[i].have_facts && !t->obj[i].bind_now && t->obj[i].relocs.jump_slot &&
			t->obj[i].role != ROLE_LOADER;
	}
	if (lazy)
		notes[n++] = xasprintf("%zu objects bind their PLT lazily: each slot costs a "
				       "lookup at its first call, after startup, which these "
				       "figures do not count (a static build pays none)",
				       lazy);
	if (dl)
		notes[n++] = xasprintf("the program dlopen()s %zu objects while it runs: a "
				       "static build cannot, unless it keeps a dynamic loader "
				       "for them",
				       dl);
	return n;
}

size_t verdict_build(const struct trace *t, struct report *rep, char *notes[VERDICT_NOTES])
{
	if (!rep->profiled || !rep->valid_runs || !rep->reloc_by_model || !t->model.valid)
		return 0;
	static_link(t, rep);
	drop_unused(t, rep);
	reloc_advice(t, rep);
	if (rep->nadvice) /* qsort(NULL, 0) is undefined */
		qsort(rep->advice, rep->nadvice, sizeof *rep->advice, by_saving);
	return caveats(t, notes);
}
