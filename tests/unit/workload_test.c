/*
 * Unit tests for the workload report (model/workload.c) on hand-built
 * process trees: three profiled runs, each a top process and four
 * children (a recorded exec of the same binary, a static binary, a fork
 * that never executed, an exec the shim missed), interleaved with plain
 * runs. Every figure is checked against values worked out by hand from
 * the events below (1 GHz: one tick is one nanosecond).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-trace.h"
#include "model/workload/workload.h"
#include "unit.h"

enum { O_EXE, O_LDSO, O_VDSO, O_LIBA, O_LIBB };

/* One recorded exec of /bin/prog at ts: exec 300 us, load 103, relocate 100, init 7.5, main 1000.
 */
static void prog_exec(struct tree_exec *e, uint64_t ts)
{
	struct trace_run r = {0};
	uint64_t at = ts;

	fake_ev(&r, &at, 300000, LDPROF_REC_VERSION, TRACE_NO_OBJ, 0);
	fake_ev(&r, &at, 1000, LDPROF_REC_OBJOPEN, O_EXE, 0);
	fake_ev(&r, &at, 1000, LDPROF_REC_OBJOPEN, O_LDSO, 0);
	fake_ev(&r, &at, 1000, LDPROF_REC_OBJOPEN, O_VDSO, 0);
	fake_ev(&r, &at, 40000, LDPROF_REC_OBJOPEN, O_LIBA, 0);
	fake_ev(&r, &at, 60000, LDPROF_REC_OBJOPEN, O_LIBB, 0);
	fake_ev(&r, &at, 100000, LDPROF_REC_ACTIVITY, TRACE_NO_OBJ, 0);
	fake_ev(&r, &at, 500, LDPROF_REC_INIT_BEGIN, O_LIBA, 0);
	fake_ev(&r, &at, 5000, LDPROF_REC_INIT_END, O_LIBA, 1);
	fake_ev(&r, &at, 2000, LDPROF_REC_PREINIT, TRACE_NO_OBJ, 0);
	fake_ev(&r, &at, 1000000, LDPROF_REC_EXIT_CALL, TRACE_NO_OBJ, 1);
	*e = (struct tree_exec){.ts = ts,
				.end_ts = at + 50000,
				.path = strdup("/bin/prog"),
				.comm = strdup("prog"),
				.kind = TREE_EXEC_SHIM,
				.ev = r.ev,
				.nev = r.nev};
}

static void other_exec(struct tree_exec *e, const char *path, enum tree_exec_kind kind, uint64_t ts,
		       uint64_t dur)
{
	*e = (struct tree_exec){.ts = ts,
				.end_ts = ts + dur,
				.path = strdup(path),
				.comm = strdup("x"),
				.kind = kind};
}

static struct tree_proc *add_proc(struct run_tree *tr, int32_t pid, uint32_t parent, uint64_t at)
{
	struct tree_proc *p = &tr->proc[tr->nproc++];

	*p = (struct tree_proc){.pid = pid,
				.ppid = parent == TREE_NO_PROC ? 1 : 100,
				.parent = parent,
				.fork_ts = at};
	p->exec = calloc(1, sizeof *p->exec);
	return p;
}

/* Run i: wall 5000 + 100 i us; CPU 1000 + 10 i user, 500 sys. */
static void fake_tree_run(struct trace_run *r, size_t i)
{
	struct run_tree *tr = r->tree = calloc(1, sizeof *tr);
	uint64_t t0 = 10000000 * (i + 1);
	struct tree_proc *p;

	r->profiled = r->shim_attached = true;
	r->exec_ts = t0;
	r->reap_ts = t0 + 5000000 + 100000 * i;
	tr->proc = calloc(5, sizeof *tr->proc);
	tr->have_cpu = true;
	tr->cpu_user_us = 1000 + 10 * (double)i;
	tr->cpu_sys_us = 500;
	p = add_proc(tr, 100, TREE_NO_PROC, t0);
	prog_exec(&p->exec[p->nexec++], t0);
	if (i == 1) {
		/* As the launcher leaves it: the top's records are the run's, its exec point later.
		 */
		struct tree_exec *e = &p->exec[0];
		r->ev = e->ev;
		r->nev = r->cap = e->nev;
		e->ev = NULL;
		e->nev = 0;
		e->ts += 20000;
	}
	p = add_proc(tr, 101, 0, t0 + 1500000);
	prog_exec(&p->exec[p->nexec++], t0 + 1500000);
	p = add_proc(tr, 102, 0, t0 + 3000000);
	other_exec(&p->exec[p->nexec++], "/bin/static", TREE_EXEC_STATIC, t0 + 3000000, 200000);
	add_proc(tr, 103, 0, t0 + 3300000); /* a fork that never executed */
	p = add_proc(tr, 104, 0, t0 + 3500000);
	other_exec(&p->exec[p->nexec++], "/bin/prog", TREE_EXEC_NO_SHIM, t0 + 3500000, 500000);
}

