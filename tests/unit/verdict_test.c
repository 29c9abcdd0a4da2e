/*
 * Unit tests for the static-link verdict (verdict.c) on a synthetic trace
 * with the cost model attached: lazy binding after startup is priced and
 * added to the saving; the exit path is part of each library's saving; a
 * static build's own start is subtracted, so the verdict can say "don't"
 * and then drops the advice; its +- holds the model's validated error; a
 * fault cost that changed since calibration is told; a program that
 * unwinds pays a static build's FDE sort. Also the machine's fault
 * measurement and the calibration file's new keys.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-trace.h"
#include "model/line-decay.h"
#include "model/analyze.h"
#include "model/calibrate-machine.h"
#include "model/calibrate-unwind.h"
#include "model/compare.h"
#include "model/minimal-pair.h"
#include "model/model.h"
#include "model/static-side.h"
#include "render/render.h"
#include "unit.h"

/* The fake trace with model counts on every object but the vDSO, calibrated. */
static void model_trace(struct trace *t)
{
	fake_trace(t, &(struct fake_opts){.runs = 20, .slow = 1});
	model_defaults(&t->model);
	t->model.calibrated = true;
	t->model.fault_us = 1.0;
	for (size_t i = 0; i < t->nobj; i++) {
		struct trace_object *o = &t->obj[i];
		if (o->role == ROLE_VDSO)
			continue;
		o->have_feat = true;
		o->feat[MF_RELATIVE] = 1000;
		o->feat[MF_LOOKUPS] = 100;
		o->feat[MF_CHAIN] = 300;
		o->feat[MF_STRCMPS] = 100;
		o->feat[MF_PAGES] = 10;
		o->feat[MF_OBJECTS] = 1;
	}
	t->static_side.known = true;
}

static const struct report_object *obj_of(const struct report *rep, uint32_t obj)
{
	for (size_t i = 0; i < rep->nobjs; i++)
		if (rep->objs[i].obj == obj)
			return &rep->objs[i];
	return NULL;
}

static bool has_advice(const struct report *rep, const char *what)
{
	for (size_t i = 0; i < rep->nadvice; i++)
		if (!strcmp(rep->advice[i].what, what))
			return true;
	return false;
}

static bool has_note(const struct report *rep, const char *part)
{
	for (size_t i = 0; i < rep->nnotes; i++)
		if (strstr(rep->notes[i], part))
			return true;
	return false;
}

static void test_lazy_binding(void)
{
	struct trace t;
	struct report a, b;

	model_trace(&t);
	/* liba binds its PLT lazily: the old verdict only noted it, uncounted. */
	t.obj[3].bind_now = false;
	t.obj[3].relocs.jump_slot = 300;
	report_build(&t, &a);
	CHECK(a.have_verdict && a.static_lazy_us == 0);
	t.obj[3].lazy_binds = 200;
	report_build(&t, &b);
	double scale = b.phase[PH_RELOCATE].median / b.reloc_model_us;
	const double *c = t.model.coef_us; /* the lookups' work in the fake counts */
	double per_lookup = (c[MF_CHAIN] * 300 + c[MF_STRCMPS] * 100) / 100;
	const struct report_object *ro = obj_of(&b, 3);
	CHECK(ro && ro->lazy_us > 0);
	CHECK_NEAR(ro->lazy_us, 200 * per_lookup * scale, 1e-6);
	CHECK_NEAR(b.static_lazy_us, ro->lazy_us, 1e-9);
	CHECK_NEAR(b.static_saved_us - a.static_saved_us, ro->lazy_us, 1e-6);
	CHECK_NEAR(ro->link_saved_us - obj_of(&a, 3)->link_saved_us, ro->lazy_us, 1e-6);
	CHECK(!has_note(&b, "do not count") && !has_note(&a, "do not count"));
	report_free(&a);
	report_free(&b);
	trace_free(&t);
}

static void test_exit_path(void)
{
	struct trace t;
	struct report rep;

	model_trace(&t);
	t.model.exit_per_object_us = 5;
	t.model.exit_per_page_us = 0.5;
	t.model.exit_per_kib_us = 0.1;
	report_build(&t, &rep);
	/* 1100 Rela of 24 bytes and 100 symbols of 48: 30.47 KiB of tables. */
	double tables = (1100 * 24 + 100 * 48) / 1024.0 * 0.1;
	CHECK_NEAR(model_table_kib(t.obj[3].feat), 30.46875, 1e-9);
	/* Each library: its object, its 10 pages, its tables; the executable: no object. */
	CHECK_NEAR(obj_of(&rep, 3)->exit_us, 10 + tables, 1e-9);
	CHECK_NEAR(obj_of(&rep, 4)->exit_us, 10 + tables, 1e-9);
	CHECK_NEAR(obj_of(&rep, 0)->exit_us, 5 + tables, 1e-9);
	CHECK_NEAR(rep.static_exit_us, 25 + 3 * tables, 1e-9);
	CHECK(obj_of(&rep, 3)->link_saved_us >= obj_of(&rep, 3)->exit_us);
	report_free(&rep);
	trace_free(&t);
}

/*
 * The pages a library had mapped at the program's exit, each unmapped at
 * unmap_page_us: in its exit path and the saving; none when not counted,
 * and none for the executable (a static build maps its code too).
 */
