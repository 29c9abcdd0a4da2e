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
 * them too), and when the program unwinds (a C++ throw), it sorts all its
 * FDEs at the first one.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfobj.h"
#include "model/analyze.h"
#include "model/calibrate-machine.h"
#include "model/model.h"
#include "model/static-side.h"

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

/*
 * One lookup's modelled cost in an object (its startup lookups' mean), or
 * 0: what the model would save by binding one slot lazily.
 */
static double lookup_us(const struct model_coefs *m, const double feat[MODEL_NFEAT])
{
	struct advice_facts one = {.now_plt = 1};
	struct model_savings sv;

	model_object_savings(m, feat, &one, false, &sv);
	return sv.lazy;
}

/*
 * Lazy binding after startup: each PLT slot bound in main or at exit
 * (lazy_binds, counted at exit) cost a lookup, priced at the object's own
 * cost per lookup, or the process's mean when it looks nothing up at
 * startup. A static build pays none of it.
 */
static void lazy_binding(const struct trace *t, struct report *rep)
{
	double feat[MODEL_NFEAT] = {0}, mean;

	for (size_t i = 0; i < t->nobj; i++)
		for (int k = 0; k < MODEL_NFEAT; k++)
			feat[k] += t->obj[i].have_feat ? t->obj[i].feat[k] : 0;
	mean = lookup_us(&t->model, feat);
	for (size_t i = 0; i < rep->nobjs; i++) {
		struct report_object *ro = &rep->objs[i];
		const struct trace_object *o = &t->obj[ro->obj];
		double per = o->have_feat ? lookup_us(&t->model, o->feat) : 0;
		ro->lazy_us = o->lazy_binds * (per > 0 ? per : mean) * scale(rep);
		rep->static_lazy_us += ro->lazy_us;
	}
}

/* This run's fault cost, else the calibration's, else the reference machine's. */
static double fault_cost(const struct trace *t)
{
	struct model_coefs d;

	if (t->fault_us_now > 0)
		return t->fault_us_now;
	if (t->model.fault_us > 0)
		return t->model.fault_us;
	model_defaults(&d);
	return d.fault_us;
}

/* The model's own error on the validation pairs, as a half-width for this saving. */
static double model_error(const struct model_coefs *m, double saved)
{
	struct model_coefs d;
	double pct = m->verdict_err_pct, us = m->verdict_err_us;

	if (!(pct > 0) && !(us > 0)) {
		model_defaults(&d);
		pct = d.verdict_err_pct, us = d.verdict_err_us;
	}
	return fmax(pct / 100 * fabs(saved), us);
}

/*
 * The exit path's prices: the calibration's, or, in a trace recorded
 * before traces carried them (tag 35, docs/trace-format.md), the built-in
 * ones, as fault_cost falls back (they read as 0 there).
 */
static const struct model_coefs *exit_prices(const struct trace *t, struct model_coefs *d)
{
	const struct model_coefs *m = &t->model;
	bool fit = m->exit_per_object_us > 0 || m->exit_per_page_us > 0 || m->exit_per_kib_us > 0;

	if (fit && m->unmap_page_us > 0)
		return m;
	model_defaults(d);
	if (fit) { /* the fit's, from before the unmapping was priced */
		d->exit_per_object_us = m->exit_per_object_us;
		d->exit_per_page_us = m->exit_per_page_us;
		d->exit_per_kib_us = m->exit_per_kib_us;
	}
	return d;
}

/*
 * What an object costs the dynamic exit path: _dl_fini walking it and the
 * kernel unmapping it, freeing the pages its relocations copied and the
 * page-cache pages of the tables ld.so read. The executable's tables and
 * pages: a static build has neither (no relocations, no symbol table read).
 */
static double exit_path_us(const struct model_coefs *m, const struct trace_object *o)
{
	if (!o->have_feat)
		return m->exit_per_object_us;
	return m->exit_per_object_us + o->feat[MF_PAGES] * m->exit_per_page_us +
	       model_table_kib(o->feat) * m->exit_per_kib_us;
}