static void follow_trace(struct trace *t)
{
	fake_trace(t, &(struct fake_opts){.runs = 0});
	t->follow = true;
	for (size_t i = 0; i < 3; i++) {
		fake_tree_run(trace_add_run(t), i);
		struct trace_run *p = trace_add_run(t);
		p->exec_ts = 100;
		p->reap_ts = 100 + 4800000 + 100000 * i;
	}
}

static const struct wl_binary *find_bin(const struct workload *w, const char *path)
{
	for (size_t i = 0; i < w->nbins; i++)
		if (!strcmp(w->bins[i].path, path))
			return &w->bins[i];
	return NULL;
}

static const struct wl_library *find_lib(const struct workload *w, const char *path)
{
	for (size_t i = 0; i < w->nlibs; i++)
		if (!strcmp(w->libs[i].path, path))
			return &w->libs[i];
	return NULL;
}

static void test_workload(void)
{
	struct trace t;
	struct workload w;
	const double eps = 1e-6;

	follow_trace(&t);
	workload_build(&t, &w);
	CHECK(w.runs == 3 && w.plain_runs == 3);
	CHECK_NEAR(w.wall.median, 5100, eps);
	CHECK(w.wall.n == 3);
	CHECK_NEAR(w.plain_wall.median, 4900, eps);
	CHECK(w.whole.have_overhead);
	CHECK_NEAR(w.whole.overhead_us, 200, eps);
	CHECK_NEAR(w.cpu_user.median, 1010, eps);
	CHECK_NEAR(w.cpu_sys.median, 500, eps);
	CHECK_NEAR(w.cpu.median, 1510, eps);
	CHECK_NEAR(w.procs.median, 5, eps);
	CHECK_NEAR(w.execs.median, 4, eps);
	CHECK(w.nex == 12);
	/* Loader per recorded exec: 300 + 3 x 1 + 40 + 60 (load) + 100 (relocate). */
	CHECK_NEAR(w.loader_us.median, 2 * 503, eps);
	CHECK_NEAR(w.loader_share_wall.median, 1006.0 / 5100, eps);
	CHECK_NEAR(w.loader_share_cpu.median, 1006.0 / 1510, eps);
	/* Load 103 + relocate 100 per recorded exec, without the exec phase. */
	CHECK_NEAR(w.mapping_us.median, 2 * 203, eps);
	CHECK_NEAR(w.mapping_share_wall.median, 406.0 / 5100, eps);
	CHECK(w.kind_count[TREE_EXEC_SHIM] == 6 && w.kind_count[TREE_EXEC_STATIC] == 3 &&
	      w.kind_count[TREE_EXEC_NO_SHIM] == 3);
	CHECK(w.median_run == 2); /* runs 0, 2, 4 are profiled: 5000, 5100, 5200 us */

	const struct wl_binary *prog = find_bin(&w, "/bin/prog"), *st = find_bin(&w, "/bin/static");
	CHECK(prog && st && w.nbins == 2);
	CHECK(prog == &w.bins[0]); /* the costliest startup first */
	CHECK(prog->execs == 9 && prog->analyzed == 6 && prog->dynamic);
	CHECK_NEAR(prog->execs_per_run, 3, eps);
	CHECK(prog->have_rep && prog->rep.runs == 6 && prog->rep.valid_runs == 6);
	const double phase[PH_COUNT] = {300, 103, 100, 7.5, 1000, 50};
	for (int k = 0; k < PH_COUNT; k++)
		CHECK_NEAR(prog->rep.phase[k].median, phase[k], eps);
	CHECK_NEAR(prog->loader_us_per_run, 1006, eps);
	CHECK_NEAR(prog->startup_us_per_run, 2 * 510.5, eps);
	CHECK_NEAR(prog->startup_share, 1021.0 / 5100, eps);
	CHECK_NEAR(prog->wall_us_per_run, 2 * 1560.5 + 500, eps);
	CHECK(prog->kind_count[TREE_EXEC_NO_SHIM] == 3);
	CHECK(!prog->have_static); /* no cost model in this trace */
	CHECK(!st->dynamic && st->analyzed == 0 && isnan(st->startup_us_per_run));
	CHECK_NEAR(st->wall_us_per_run, 200, eps);
	CHECK_NEAR(st->execs_per_run, 1, eps);

	/* Relocation split by relocation counts: exe 110, liba 410, libb 510 of 1030. */
	const struct wl_library *a = find_lib(&w, "/lib/liba.so.1"),
				*b = find_lib(&w, "/lib/libb.so.2");
	CHECK(a && b && w.nlibs == 2);
	CHECK(b == &w.libs[0]); /* the costliest first */
	CHECK(a->execs == 6 && b->execs == 6);
	CHECK_NEAR(a->execs_per_run, 2, eps);
	CHECK_NEAR(a->load_us, 80, eps);
	CHECK_NEAR(a->reloc_us, 2 * 100 * 410.0 / 1030, eps);
	CHECK_NEAR(a->init_us, 10, eps);
	CHECK_NEAR(a->total_us, 80 + 2 * 100 * 410.0 / 1030 + 10, eps);
	CHECK_NEAR(b->total_us, 120 + 2 * 100 * 510.0 / 1030, eps);
	CHECK_NEAR(b->share, b->total_us / 5100, eps);

	/* Every exec is there, with a reason when it has no phases. */
	size_t with_reason = 0, with_bd = 0;
	for (size_t i = 0; i < w.nex; i++) {
		with_reason += w.ex[i].reason != NULL;
		with_bd += w.ex[i].bd != NULL;
		CHECK(!w.ex[i].bd == !!w.ex[i].reason);
	}
	CHECK(with_reason == 6 && with_bd == 6);
	const struct wl_exec *x = workload_exec(&w, 2, 1);
	CHECK(x && x->proc == 1 && x->bd && !strcmp(w.bins[x->bin].path, "/bin/prog"));
	CHECK_NEAR(x->loader_us, 503, eps);
	CHECK_NEAR(x->startup_us, 510.5, eps);
	CHECK_NEAR(workload_run_us(&w, 2, t.run[2].tree->proc[1].fork_ts), 1500, eps);
	CHECK(workload_exec(&w, 2, 3) == NULL); /* the fork without exec */
	/* The top of run 2 has its records in the run: they and its start are the run's. */
	x = workload_exec(&w, 2, 0);
	CHECK(x && x->bd && x->exec == 0);
	CHECK_NEAR(x->loader_us, 503, eps);
	CHECK_NEAR(x->wall_us, 1560.5, eps);
	CHECK(w.nnotes >= 2);
	workload_free(&w);
	trace_free(&t);
}