static void test_mapped_pages(void)
{
	struct trace t;
	struct report a, b;

	model_trace(&t);
	t.model.unmap_page_us = 0.1;
	report_build(&t, &a);
	t.obj[3].have_mapped = t.obj[0].have_mapped = true;
	t.obj[3].mapped_pages = 200;
	t.obj[0].mapped_pages = 50;
	t.obj[4].mapped_pages = 300; /* not counted: have_mapped false */
	report_build(&t, &b);
	CHECK_NEAR(obj_of(&b, 3)->exit_us - obj_of(&a, 3)->exit_us, 20, 1e-9);
	CHECK_NEAR(obj_of(&b, 4)->exit_us, obj_of(&a, 4)->exit_us, 1e-9);
	CHECK_NEAR(obj_of(&b, 0)->exit_us, obj_of(&a, 0)->exit_us, 1e-9);
	CHECK_NEAR(b.static_saved_us - a.static_saved_us, 20, 1e-6);
	CHECK_NEAR(b.static_exit_us - a.static_exit_us, 20, 1e-9);
	report_free(&a);
	report_free(&b);
	trace_free(&t);
}

/*
 * A library's crt code: with the crt's constructors and destructors alone,
 * its measured init and fini; otherwise _init's fault and _fini's share
 * of one at the fault cost. Added to the saving; none without crt faults.
 */
static void test_crt_code(void)
{
	struct trace t;
	struct report a, b, c;

	model_trace(&t);
	t.fault_us_now = 7;
	report_build(&t, &a);
	CHECK(a.have_verdict && a.static_crt_us == 0);
	t.obj[3].crt_faults16 = 24; /* _init's fault, _fini's in half the alignments */
	t.obj[3].init_funcs = t.obj[3].fini_funcs = 2;
	report_build(&t, &b);
	const struct report_object *ro = obj_of(&b, 3);
	CHECK(ro && ro->init.n && ro->fini.n);
	CHECK_NEAR(ro->crt_us, ro->init.median + ro->fini.median, 1e-9);
	CHECK_NEAR(b.static_saved_us - a.static_saved_us, ro->crt_us, 1e-6);
	CHECK_NEAR(ro->link_saved_us - obj_of(&a, 3)->link_saved_us, ro->crt_us, 1e-6);
	t.obj[3].init_funcs = t.obj[3].fini_funcs = 3; /* real constructors, destructors */
	report_build(&t, &c);
	CHECK_NEAR(obj_of(&c, 3)->crt_us, 7 + 0.5 * 7, 1e-9);
	CHECK_NEAR(c.static_crt_us, obj_of(&c, 3)->crt_us, 1e-9);
	report_free(&a);
	report_free(&b);
	report_free(&c);
	trace_free(&t);
}

/* libgcc_s's constructor (__cpu_indicator_init) is not in a static build. */
static void test_unlinked_constructor(void)
{
	struct trace t;
	struct report a, b;

	model_trace(&t);
	report_build(&t, &a);
	free(t.obj[4].soname);
	t.obj[4].soname = strdup("libgcc_s.so.1");
	report_build(&t, &b);
	const struct report_object *ro = obj_of(&b, 4);
	CHECK(ro && ro->init.n && ro->init.median > 0);
	CHECK_NEAR(b.static_saved_us - a.static_saved_us, ro->init.median, 1e-6);
	CHECK_NEAR(ro->link_saved_us - obj_of(&a, 4)->link_saved_us, ro->init.median, 1e-6);
	report_free(&a);
	report_free(&b);
	trace_free(&t);
}

/* The static build's own start, set so that the saving is about `left`. */
static void saving_left(struct trace *t, const struct report *base, double left)
{
	double per = t->model.coef_us[MF_IFUNC];

	t->static_side.ifunc_extra = (uint32_t)fmax(0, (base->static_saved_us - left) / per);
}

static void test_can_say_dont(void)
{
	struct trace t;
	struct report a, hurt, none;
	char *text = NULL;
	size_t len;

	model_trace(&t);
	report_build(&t, &a);
	CHECK(a.static_verdict == SV_SAVES && has_advice(&a, "link statically"));
	CHECK(a.static_own_us == 0);
	CHECK_NEAR(a.static_total_us, a.plain_total.median - a.static_saved_us, 1e-9);
	saving_left(&t, &a, -200);
	report_build(&t, &hurt);
	CHECK(hurt.static_own_us > a.static_saved_us);
	CHECK(hurt.static_saved_us < 0 && hurt.static_saved_hi < 0);
	CHECK(hurt.static_verdict == SV_HURTS && !has_advice(&hurt, "link statically"));
	CHECK(hurt.static_total_us > hurt.plain_total.median);
	FILE *f = open_memstream(&text, &len);
	render_text(f, &hurt, &(struct text_style){false, true});
	fclose(f);
	CHECK(strstr(text, "don't link statically: it would cost") != NULL);
	free(text);
	f = open_memstream(&text, &len);
	render_html(f, &hurt);
	fclose(f);
	CHECK(strstr(text, "Don't link statically: it would cost") != NULL);
	free(text);
	saving_left(&t, &a, 0);
	report_build(&t, &none);
	CHECK(none.static_saved_lo < 0 && none.static_saved_hi > 0);
	CHECK(none.static_verdict == SV_NO_GAIN && !has_advice(&none, "link statically"));
	report_free(&a);
	report_free(&hurt);
	report_free(&none);
	trace_free(&t);
}

/*
 * A C++ program that throws: the static build sorts its FDEs at the first
 * throw (dar -V: 2 ms, more than the loader saves). The old verdict never
 * subtracted it and said "saves" where the static build was slower.
 */