/*
 * The pages of a library the program had mapped at its exit, which exit
 * unmaps: fault-around maps 16 a fault, and the code a run executes sits
 * in more of them spread over the shared objects than a static link packs
 * it into (dyn-cxx: 452 pages of libstdc++, libcxx, libm and libgcc_s,
 * against 216 of static-cxx's whole image). Measured in the census run
 * (fork-census.h); 0 when not counted.
 */
static double unmapped_us(const struct model_coefs *m, const struct trace_object *o)
{
	return o->have_mapped ? o->mapped_pages * m->unmap_page_us : 0;
}

/*
 * libgcc_s's constructor is __cpu_indicator_init (cpuid after cpuid: 50
 * us of dyn-cxx's run here, in a VM where each one traps). A static build
 * links libgcc.a's cpuinfo.o only for a program that asks for the CPU's
 * features (__builtin_cpu_supports), so it sheds it: static-cxx and
 * dar_static have no __cpu_indicator_init. The other libraries'
 * constructors run in a static build too.
 */
static double unlinked_init_us(const struct trace_object *o, const struct report_object *ro)
{
	return o->soname && !strncmp(o->soname, "libgcc_s.so.", 12) && ro->init.n ? ro->init.median
										  : 0;
}

/*
 * A library's own crt code (_init and crtbegin's frame_dummy; its
 * __do_global_dtors_aux and _fini), which a static build has once, in the
 * executable: _init faults in the first window of its text, and _fini,
 * at the text's other end, in another when nothing the program ran has
 * mapped that one (perf: the faults at DT_INIT and DT_FINI, docs/model.md).
 * When its constructors are the crt's alone (DT_INIT and crtbegin's one
 * entry), its measured init is all crt, and so with its destructors and
 * fini. Otherwise: _init's fault, always taken, and _fini's as the ELF
 * layout predicts it (elfobj.c), at the fault cost. shed_init: the init
 * the verdict sheds already (libgcc_s's). Adds the measured parts'
 * variance to *var.
 */
static double crt_us(const struct trace *t, const struct trace_object *o,
		     const struct report_object *ro, double shed_init, double *var)
{
	bool init_crt = o->init_funcs <= 2 && ro->init.n && !(shed_init > 0);
	bool fini_crt = o->fini_funcs <= 2 && ro->fini.n;
	double fault = fault_cost(t), init, fini;

	if (!o->crt_faults16)
		return 0;
	init = init_crt ? ro->init.median : shed_init > 0 ? 0 : fault;
	fini = fini_crt ? ro->fini.median : (o->crt_faults16 - 16) / 16.0 * fault;
	*var += (init_crt ? pow(half_width(&ro->init), 2) : 0) +
		(fini_crt ? pow(half_width(&ro->fini), 2) : 0);
	return init + fini;
}

/* What being dynamic costs each library; sums into rep. Returns the variance. */
static double shed_libraries(const struct trace *t, struct report *rep, size_t *nlibs)
{
	struct model_coefs d;
	const struct model_coefs *ep = exit_prices(t, &d);
	double var = 0;

	for (size_t i = 0; i < rep->nobjs; i++) {
		struct report_object *ro = &rep->objs[i];
		const struct trace_object *o = &t->obj[ro->obj];
		double reloc = ro->reloc.n ? ro->reloc.median : 0, keep = ifunc_us(rep, o);
		if (o->dlopened || o->role == ROLE_SHIM)
			continue;
		if (o->role == ROLE_EXECUTABLE) {
			/* Static, not static-pie: its relocations happen at link time. */
			rep->static_exe_us += reloc;
			rep->static_exit_us += ro->exit_us =
				exit_path_us(ep, o) - ep->exit_per_object_us;
			var += pow(half_width(&ro->reloc), 2);
			continue;
		}
		if (o->role != ROLE_LIBRARY)
			continue;
		++*nlibs;
		if (elf_soname_is_libc(o->soname))
			continue; /* libc and ld.so: in the calibrated fixed cost */
		ro->exit_us = exit_path_us(ep, o) + unmapped_us(ep, o);
		double init = unlinked_init_us(o, ro);
		ro->crt_us = crt_us(t, o, ro, init, &var);
		double shed = fmax(0, (ro->load.n ? ro->load.median : 0) + reloc - keep) + init;
		ro->link_saved_us = shed + ro->exit_us + ro->lazy_us + ro->crt_us;
		rep->static_libs_us += shed;
		rep->static_exit_us += ro->exit_us;
		rep->static_crt_us += ro->crt_us;
		rep->static_kept_us += keep;
		var += pow(half_width(&ro->load), 2) + pow(half_width(&ro->reloc), 2) +
		       (init > 0 ? pow(half_width(&ro->init), 2) : 0);
	}
	return var;
}