/* Features for every object: the verdict applies, as for a lone run of the program. */
static void with_model(struct trace *t)
{
	t->model.valid = true;
	t->model.intercept_us = 20;
	t->model.coef_us[MF_RELATIVE] = 0.01;
	t->model.coef_us[MF_LOOKUPS] = 0.1;
	t->model.dynamic_fixed_us = 250;
	t->model.dynamic_fixed_lo = 240;
	t->model.dynamic_fixed_hi = 260;
	for (size_t i = 0; i < t->nobj; i++) {
		t->obj[i].have_feat = true;
		t->obj[i].feat[MF_RELATIVE] = 100.0 * (double)(i + 1);
		t->obj[i].feat[MF_LOOKUPS] = 50;
	}
}

static void test_static_estimate(void)
{
	struct trace t, lone;
	struct workload w;
	struct report rep;

	follow_trace(&t);
	with_model(&t);
	workload_build(&t, &w);
	/* The same six execs as the runs of one program. */
	fake_trace(&lone, &(struct fake_opts){.runs = 0});
	with_model(&lone);
	for (size_t i = 0; i < 6; i++) {
		struct trace_run *r = trace_add_run(&lone);
		struct tree_exec e;
		prog_exec(&e, 1000000 * (i + 1));
		r->profiled = r->shim_attached = true;
		r->exec_ts = e.ts;
		r->reap_ts = e.end_ts;
		r->ev = e.ev;
		r->nev = r->cap = e.nev;
		free(e.path);
		free(e.comm);
	}
	report_build(&lone, &rep);
	const struct wl_binary *prog = find_bin(&w, "/bin/prog");
	CHECK(rep.have_verdict && prog && prog->have_static);
	CHECK(rep.static_saved_us > 0);
	/* Three execs of it per run, the one without records too. */
	CHECK_NEAR(prog->static_saved_us_per_run, 3 * rep.static_saved_us, 1e-6);
	CHECK_NEAR(prog->static_lo_per_run, 3 * rep.static_saved_lo, 1e-6);
	CHECK_NEAR(prog->rep.phase[PH_RELOCATE].median, rep.phase[PH_RELOCATE].median, 1e-6);
	report_free(&rep);
	trace_free(&lone);
	workload_free(&w);
	trace_free(&t);
}