static void test_first_unwind(void)
{
	struct trace t;
	struct report quiet, threw, unknown;

	model_trace(&t);
	t.static_side.fdes = 22000;
	t.static_side.fdes_erratic = t.static_side.fdes_erratic_own = 20000;
	t.static_side.have_unwinder = true;
	t.static_side.unwinder = 4;
	report_build(&t, &quiet);
	CHECK(quiet.static_unwind_us == 0 && quiet.static_verdict == SV_SAVES);
	CHECK(!has_note(&quiet, "unwind"));
	t.obj[4].lazy_binds = 5; /* the unwinder bound its slots: it ran */
	report_build(&t, &threw);
	/* All outside the runtime: the bounds meet. */
	double sort = t.model.fde_sort_us * 20000 * log2(20000);
	CHECK(sort > 3000 && sort < 4000);
	CHECK_NEAR(threw.static_unwind_us, sort, 1e-6);
	/* Its 5 slots bound after startup are lazy binding, which the saving adds. */
	CHECK_NEAR(quiet.static_saved_us - threw.static_saved_us +
			   (threw.static_lazy_us - quiet.static_lazy_us),
		   sort, 1e-6);
	CHECK(threw.static_verdict == SV_HURTS && !has_advice(&threw, "link statically"));
	CHECK(has_note(&threw, "the program unwinds") &&
	      has_note(&threw, "20000 FDEs out of order (of the C and C++ runtime"));
	/* 15000 of them in the runtime: between 5000 + its floor and 20000. */
	t.static_side.fdes_erratic_own = 5000;
	double lo, hi, mid = static_unwind_us(&t.model, &t.static_side, &lo, &hi);
	double fewest = 5000 + t.model.fde_floor;
	CHECK_NEAR(lo, t.model.fde_sort_us * fewest * log2(fewest), 1e-6);
	CHECK_NEAR(hi, sort, 1e-6);
	double gm = floor(sqrt(fewest * 20000));
	CHECK_NEAR(mid, t.model.fde_sort_us * gm * log2(gm), 1e-6);
	CHECK(lo < mid && mid < hi);
	/* A replay of the archives found 12000: the estimate, known to +-25%. */
	t.static_side.have_kept = true;
	t.static_side.fdes_erratic_kept = 12000;
	mid = static_unwind_us(&t.model, &t.static_side, &lo, &hi);
	CHECK_NEAR(mid, t.model.fde_sort_us * 12000 * log2(12000), 1e-6);
	CHECK_NEAR(lo, 0.75 * mid, 1e-6);
	CHECK_NEAR(hi, 1.25 * mid, 1e-6);
	/* The price's range over the calibration's passes widens it, in quadrature. */
	t.model.fde_sort_lo = 0.8 * t.model.fde_sort_us;
	t.model.fde_sort_hi = 1.5 * t.model.fde_sort_us;
	CHECK_NEAR(static_unwind_us(&t.model, &t.static_side, &lo, &hi), mid, 1e-6);
	CHECK_NEAR(lo, mid * (1 - hypot(0.25, 0.2)), 1e-6);
	CHECK_NEAR(hi, mid * (1 + hypot(0.25, 0.5)), 1e-6);
	t.model.fde_sort_lo = 0.01 * t.model.fde_sort_us; /* never below nothing */
	static_unwind_us(&t.model, &t.static_side, &lo, &hi);
	CHECK(lo == 0);
	t.model.fde_sort_lo = t.model.fde_sort_hi = 0; /* one pass: the count's range alone */
	t.static_side.fdes_erratic_kept = 100; /* below the lower bound: the bound */
	CHECK_NEAR(static_unwind_us(&t.model, &t.static_side, &lo, &hi),
		   t.model.fde_sort_us * fewest * log2(fewest), 1e-6);
	t.static_side.have_kept = false;
	t.static_side.fdes_erratic_own = 20000;
	/* Bound at startup, the unwinder cannot tell: nothing subtracted, but said. */
	t.obj[4].lazy_binds = 0;
	t.obj[4].bind_now = true;
	report_build(&t, &unknown);
	CHECK(unknown.static_unwind_us == 0 && unknown.static_verdict == SV_SAVES);
	CHECK(has_note(&unknown, "cannot tell whether the program unwinds"));
	/* No FDEs known (a saved trace): nothing. */
	t.obj[4].lazy_binds = 5;
	t.static_side.known = false;
	report_free(&quiet);
	report_build(&t, &quiet);
	CHECK(quiet.static_unwind_us == 0);
	report_free(&quiet);
	report_free(&threw);
	report_free(&unknown);
	trace_free(&t);
}

static void test_model_error(void)
{
	struct trace t;
	struct report small, big;

	model_trace(&t);
	t.model.verdict_err_pct = 1, t.model.verdict_err_us = 0.01;
	report_build(&t, &small);
	t.model.verdict_err_pct = 50;
	report_build(&t, &big);
	CHECK_NEAR(big.static_model_err_us, 0.5 * big.static_saved_us, 1e-6);
	CHECK(big.static_saved_hi - big.static_saved_us >= big.static_model_err_us);
	CHECK(big.static_saved_hi - big.static_saved_lo >
	      small.static_saved_hi - small.static_saved_lo);
	/* An absolute floor: a saving near zero still has the model's error around it. */
	t.model.verdict_err_pct = 0, t.model.verdict_err_us = 40;
	report_free(&big);
	report_build(&t, &big);
	CHECK_NEAR(big.static_model_err_us, 40, 1e-9);
	report_free(&small);
	report_free(&big);
	trace_free(&t);
}

static void test_fault_drift(void)
{
	struct trace t;
	struct report same, slow;

	model_trace(&t);
	t.fault_us_now = 1.1;
	report_build(&t, &same);
	CHECK(!has_note(&same, "at calibration"));
	CHECK_NEAR(same.static_fault_us, 1.1, 1e-9); /* priced at this run's faults */
	t.fault_us_now = 3.0;
	t.static_side.nss_calls = 2;
	snprintf(t.static_side.nss_example, sizeof t.static_side.nss_example, "getpwuid");
	report_build(&t, &slow);
	CHECK(has_note(&slow, "at calibration"));
	CHECK(has_note(&slow, "calls 2 NSS functions (getpwuid, ...)"));
	CHECK(!has_note(&same, "NSS"));
	CHECK(!has_note(&slow, "start processes"));
	snprintf(t.static_side.spawn_example, sizeof t.static_side.spawn_example, "fork");
	report_free(&slow);
	report_build(&t, &slow);
	CHECK(has_note(&slow, "can start processes (it binds fork)"));
	report_free(&same);
	report_free(&slow);
	trace_free(&t);
}