/*
 * The forks of the program's own image (run/fork-census.h), each dearer
 * from a dynamic image: with libc alone, and per more library it loaded
 * at startup (calibrate's fork programs); when it binds fork lazily, its
 * children bind their first calls so too, and cost the lazily bound fork
 * programs' more, per library their lookups of libc's functions probe
 * (those before libc in the scope, as the fork programs' sixteen are).
 * 0 when they were not counted.
 */
static double fork_cost_us(const struct trace *t, const struct report *rep)
{
	const struct model_coefs *m = &t->model;
	size_t libs = 0, probed = 0; /* ...and of them, those before libc in the scope */
	bool past_libc = false;
	double each;

	if (!t->forks_counted || !t->image_forks)
		return 0;
	/* In load order, the global scope's: a lookup of a libc function ends at libc. */
	for (size_t i = 0; i < rep->nobjs; i++) {
		const struct trace_object *o = &t->obj[rep->objs[i].obj];
		if (o->role != ROLE_LIBRARY || o->dlopened)
			continue;
		if (elf_soname_is_libc(o->soname))
			past_libc = true;
		else
			libs++, probed += !past_libc;
	}
	each = m->fork_fixed_us + m->fork_per_object_us * (double)libs;
	if (t->static_side.fork_lazy)
		each += m->fork_lazy_fixed_us + m->fork_lazy_per_object_us * (double)probed;
	return t->image_forks * each;
}

/*
 * The processes of its image that looked something up through NSS in the
 * census's run (getpwuid, getgrnam, getaddrinfo...): the first lookup runs
 * libc code a static link packs closer, at calibrate's NSS pair's price
 * (model/calibrate-nss.h). 0 when the census did not run.
 */
static double nss_cost_us(const struct trace *t)
{
	return t->forks_counted ? t->image_nss * t->model.nss_us : 0;
}

/*
 * A static glibc start initializes malloc whatever the program does (its
 * getrandom and brk, strace), a dynamic one at the program's first
 * allocation: the minimal pair allocates once (model/minimal-pair.h), so
 * its difference is a program's that allocates. One whose first process
 * had no heap at its exit (the census) saves the calibration's price of
 * that first allocation less. 0 when the census did not see its exit.
 */
static double no_alloc_us(const struct trace *t)
{
	return t->forks_counted && t->heap_seen && !t->image_heap ? t->model.malloc_us : 0;
}

/*
 * A tree of processes that wait on each other queues behind the load at
 * each wake-up: every microsecond of CPU it spends costs the measured
 * stretch in wall time (sched_tree_stretch), and so does each the static
 * build would not spend. Only when the census saw its processes start
 * others: one that runs alone keeps its first time slice through its
 * start, and its phases carry what the load adds. The saving and its +-
 * in wall time, with the stretch's own CI; the part the load adds in
 * static_load_us.
 */