static bool has_note(const struct workload *w, const char *what)
{
	for (size_t i = 0; i < w->nnotes; i++)
		if (strstr(w->notes[i], what))
			return true;
	return false;
}

/* A full buffer: the shim's count and the tree's lost execs, said once; nothing dropped. */
static void test_lost(void)
{
	struct trace t;
	struct workload w;

	follow_trace(&t);
	for (size_t i = 0; i < t.nrun; i++) {
		struct run_tree *tr = t.run[i].tree;
		if (!tr)
			continue;
		tr->lost_execs = 1;
		tr->unmatched_execs = i == 0 ? 2 : 0;
		tr->proc[4].exec[0].kind = TREE_EXEC_LOST;
	}
	workload_build(&t, &w);
	CHECK(w.kind_count[TREE_EXEC_LOST] == 3 && w.lost_execs == 3);
	CHECK(w.unmatched_execs == 2 && has_note(&w, "2 execs the shim recorded matched no process"));
	CHECK(has_note(&w, "3 execs not recorded: the record buffer was full"));
	CHECK(has_note(&w, "3 execs (1.0 per run): static binary"));
	size_t lost_notes = 0;
	for (size_t i = 0; i < w.nnotes; i++)
		lost_notes += strstr(w.notes[i], "buffer was full") != NULL;
	CHECK(lost_notes == 1);
	CHECK(w.nex == 12 && find_bin(&w, "/bin/prog")->execs == 9);
	workload_free(&w);
	trace_free(&t);
}

/* The profiled runs fail, the plain ones do not: said. */
static void test_fails_profiled(void)
{
	struct trace t;
	struct workload w;

	follow_trace(&t);
	for (size_t i = 0; i < t.nrun; i++)
		if (t.run[i].profiled)
			t.run[i].wait_status = 127 << 8;
	workload_build(&t, &w);
	CHECK(has_note(&w, "the workload fails only under ldprof"));
	workload_free(&w);
	trace_free(&t);
}

/* A profiled run whose tree was lost (a cut trace file): left out, and said. */
static void test_treeless(void)
{
	struct trace t;
	struct workload w;

	follow_trace(&t);
	run_tree_free(t.run[0].tree);
	free(t.run[0].tree);
	t.run[0].tree = NULL;
	workload_build(&t, &w);
	CHECK(w.runs == 2 && w.treeless_runs == 1 && w.warmup_runs == 0);
	CHECK(has_note(&w, "1 profiled run has no process tree and is left out"));
	CHECK_NEAR(w.wall.median, 5150, 1e-6); /* runs 1 and 2: 5100 and 5200 us */
	CHECK(w.nex == 8);
	workload_free(&w);
	/* No tree at all: an empty report, no binary, no crash (ASan: no memcpy from NULL). */
	for (size_t i = 0; i < t.nrun; i++) {
		run_tree_free(t.run[i].tree);
		free(t.run[i].tree);
		t.run[i].tree = NULL;
	}
	workload_build(&t, &w);
	CHECK(w.runs == 0 && w.nbins == 0 && w.nex == 0 && w.nlibs == 0 && w.treeless_runs == 3);
	CHECK(w.median_run == SIZE_MAX);
	workload_free(&w);
	trace_free(&t);
}

/* Two paths to one file (a merged /usr) are one library. */
static void test_same_file(void)
{
	char dir[] = "/tmp/workload-test-XXXXXX", file[64], link[64];
	struct trace t;
	struct workload w;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof file, "%s/liba.so.1", dir);
	snprintf(link, sizeof link, "%s/also-liba.so.1", dir);
	CHECK((f = fopen(file, "w")) != NULL && fclose(f) == 0);
	CHECK(symlink(file, link) == 0);
	follow_trace(&t);
	free(t.obj[O_LIBA].path);
	free(t.obj[O_LIBB].path);
	t.obj[O_LIBA].path = strdup(file);
	t.obj[O_LIBB].path = strdup(link);
	workload_build(&t, &w);
	CHECK(w.nlibs == 1);
	CHECK(w.nlibs == 1 && w.libs[0].execs == 12 && !strcmp(w.libs[0].path, file));
	CHECK_NEAR(w.libs[0].total_us,
		   80 + 2 * 100 * 410.0 / 1030 + 10 + 120 + 2 * 100 * 510.0 / 1030, 1e-6);
	CHECK_NEAR(w.libs[0].execs_per_run, 4, 1e-9);
	workload_free(&w);
	trace_free(&t);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	test_workload();
	test_static_estimate();
	test_same_file();
	test_lost();
	test_treeless();
	test_fails_profiled();
	return unit_done("workload");
}