/*
 * The forks of the program's own image: each at the fork price with libc
 * and per more library (liba and libb: libc is in the fixed price), and the
 * lazily bound price more when it binds fork lazily, added to the saving,
 * named in a note; uncounted, the old caveat stands.
 */
static void test_forks(void)
{
	struct trace t;
	struct report none, some, lost;

	model_trace(&t);
	t.model.fork_fixed_us = 70, t.model.fork_per_object_us = 4;
	snprintf(t.static_side.spawn_example, sizeof t.static_side.spawn_example, "fork");
	t.forks_counted = true;
	report_build(&t, &none);
	CHECK(none.static_fork_us == 0 && !has_note(&none, "forked"));
	CHECK(!has_note(&none, "start processes")); /* counted: it did not fork */
	t.image_forks = 10;
	report_build(&t, &some);
	CHECK_NEAR(some.static_fork_us, 10 * (70 + 4 * 2), 1e-9);
	CHECK_NEAR(some.static_saved_us - none.static_saved_us, 780, 1e-6);
	CHECK(has_note(&some, "own image forked 10 times in a run, each 78 us dearer"));
	CHECK(!has_note(&some, "bound lazily"));
	/* Bound lazily: each child also pays the lazily bound programs' more. */
	t.model.fork_lazy_fixed_us = 150, t.model.fork_lazy_per_object_us = 15;
	t.static_side.fork_lazy = true;
	report_free(&some);
	report_build(&t, &some);
	CHECK_NEAR(some.static_fork_us, 10 * (70 + 150 + (4 + 15) * 2), 1e-9);
	CHECK(has_note(&some, "each 258 us dearer"));
	CHECK(has_note(&some, "the child's first calls bound lazily"));
	/* libc first in the scope: libb, after it, is not probed for a libc call. */
	for (size_t i = 0; i < t.nobj; i++)
		if (t.obj[i].soname && !strcmp(t.obj[i].soname, "liba.so.1")) {
			free(t.obj[i].soname);
			t.obj[i].soname = strdup("libc.so.6");
		}
	report_free(&some);
	report_build(&t, &some);
	CHECK_NEAR(some.static_fork_us, 10 * (70 + 4 + 150), 1e-9);
	t.static_side.fork_lazy = false;
	t.image_forks = 0, t.image_vforks = 2; /* vfork children copy nothing */
	report_free(&none);
	report_build(&t, &none);
	CHECK(none.static_fork_us == 0 && has_note(&none, "started 2 processes by vfork"));
	t.forks_counted = false;
	report_build(&t, &lost);
	CHECK(lost.static_fork_us == 0);
	CHECK(has_note(&lost, "its forks could not be counted"));
	report_free(&none);
	report_free(&some);
	report_free(&lost);
	trace_free(&t);
}

/* First lookups through NSS: each process's at nss_us, once the census counted them. */
static void test_nss(void)
{
	struct trace t;
	struct report none, some, lost;

	model_trace(&t);
	t.model.nss_us = 180;
	t.forks_counted = true;
	report_build(&t, &none);
	CHECK(none.static_nss_us == 0 && !has_note(&none, "NSS"));
	t.image_nss = 2;
	report_build(&t, &some);
	CHECK_NEAR(some.static_nss_us, 360, 1e-9);
	CHECK_NEAR(some.static_saved_us - none.static_saved_us, 360, 1e-6);
	CHECK(has_note(&some, "2 of its processes looked something up through NSS in a run, each "
			      "first lookup priced 180 us dearer"));
	CHECK(!has_note(&some, "built-in price"));
	report_free(&some);
	/* A calibration without an NSS price, none measured now: the note says so. */
	t.model.calibrated = t.model.nss_builtin = true;
	report_build(&t, &some);
	CHECK(has_note(&some, "priced 180 us dearer dynamic (the built-in price: the calibration has none)"));
	t.model.calibrated = t.model.nss_builtin = false;
	t.forks_counted = false; /* no census: nothing priced */
	report_build(&t, &lost);
	CHECK(lost.static_nss_us == 0 && !has_note(&lost, "NSS"));
	report_free(&none);
	report_free(&some);
	report_free(&lost);
	trace_free(&t);
}

static void test_fault_cost(void)
{
	struct summary s;
	struct errbuf err;
	double rest, unmap = -1;

	CHECK(machine_fault_cost(9, &s, &rest, &unmap, &err) == 0);
	CHECK(s.n == 9 && s.median > 0 && s.median < 1000);
	CHECK(s.ci_lo <= s.median && s.median <= s.ci_hi);
	CHECK(rest > 0 && rest <= s.median);
	/* Unmapping a page costs something, and less than the fault that mapped 16. */
	CHECK(unmap > 0 && unmap < s.median);
	CHECK(machine_fault_cost(3, &s, &rest, NULL, &err) == 0);
}

/*
 * A calibration's fit as version 2's first files had it (no libc, no
 * deep probes), but for the coefficient of count `skip` (-1: none), with
 * `more` after it.
 */
static void write_fit(const char *path, const char *more, int skip)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	fprintf(f, "ldprof-calibration %d\nintercept_us 30\n", MODEL_VERSION);
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (k != skip && k != MF_LIBC && k != MF_DEEP_PROBES)
			fprintf(f, "coef %s %g\n", model_feat_name(k),
				k == MF_COLD_LINES ? 0.125 : 0.001);
	fputs(more, f);
	fclose(f);
}