static void stretch(const struct trace *t, struct report *rep, double *saved, double *hw)
{
	const struct summary *s = &rep->tree_stretch;
	double k = s->median, khw;

	if (!t->forks_counted || !(t->image_forks + t->image_vforks) || !s->n || !(k > 0))
		return;
	khw = fmax(s->ci_hi - k, k - s->ci_lo);
	rep->stretch_applied = true;
	rep->static_load_us = *saved * (k - 1);
	*hw = sqrt(pow(*hw * k, 2) + pow(*saved * khw, 2));
	*saved *= k;
}

static enum static_verdict judge(double saved, double hw)
{
	if (saved + hw < 0)
		return SV_HURTS;
	return saved - hw > 0 ? SV_SAVES : SV_NO_GAIN;
}

/*
 * Linking statically: the dynamic costs a static build sheds, less its own
 * start's extra work, and the static build's whole run that leaves. When
 * the interval does not exclude zero, or lies below it, the advice is
 * dropped and the verdict says so.
 */
static void static_link(const struct trace *t, struct report *rep)
{
	const struct model_coefs *m = &t->model;
	double hw = fmax(m->dynamic_fixed_hi - m->dynamic_fixed_us,
			 m->dynamic_fixed_us - m->dynamic_fixed_lo);
	double var = hw * hw, saved, base;
	size_t nlibs = 0;

	lazy_binding(t, rep);
	var += shed_libraries(t, rep, &nlibs);
	rep->static_fixed_us = m->dynamic_fixed_us;
	rep->static_fault_us = fault_cost(t);
	rep->static_own_us = static_side_us(m, &t->static_side);
	rep->static_fork_us = fork_cost_us(t, rep);
	rep->static_nss_us = nss_cost_us(t);
	rep->static_noalloc_us = no_alloc_us(t);
	if (static_side_unwound(t)) {
		double lo, hi;
		rep->static_unwind_us = static_unwind_us(m, &t->static_side, &lo, &hi);
		var += pow(fmax(rep->static_unwind_us - lo, hi - rep->static_unwind_us), 2);
	}
	saved = rep->static_fixed_us + rep->static_exe_us + rep->static_libs_us +
		rep->static_exit_us + rep->static_lazy_us + rep->static_crt_us +
		rep->static_fork_us + rep->static_nss_us - rep->static_noalloc_us -
		rep->static_own_us - rep->static_unwind_us;
	rep->static_model_err_us = model_error(m, saved);
	hw = sqrt(var + pow(rep->static_model_err_us, 2));
	stretch(t, rep, &saved, &hw);
	base = rep->plain_total.n ? rep->plain_total.median : rep->total.median;
	rep->have_verdict = true;
	rep->static_saved_us = saved;
	rep->static_saved_lo = saved - hw;
	rep->static_saved_hi = saved + hw;
	rep->static_saved_pct = 100 * saved / base;
	rep->static_total_us = base - saved;
	rep->static_verdict = judge(saved, hw);
	if (rep->static_verdict != SV_SAVES)
		return;
	add_advice(rep, saved, hw, "link statically",
		   "a static build skips ld.so's bootstrap, loading %zu libraries, relocating "
		   "them, binding lazily and the dynamic exit path%s",
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

/*
 * When page faults cost this many times more or less now than at
 * calibration, the calibrated costs of pages and the fixed cost are
 * biased. 1.25: on 2026-12-05 the sample shell's verdict came out -31% to
 * -40% in four compares whose faults cost 1.16 to 1.46 times the
 * calibration's, and -2% to -4% minutes later at 0.94 to 0.96, after the
 * episode (a fresh calibration then agreed with the old one within 3%).
 */
#define FAULT_DRIFT_RATIO 1.25

static char *fault_drift(const struct trace *t)
{
	const struct model_coefs *m = &t->model;
	double now = t->fault_us_now, then = m->fault_us, ratio;

	if (!(now > 0) || !(then > 0) || !m->calibrated)
		return NULL;
	ratio = now / then;
	if (ratio <= FAULT_DRIFT_RATIO && ratio >= 1 / FAULT_DRIFT_RATIO)
		return NULL;
	return xasprintf("a page fault costs %.2f us now against %.2f us at calibration "
			 "(%.1fx): the calibrated costs of pages (a page relocation writes is a "
			 "fault, and freed at exit)%s are biased by as much; "
			 "calibrate in this state of the machine to trust the verdict",
			 now, then, ratio, t->fixed_runs ? "" : " and the fixed cost");
}

/* --fixed-runs: where the fixed cost came from, and how far it moved. */
static char *fixed_note(const struct trace *t)
{
	const struct model_coefs *m = &t->model;

	if (!t->fixed_runs)
		return NULL;
	return xasprintf("the fixed cost of being dynamic was measured %s, on a "
			 "minimal program built both ways (%zu runs of each): %.1f us [%.1f, "
			 "%.1f], against %.1f us at calibration",
			 t->fixed_interleaved ? "in the same rounds as the programs" : "after the runs",
			 t->fixed_runs, m->dynamic_fixed_us, m->dynamic_fixed_lo,
			 m->dynamic_fixed_hi, t->fixed_cal_us);
}

/* What the first unwind of a static build costs, or that this run cannot tell. */
static char *unwind_note(const struct trace *t, const struct report *rep)
{
	const struct static_facts *sf = &t->static_side;
	const struct trace_object *u =
		sf->have_unwinder && sf->unwinder < t->nobj ? &t->obj[sf->unwinder] : NULL;
	double lo, hi, cost = static_unwind_us(&t->model, sf, &lo, &hi);
	uint32_t fewest, most, n = static_unwind_fdes(&t->model, sf, &fewest, &most);

	char price[160];

	if (t->unwind_price_now)
		snprintf(price, sizeof price,
			 "its price measured after the runs, %.4f us per n log2 n [%.4f, %.4f], "
			 "against %.4f at calibration",
			 t->model.fde_sort_us, t->model.fde_sort_lo, t->model.fde_sort_hi,
			 t->unwind_cal_price);
	else
		snprintf(price, sizeof price, "the calibration's price, %.4f us per n log2 n",
			 t->model.fde_sort_us);
	if (rep->static_unwind_us > 0)
		return xasprintf(
			"the program unwinds (a C++ exception or a backtrace: %s bound "
			"%u slots after startup): a static build registers its whole "
			".eh_frame and sorts it at the first unwind: %.0f us (%.0f to "
			"%.0f), %u FDEs out of order (%s; %u to %u at the extremes), which "
			"the saving subtracts; %s",
			u->soname ? u->soname : u->path, u->lazy_binds, rep->static_unwind_us, lo,
			hi, n,
			sf->have_kept
				? "as a replay of its link through the C and C++ runtime's "
				  "archives finds"
				: "of the C and C++ runtime it keeps only the archive members "
				  "it needs, and there is no libc.a here to replay which",
			fewest, most, price);
	if (u && u->bind_now && cost >= ADVICE_MIN_US)
		return xasprintf("%s is bound at startup, so this run cannot tell whether the "
				 "program unwinds (throws); if it does, a static build sorts its "
				 "FDEs at the first unwind, %.0f us (%.0f to %.0f), which the "
				 "saving does not subtract",
				 u->soname ? u->soname : u->path, cost, lo, hi);
	return NULL;
}

/* The verdict's caveats, as notes (allocated) for report_build to add. */
/*
 * A busy machine: the verdict's parts are medians of phases, which few
 * preemptions reach, while a static build's run, shorter, would be
 * preempted less often than the dynamic one's; the difference of the two
 * builds' medians then grows by what the preemptions add to the longer.
 */
static char *sched_note(const struct report *rep)
{
	const struct sched_state *ss = &rep->sched;

	if (!(sched_state_pct(ss) >= SCHED_BUSY_PCT))
		return NULL;
	return xasprintf("the scheduler preempted %zu of %zu runs for another task: on a machine "
			 "this busy a static build, whose run is shorter, is preempted less often, "
			 "and the measured difference between the builds grows by what the "
			 "preemptions add to the longer run, which the verdict does not count "
			 "(docs/model.md)",
			 ss->preempted, ss->runs);
}

/*
 * The forks: how many the census counted and what each was priced at; or,
 * when they could not be counted, that a program that binds a forking
 * function is priced without them.
 */
static char *fork_note(const struct trace *t, const struct report *rep)
{
	const char *spawn = t->static_side.spawn_example;
	char vf[96] = "";

	if (t->image_vforks)
		snprintf(vf, sizeof vf, "; its %u vfork and posix_spawn children share it, not priced",
			 t->image_vforks);
	if (t->forks_counted && t->image_forks)
		return xasprintf("the program's own image forked %u times in a run, each %.0f us "
				 "dearer than a static image's (its mappings copied into the child "
				 "and torn down with it%s; docs/model.md)%s",
				 t->image_forks, rep->static_fork_us / t->image_forks,
				 t->static_side.fork_lazy
					 ? ", and the child's first calls bound lazily through "
					   "every library, as the program binds fork"
					 : "",
				 vf);
	if (t->forks_counted && t->image_vforks)
		return xasprintf("the program started %u processes by vfork or posix_spawn, which "
				 "share its image and copy none of it: not priced",
				 t->image_vforks);
	if (!t->forks_counted && spawn[0])
		return xasprintf("the program can start processes (it binds %s): a dynamic "
				 "process forks slower than a static one, as the kernel copies "
				 "its mappings and a child that execs tears them down "
				 "(docs/model.md measures it on dar -V); its forks could not be "
				 "counted, and the verdict leaves them out",
				 spawn);
	return NULL;
}

/*
 * NSS: what the census saw it look up, at what price; and, when it calls
 * NSS functions, what a static glibc can and some builds leave out.
 */
static char *nss_note(const struct trace *t)
{
	const struct static_facts *sf = &t->static_side;
	bool looked = t->forks_counted && t->image_nss;
	char calls[96] = "", seen[224] = "", now[96] = "";

	if (!sf->nss_calls && !looked)
		return NULL;
	if (sf->nss_calls)
		snprintf(calls, sizeof calls, " calls %u NSS functions (%s, ...)", sf->nss_calls,
			 sf->nss_example);
	if (t->nss_price_now && t->nss_cal_us > 0)
		snprintf(now, sizeof now, " (measured after the runs; %.0f us at calibration)",
			 t->nss_cal_us);
	else if (t->nss_price_now)
		snprintf(now, sizeof now, " (measured after the runs; the calibration has none)");
	else if (t->model.calibrated && t->model.nss_builtin)
		snprintf(now, sizeof now, " (the built-in price: the calibration has none)");
	if (looked)
		snprintf(seen, sizeof seen,
			 "%s %u of its processes looked something up through NSS in a run, each "
			 "first lookup priced %.0f us dearer dynamic%s",
			 sf->nss_calls ? ";" : "", t->image_nss, t->model.nss_us, now);
	return xasprintf("the program%s%s: a static glibc build has only the sources built "
			 "into libc (files, dns) without the shared libc, and some static builds "
			 "leave such lookups out (Debian's zsh-static does), so compare what the "
			 "two builds do before their times",
			 calls, seen);
}

static size_t caveats(const struct trace *t, const struct report *rep, char *notes[VERDICT_NOTES])
{
	size_t dl = 0, n = 0;

	for (size_t i = 0; i < t->nobj; i++)
		dl += t->obj[i].dlopened;
	if ((notes[n] = fixed_note(t)))
		n++;
	if ((notes[n] = fault_drift(t)))
		n++;
	if ((notes[n] = nss_note(t)))
		n++;
	if ((notes[n] = unwind_note(t, rep)))
		n++;
	if ((notes[n] = fork_note(t, rep)))
		n++;
	if ((notes[n] = sched_note(rep)))
		n++;
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
	return caveats(t, rep, notes);
}