static void test_calibration_file(void)
{
	char path[] = "/tmp/verdict_test.XXXXXX";
	struct model_coefs m, r, d;
	struct errbuf err;
	int fd = mkstemp(path);
	FILE *f;

	CHECK(fd >= 0);
	close(fd);
	model_defaults(&m);
	m.fault_us = 1.25, m.fault_lo = 1.2, m.fault_hi = 1.3, m.fault_rest_us = 1.1;
	m.noise_pct = 3.5, m.exit_per_object_us = 4.5, m.exit_per_page_us = 0.25;
	m.exit_per_kib_us = 0.0625;
	m.verdict_err_pct = 9, m.verdict_err_us = 21;
	m.fde_sort_us = 0.02, m.fde_floor = 900, m.fde_sort_lo = 0.015, m.fde_sort_hi = 0.025;
	m.priced_line_ns = 13.25;
	CHECK(model_save(&m, path, &err) == 0);
	CHECK(model_read(path, &r, &err) == 0);
	CHECK(r.fault_us == 1.25 && r.fault_lo == 1.2 && r.fault_hi == 1.3 &&
	      r.fault_rest_us == 1.1);
	CHECK(r.noise_pct == 3.5 && r.exit_per_object_us == 4.5 && r.exit_per_page_us == 0.25);
	CHECK(r.exit_per_kib_us == 0.0625);
	CHECK(r.verdict_err_pct == 9 && r.verdict_err_us == 21);
	CHECK(r.fde_sort_us == 0.02 && r.fde_floor == 900);
	CHECK(r.fde_sort_lo == 0.015 && r.fde_sort_hi == 0.025);
	CHECK(r.priced_line_ns == 13.25);
	CHECK(!r.nss_builtin && r.nss_us == m.nss_us);
	/* An NSS price that is the built-in one is not stored as measured. */
	m.nss_us = 123, m.nss_builtin = true;
	CHECK(model_save(&m, path, &err) == 0);
	CHECK(model_read(path, &r, &err) == 0);
	model_defaults(&d);
	CHECK(r.nss_builtin && r.nss_us == d.nss_us && d.nss_us != 123);
	/* A calibration from before the exit path was measured: the defaults.
	   From before libc and deep probes were counted, too: priced at 0. */
	write_fit(path, "", -1);
	CHECK(model_read(path, &r, &err) == 0);
	model_defaults(&d);
	CHECK(r.exit_per_object_us == d.exit_per_object_us && r.verdict_err_pct == 0);
	CHECK(r.fde_sort_us == d.fde_sort_us && d.fde_sort_us > 0 && r.fde_floor == d.fde_floor);
	CHECK(r.fde_sort_lo == 0 && r.fde_sort_hi == 0); /* one pass, or none */
	CHECK(r.priced_line_ns == 0);			 /* not recorded: no shift */
	CHECK(r.intercept_us == 30 && r.coef_us[MF_COLD_LINES] == 0.125);
	CHECK(r.coef_us[MF_LIBC] == 0 && r.coef_us[MF_DEEP_PROBES] == 0);
	CHECK(r.warm_priced && r.coef_us[MF_WARM_LINES] == 0.001);
	/* Without a warm line's price (older, or untimed): every line cold. */
	write_fit(path, "", MF_WARM_LINES);
	CHECK(model_read(path, &r, &err) == 0 && !r.warm_priced && r.coef_us[MF_WARM_LINES] == 0);
	/* An untimed one is not stored; a timed 0 is. */
	m.warm_priced = false;
	CHECK(model_save(&m, path, &err) == 0);
	CHECK(model_read(path, &r, &err) == 0 && !r.warm_priced);
	m.warm_priced = true, m.coef_us[MF_WARM_LINES] = 0;
	CHECK(model_save(&m, path, &err) == 0);
	CHECK(model_read(path, &r, &err) == 0 && r.warm_priced && r.coef_us[MF_WARM_LINES] == 0);
	/* Without the fit's lines a file would price everything at 0 us. */
	f = fopen(path, "w");
	fprintf(f, "ldprof-calibration %d\nline_ns 20 11 0\n", MODEL_VERSION);
	fclose(f);
	CHECK(model_read(path, &r, &err) == -EPROTO && strstr(err.msg, "no intercept_us line"));
	write_fit(path, "", MF_COLD_LINES);
	CHECK(model_read(path, &r, &err) == -EPROTO && strstr(err.msg, "no 'coef cold_lines' line"));
	write_fit(path, "verdict_error -3 2\n", -1);
	CHECK(model_read(path, &r, &err) == -EPROTO && strstr(err.msg, "bad line: verdict_error"));
	unlink(path);
}

/*
 * The unwind pair's passes: their median, their range, one pass's own CI,
 * and the default when none resolved.
 */
static void test_unwind_prices(void)
{
	struct unwind_prices up = {
		.price = {0.03, 0.01, 0.02},
		.lo = {0.029, 0.009, 0.019},
		.hi = {0.031, 0.011, 0.021},
		.n = 3,
		.fdes = 7000,
	};
	struct model_coefs m, d;

	model_defaults(&d);
	m = d;
	unwind_prices_apply(&up, 6000, &m);
	CHECK(m.fde_sort_us == 0.02 && m.fde_sort_lo == 0.01 && m.fde_sort_hi == 0.03);
	CHECK(m.fde_floor == 1000);
	up.n = 2;
	unwind_prices_apply(&up, 6000, &m);
	CHECK_NEAR(m.fde_sort_us, 0.02, 1e-12);
	CHECK(m.fde_sort_lo == 0.01 && m.fde_sort_hi == 0.03);
	up.n = 1;
	unwind_prices_apply(&up, 6000, &m);
	CHECK(m.fde_sort_us == 0.03 && m.fde_sort_lo == 0.029 && m.fde_sort_hi == 0.031);
	m = d;
	up.n = 0;
	unwind_prices_apply(&up, 8000, &m);
	CHECK(m.fde_sort_us == d.fde_sort_us && m.fde_sort_hi == 0 && m.fde_floor == 0);
}

/* n plain runs: the first calm of them at calm_us (+ i % 5), the rest preempted at held_us. */
static void fake_runs(struct trace *t, size_t n, size_t calm, double calm_us, double held_us)
{
	memset(t, 0, sizeof *t);
	t->tsc_hz = 1e6;
	t->run = calloc(n, sizeof *t->run);
	t->nrun = n;
	for (size_t i = 0; i < n; i++) {
		t->run[i].exec_ts = 1000;
		double us = i < calm ? calm_us + (double)(i % 5) : held_us;
		t->run[i].reap_ts = 1000 + (uint64_t)us;
		t->run[i].usage.nivcsw = i < calm ? 0 : 1;
	}
}

/* On a busy machine the unwind pair's difference is its calm runs'. */
static void test_unwind_busy(void)
{
	struct trace t[2];
	struct interval d;

	fake_runs(&t[0], 100, 40, 1000, 6000);
	fake_runs(&t[1], 100, 30, 2000, 8000);
	CHECK(calm_pair_difference(t, &d));
	CHECK_NEAR(d.median, 1000, 1e-6);
	CHECK(d.lo <= 1000 && d.hi >= 1000 && d.hi - d.lo < 10);
	free(t[1].run);
	fake_runs(&t[1], 100, CALM_PAIR_MIN - 1, 2000, 8000);
	CHECK(!calm_pair_difference(t, &d));
	free(t[0].run);
	free(t[1].run);
}

/*
 * Back to back, a program whose relocation fits in the L2 finds its lines
 * cached: its cold lines are priced warm, unless the caches were emptied,
 * the rounds' other programs move too much, or no warm price was measured.
 */
static void test_warm_lines(void)
{
	struct trace t;
	double cold, warm, fp;

	model_trace(&t);
	for (size_t i = 0; i < t.nobj; i++)
		t.obj[i].feat[MF_COLD_LINES] = t.obj[i].have_feat ? 100 : 0;
	fp = model_reloc_footprint(&t);
	/* Per object: 10 pages, 1100 relocation entries, 100 lines. */
	CHECK(fp > 0 && fabs(fp - (double)(t.nobj - 1) * (40960 + 26400 + 6400)) < 1);
	cold = model_object_us(&t.model, t.obj[1].feat);
	model_warm_lines(&t, 0, (size_t)fp - 1);
	CHECK(t.obj[1].feat[MF_COLD_LINES] == 100 && t.obj[1].feat[MF_WARM_LINES] == 0);
	t.cold_cache = true;
	model_warm_lines(&t, 0, 1 << 20);
	CHECK(t.obj[1].feat[MF_WARM_LINES] == 0);
	t.cold_cache = false;
	model_warm_lines(&t, (1 << 20) - fp + 1, 1 << 20);
	CHECK(t.obj[1].feat[MF_WARM_LINES] == 0);
	model_warm_lines(&t, 0, 0);
	CHECK(t.obj[1].feat[MF_WARM_LINES] == 0);
	t.model.warm_priced = false; /* a calibration that did not time it */
	model_warm_lines(&t, 0, 1 << 20);
	CHECK(t.obj[1].feat[MF_WARM_LINES] == 0);
	t.model.warm_priced = true;
	model_warm_lines(&t, 1000, 1 << 20);
	CHECK(t.obj[1].feat[MF_COLD_LINES] == 0 && t.obj[1].feat[MF_WARM_LINES] == 100);
	CHECK(fabs(model_reloc_footprint(&t) - fp) < 1); /* the same lines, priced otherwise */
	warm = model_object_us(&t.model, t.obj[1].feat);
	CHECK(fabs(cold - warm -
		   100 * (t.model.coef_us[MF_COLD_LINES] - t.model.coef_us[MF_WARM_LINES])) < 1e-9);
	trace_free(&t);
}

/* Insert e into r's events at index at (the later ones move up). */
static void insert_event(struct trace_run *r, size_t at, const struct trace_event *e)
{
	trace_add_event(r, e);
	memmove(&r->ev[at + 1], &r->ev[at], (r->nev - at - 1) * sizeof *r->ev);
	r->ev[at] = *e;
}

/*
 * Give each profiled run a CPU record at its exit call whose own work
 * (CPU time less exec, load and relocate, plus the exit phase) is own_us;
 * with faults >= 0, also the start's, right after its LA_ACT_CONSISTENT,
 * with that many page faults between the two.
 */
static void add_cpu_faults(struct trace *t, double own_us, long faults)
{
	for (size_t i = 0; i < t->nrun; i++) {
		struct trace_run *r = &t->run[i];
		size_t c = trace_run_consistent_index(r), e = 0;
		if (!r->profiled)
			continue;
		while (e < r->nev && r->ev[e].type != LDPROF_REC_EXIT_CALL)
			e++;
		CHECK(e < r->nev && c < e);
		if (e == r->nev)
			continue;
		struct trace_event cpu = {
			.ts = r->ev[e].ts, .type = LDPROF_REC_CPU, .obj = TRACE_NO_OBJ};
		double start = trace_ticks_to_us(t, r->ev[c].ts - r->exec_ts);
		double exit = trace_ticks_to_us(t, r->reap_ts - cpu.ts);
		cpu.a = (uint64_t)llround(start + own_us - exit);
		cpu.b = 300 + (uint64_t)(faults > 0 ? faults : 0);
		insert_event(r, e + 1, &cpu); /* in time order: right after the exit call */
		if (faults < 0)
			continue;
		struct trace_event first = {.ts = r->ev[c].ts,
					    .type = LDPROF_REC_CPU,
					    .obj = TRACE_NO_OBJ,
					    .a = (uint64_t)llround(start),
					    .b = 300};
		insert_event(r, c + 1, &first);
	}
}

static void add_cpu_records(struct trace *t, double own_us)
{
	add_cpu_faults(t, own_us, -1);
}

/*
 * The faults between the start's end and main's are what the run moves, a
 * page each: a main that computes for 5 ms without touching memory leaves
 * every line, one that faults 200 pages in 100 us evicts its share.
 */
static void test_warm_share_own_faults(void)
{
	static const struct {
		double own_us;
		long faults;
		double share;
	} cases[] = {
		{5000, 3, 1},	/* CPU alone: the lines stay */
		{100, 200, -1}, /* 800 KiB moved: part of them (computed below) */
		{100, 4000, 0}, /* 16 MiB: none */
	};
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct trace t;
		model_trace(&t);
		for (size_t i = 0; i < t.nobj; i++)
			t.obj[i].feat[MF_COLD_LINES] = t.obj[i].have_feat ? 200 : 0;
		add_cpu_faults(&t, cases[k].own_us, cases[k].faults);
		CHECK_NEAR(model_own_faults(&t), (double)cases[k].faults, 1e-9);
		double fp = model_reloc_footprint(&t), l2 = 1 << 20;
		double want = cases[k].share >= 0
				      ? cases[k].share
				      : (l2 - 100 * 1024 - 4096.0 * (double)cases[k].faults) / fp;
		CHECK(want >= 0 && want <= 1);
		if (cases[k].share < 0)
			CHECK(want > 0.05 && want < 0.95);
		model_warm_lines(&t, 0, (size_t)l2);
		CHECK_NEAR(model_warm_share(&t), want, 1e-9);
		trace_free(&t);
	}
	/* Without the start's record: no faults, and the CPU time prices it. */
	struct trace t;
	model_trace(&t);
	add_cpu_records(&t, 100);
	CHECK(isnan(model_own_faults(&t)));
	trace_free(&t);
}

/* Label every run with one probe reading: hot, after 2, 4, 8 ms, and after 15 ms. */
static void label_runs(struct trace *t, const double ns[5])
{
	for (size_t i = 0; i < t->nrun; i++) {
		t->run[i].line_hot_ns = ns[0];
		for (int k = 0; k < CACHE_DECAY_POINTS; k++)
			t->run[i].decay_ns[k] = ns[1 + k];
		t->run[i].line_ns = ns[4];
	}
}

/*
 * A tenant's streaming: the share of the lines kept is what the probe's
 * chase kept after the time between two execs, interpolated between its
 * spells, at most the faults' share; a calm reading keeps them all.
 */
static void test_line_decay(void)
{
	static const double calm[5] = {12, 12.5, 13, 14, 18};
	static const double busy[5] = {12, 12, 32, 80, 112};
	struct trace t;

	model_trace(&t);
	CHECK(isnan(line_decay_surviving(&t, 1000))); /* not probed */
	/* The runs one after another, 3 ms from exec to exec. */
	uint64_t step = (uint64_t)(t.tsc_hz * 3e-3);
	for (size_t i = 0; i < t.nrun; i++) {
		struct trace_run *r = &t.run[i];
		uint64_t shift = i * step + 10 * step - r->exec_ts;
		r->exec_ts += shift;
		r->reap_ts += shift;
		for (size_t k = 0; k < r->nev; k++)
			r->ev[k].ts += shift;
	}
	double gap = line_decay_interval_us(&t);
	CHECK_NEAR(gap, 3000, 1);
	label_runs(&t, calm);
	CHECK(line_decay_surviving(&t, 1000) > 0.9);
	CHECK(line_decay_surviving(&t, 20000) > 0.9); /* 18 ns after 15 ms: under the floor */
	label_runs(&t, busy);
	CHECK_NEAR(line_decay_surviving(&t, 0), 1, 1e-9);
	CHECK_NEAR(line_decay_surviving(&t, 2000), 1, 1e-9);
	CHECK_NEAR(line_decay_surviving(&t, 4000), 1 - 20.0 / 100, 1e-9);
	CHECK_NEAR(line_decay_surviving(&t, 6000), 1 - (0.2 + 0.5 * 0.48), 1e-9);
	CHECK_NEAR(line_decay_surviving(&t, 8000), 1 - 68.0 / 100, 1e-9);
	CHECK_NEAR(line_decay_surviving(&t, 30000), 0, 1e-9);
	/* Bursts: a slower reading at 4 ms than at 8 keeps the curve from rising again. */
	static const double burst[5] = {12, 12, 80, 32, 112};
	label_runs(&t, burst);
	CHECK_NEAR(line_decay_surviving(&t, 8000), line_decay_surviving(&t, 4000), 1e-9);
	/* A hot reading as slow as a line from memory leaves nothing to read them against. */
	static const double slow[5] = {60, 80, 90, 100, 110};
	label_runs(&t, slow);
	CHECK(isnan(line_decay_surviving(&t, 4000)));
	/* In the model: the share warm is the lesser of the faults' and the decay's. */
	for (size_t i = 0; i < t.nobj; i++)
		t.obj[i].feat[MF_COLD_LINES] = t.obj[i].have_feat ? 200 : 0;
	label_runs(&t, busy);
	double kept = line_decay_surviving(&t, gap);
	model_warm_lines(&t, 0, 1 << 20);
	CHECK_NEAR(model_warm_share(&t), fmin(1, kept), 1e-9);
	trace_free(&t);
}

/*
 * A cold line's price follows the shared cache's state: the calibration's
 * plus the probe's reading over the held runs less the fit's (a contended
 * session against a calm calibration pays the difference a line, a calm
 * one against a contended calibration less, never under a warm line), and
 * nothing shifts without both readings or with the caches emptied.
 */
static void test_line_state(void)
{
	static const double calm[5] = {12, 12, 13, 14, 20}, busy[5] = {12, 12, 30, 70, 100};
	struct trace t;

	model_trace(&t);
	double cal = t.model.coef_us[MF_COLD_LINES];
	t.model.priced_line_ns = 20;
	model_line_state(&t); /* the runs not probed */
	CHECK(!t.cold_line_shifted);
	CHECK_NEAR(t.model.coef_us[MF_COLD_LINES], cal, 1e-12);
	label_runs(&t, busy);
	model_line_state(&t);
	CHECK(t.cold_line_shifted);
	CHECK_NEAR(t.cold_line_cal_us, cal, 1e-12);
	CHECK_NEAR(t.model.coef_us[MF_COLD_LINES], cal + 0.080, 1e-9);
	trace_free(&t);

	/* A calibration of the contended machine, calm runs: cheaper, down to a warm line. */
	model_trace(&t);
	t.model.priced_line_ns = 100;
	t.model.contended_blocks_pct = 100;
	label_runs(&t, calm);
	model_line_state(&t);
	CHECK_NEAR(t.model.coef_us[MF_COLD_LINES],
		   fmax(t.model.coef_us[MF_WARM_LINES], cal - 0.080), 1e-9);
	trace_free(&t);

	/* Half the runs contended: held to the calm ones, a calm calibration's state. */
	model_trace(&t);
	t.model.priced_line_ns = 20;
	label_runs(&t, busy);
	for (size_t i = 0; i < t.nrun; i += 2)
		t.run[i].line_ns = 20;
	model_line_state(&t);
	CHECK_NEAR(t.model.coef_us[MF_COLD_LINES], cal, 1e-9);
	trace_free(&t);

	/* --cold-cache: every line from memory whatever the tenant does. */
	model_trace(&t);
	t.model.priced_line_ns = 20;
	t.cold_cache = true;
	label_runs(&t, busy);
	model_line_state(&t);
	CHECK(!t.cold_line_shifted);
	trace_free(&t);
}

/*
 * What the rest of the run moves evicts the lines the run before left: the
 * share the L2 has room for after it is priced warm, the rest cold, and
 * the lines are the same lines.
 */
static void test_warm_share_own_work(void)
{
	static const struct {
		double own_us, l2_kib, share;
	} cases[] = {
		{100, 1024, 1},	  /* little work: every line stays */
		{1300, 1024, -1}, /* apt-cache's: part of them (computed below) */
		{5000, 1024, 0},  /* a large main: none */
	};
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct trace t;
		model_trace(&t);
		for (size_t i = 0; i < t.nobj; i++)
			t.obj[i].feat[MF_COLD_LINES] = t.obj[i].have_feat ? 2000 : 0;
		add_cpu_records(&t, cases[k].own_us);
		CHECK_NEAR(model_own_work_us(&t), cases[k].own_us, 1.5);
		double fp = model_reloc_footprint(&t), l2 = cases[k].l2_kib * 1024;
		double want = cases[k].share >= 0
				      ? cases[k].share
				      : (l2 - 100 * 1024 - 460 * model_own_work_us(&t)) / fp;
		CHECK(want >= 0 && want <= 1);
		model_warm_lines(&t, 0, (size_t)l2);
		CHECK_NEAR(model_warm_share(&t), want, 1e-9);
		CHECK_NEAR(t.obj[1].feat[MF_WARM_LINES] + t.obj[1].feat[MF_COLD_LINES], 2000, 1e-9);
		CHECK_NEAR(model_reloc_footprint(&t), fp, 1e-6);
		if (cases[k].share < 0)
			CHECK(want > 0.2 && want < 0.8);
		trace_free(&t);
	}
}

/*
 * The version check's lines and bytes are in an object's counts but cost
 * no lookup: a lazy lookup's price leaves them out, its lines priced cold
 * or warm as the object's others.
 */
static void test_lazy_price_without_versions(void)
{
	struct model_coefs m;
	struct advice_facts plain = {.now_plt = 1}, versioned = plain;
	struct model_savings a, b;
	double f[MODEL_NFEAT] = {0};

	model_defaults(&m);
	f[MF_LOOKUPS] = 100;
	f[MF_CHAIN] = 300;
	f[MF_COLD_LINES] = 50;
	f[MF_CMP_BYTES] = 2000;
	model_object_savings(&m, f, &plain, false, &a);
	versioned.version_lines = 20;
	versioned.version_bytes = 500;
	model_object_savings(&m, f, &versioned, false, &b);
	const double *c = m.coef_us;
	CHECK_NEAR(a.lazy - b.lazy, (20 * c[MF_COLD_LINES] + 500 * c[MF_CMP_BYTES]) / 100, 1e-12);
	f[MF_WARM_LINES] = f[MF_COLD_LINES]; /* model_warm_lines moved them */
	f[MF_COLD_LINES] = 0;
	model_object_savings(&m, f, &plain, false, &a);
	model_object_savings(&m, f, &versioned, false, &b);
	CHECK_NEAR(a.lazy - b.lazy, (20 * c[MF_WARM_LINES] + 500 * c[MF_CMP_BYTES]) / 100, 1e-12);
	CHECK(b.lazy > 0);
}

int main(void)
{
	test_warm_lines();
	test_warm_share_own_work();
	test_warm_share_own_faults();
	test_line_decay();
	test_line_state();
	test_lazy_price_without_versions();
	test_lazy_binding();
	test_mapped_pages();
	test_crt_code();
	test_exit_path();
	test_unlinked_constructor();
	test_can_say_dont();
	test_first_unwind();
	test_unwind_busy();
	test_model_error();
	test_fault_drift();
	test_forks();
	test_nss();
	test_fault_cost();
	test_calibration_file();
	test_unwind_prices();
	return unit_done("verdict_test");
}
