/*
 * Unit tests for building a run's process tree from task records
 * (run/follow-tree.h): forks, threads, exec chains, binaries from the first
 * mapping, orphans matched to their reaps by (pid, time) when pids repeat,
 * a FORK without its EXIT counted as lost, the clock mapping, and the
 * live set a timeout kills (from several rings, out of time order).
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "run/follow-join.h"
#include "run/follow-tree.h"
#include "unit.h"

static struct follow_rec R(uint32_t type, uint64_t ns, int pid, int ppid, int tid, const char *s)
{
	return (struct follow_rec){.ns = ns, .type = type, .pid = pid, .ppid = ppid, .tid = tid,
				   .str = s ? xstrdup(s) : NULL};
}

static void free_recs(struct follow_rec *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].str);
}

static void test_clock(void)
{
	struct follow_clock c = {.tsc0 = 1000000, .ns0 = 5000, .ticks_per_ns = 2.5};

	CHECK(follow_ns_to_ticks(&c, 5000) == 1000000);
	CHECK(follow_ns_to_ticks(&c, 6000) == 1002500);
	CHECK(follow_ns_to_ticks(&c, 4000) == 997500); /* before the pair: still linear */
}

static void test_build(void)
{
	/* 1 ns = 1 tick from 0, so ticks read as the records' ns. */
	struct follow_clock c = {.tsc0 = 0, .ns0 = 0, .ticks_per_ns = 1.0};
	struct follow_rec r[] = {
		R(PERF_RECORD_COMM, 100, 10, 0, 10, "top"),
		R(PERF_RECORD_MMAP2, 110, 10, 0, 10, "/nonexistent/top"),
		R(PERF_RECORD_MMAP2, 120, 10, 0, 10, "/lib/libc.so.6"),
		R(PERF_RECORD_FORK, 200, 10, 10, 11, NULL), /* a thread of the top */
		R(PERF_RECORD_FORK, 300, 20, 10, 20, NULL), /* child 20 */
		R(PERF_RECORD_COMM, 400, 20, 0, 20, "a"),
		R(PERF_RECORD_MMAP2, 410, 20, 0, 20, "/nonexistent/a"),
		R(PERF_RECORD_COMM, 500, 20, 0, 20, "b"), /* exec chain a -> b */
		R(PERF_RECORD_MMAP2, 510, 20, 0, 20, "/nonexistent/b"),
		R(PERF_RECORD_FORK, 550, 30, 20, 30, NULL), /* grandchild 30 */
		R(PERF_RECORD_EXIT, 600, 20, 10, 20, NULL),
		R(PERF_RECORD_EXIT, 650, 10, 10, 11, NULL), /* the thread ends: not the top */
		R(PERF_RECORD_EXIT, 700, 30, 20, 30, NULL),
		R(PERF_RECORD_FORK, 800, 30, 10, 30, NULL), /* pid 30 again, forked by the top */
		R(PERF_RECORD_COMM, 850, 30, 0, 30, "s"), /* exec'd, never mapped, prompt EXIT */
		R(PERF_RECORD_EXIT, 860, 30, 10, 30, NULL),
		R(PERF_RECORD_FORK, 870, 40, 10, 40, NULL), /* its EXIT never came */
		R(PERF_RECORD_EXIT, 900, 10, 1, 10, NULL),
	};
	size_t n = sizeof r / sizeof *r;
	/* The first pid 30 was an orphan reaped by ldprof at 750. */
	struct follow_reap reaps[] = {{30, 3 << 8, 750}, {10, 0, 950}};
	struct run_tree *t;

	/* Shuffle two records: the builder sorts by time. */
	struct follow_rec tmp = r[5];
	r[5] = r[6];
	r[6] = tmp;
	t = follow_tree_build(r, n, reaps, 2, 10, 50, &c);
	CHECK(t->nproc == 5);
	CHECK(t->proc[0].pid == 10 && t->proc[0].parent == TREE_NO_PROC && t->proc[0].fork_ts == 50);
	CHECK(t->proc[0].exit_ts == 900 && t->proc[0].have_status && !t->proc[0].orphan);
	CHECK(t->proc[0].nexec == 1 && !strcmp(t->proc[0].exec[0].path, "/nonexistent/top"));
	CHECK(t->proc[0].exec[0].ts == 100 && t->proc[0].exec[0].end_ts == 900);
	const struct tree_proc *a = &t->proc[1];
	CHECK(a->pid == 20 && a->parent == 0 && a->fork_ts == 300 && a->exit_ts == 600);
	CHECK(a->nexec == 2 && !strcmp(a->exec[0].path, "/nonexistent/a") && !strcmp(a->exec[1].path, "/nonexistent/b"));
	CHECK(a->exec[0].end_ts == 500 && a->exec[1].ts == 500 && a->exec[1].end_ts == 600);
	CHECK(!strcmp(a->exec[1].comm, "b") && !a->have_status);
	const struct tree_proc *g = &t->proc[2], *s = &t->proc[3];
	CHECK(g->pid == 30 && g->parent == 1 && g->nexec == 0 && g->exit_ts == 700);
	CHECK(g->orphan && g->have_status && g->wait_status == 3 << 8);
	CHECK(s->pid == 30 && s->parent == 0 && !s->orphan && !s->have_status);
	CHECK(s->nexec == 1 && !s->exec[0].path && s->exec[0].kind == TREE_EXEC_SETUID);
	CHECK(t->proc[4].pid == 40 && !t->proc[4].exit_ts);
	CHECK(t->lost_events == 1); /* 40's EXIT */
	CHECK(t->proc[0].exec[0].kind == TREE_EXEC_UNKNOWN); /* /nonexistent/top cannot be read */

	pid_t *live;
	size_t nlive = follow_tree_live(r, n, 10, &live);
	CHECK(nlive == 1 && live[0] == 40);
	free(live);
	nlive = follow_tree_live(r, 5, 10, &live); /* early on: the top and 20 */
	CHECK(nlive == 2 && (live[0] == 10 || live[1] == 10) && (live[0] == 20 || live[1] == 20));
	free(live);
	run_tree_free(t);
	free(t);
	free_recs(r, n);
}

/* Rings drained in turn: a child's EXIT (one CPU's ring) read before its FORK (another's). */
static void test_live_rings(void)
{
	struct follow_rec r[] = {
		R(PERF_RECORD_EXIT, 800, 50, 10, 50, NULL),  /* ring 0 */
		R(PERF_RECORD_FORK, 900, 60, 10, 60, NULL),  /* ring 0: 60 again, reused */
		R(PERF_RECORD_FORK, 700, 50, 10, 50, NULL),  /* ring 1 */
		R(PERF_RECORD_FORK, 300, 60, 10, 60, NULL),  /* ring 1 */
		R(PERF_RECORD_EXIT, 400, 60, 10, 60, NULL),  /* ring 1 */
		R(PERF_RECORD_FORK, 500, 70, 10, 71, NULL),  /* a thread: not a process */
	};
	pid_t *live;
	size_t n = follow_tree_live(r, sizeof r / sizeof *r, 10, &live);

	CHECK(n == 2 && (live[0] == 10 || live[1] == 10) && (live[0] == 60 || live[1] == 60));
	free(live);
	free_recs(r, sizeof r / sizeof *r);
}

static void test_kinds(void)
{
	CHECK(follow_binary_kind("/nonexistent/binary") == TREE_EXEC_UNKNOWN);
	CHECK(follow_binary_kind(NULL) == TREE_EXEC_UNKNOWN);
	/* /proc/self/exe is this test: dynamic. */
	CHECK(follow_binary_kind("/proc/self/exe") == TREE_EXEC_NO_SHIM);
	CHECK(!strcmp(tree_exec_kind_name(TREE_EXEC_STATIC), "static"));
	CHECK(tree_exec_kind_name((enum tree_exec_kind)99) == NULL);
}

static struct tree_exec X(uint64_t ts, uint64_t end)
{
	return (struct tree_exec){.ts = ts, .end_ts = end, .comm = xstrdup("x"),
				  .kind = TREE_EXEC_NO_SHIM};
}

static struct shm_proc P(int pid, uint64_t version_ts, uint32_t flags)
{
	struct shm_proc p = {.pid = pid, .version_ts = version_ts, .flags = flags, .nev = 1,
			     .argc = 1, .have_cpu = true, .utime_us = (double)version_ts};
	p.ev = xcalloc(1, sizeof *p.ev);
	p.argv = xcalloc(2, sizeof *p.argv);
	p.argv[0] = xstrdup("prog");
	return p;
}

/* pid 20 twice (reused), an exec chain, a fork, one unmatched image, a loss. */
static void test_join(void)
{
	struct run_tree t = {0};
	struct tree_proc *p;

	t.nproc = 3;
	t.proc = xcalloc(3, sizeof *t.proc);
	p = t.proc;
	p[0] = (struct tree_proc){.pid = 10, .parent = TREE_NO_PROC, .fork_ts = 0, .exit_ts = 1000};
	p[1] = (struct tree_proc){.pid = 20, .parent = 0, .fork_ts = 100, .exit_ts = 400};
	p[2] = (struct tree_proc){.pid = 20, .parent = 0, .fork_ts = 500, .exit_ts = 900};
	p[0].nexec = 1;
	p[0].exec = xcalloc(1, sizeof(struct tree_exec));
	p[0].exec[0] = X(10, 1000);
	p[1].nexec = 2;
	p[1].exec = xcalloc(2, sizeof(struct tree_exec));
	p[1].exec[0] = X(150, 250); /* a -> b in one process */
	p[1].exec[1] = X(250, 400);
	p[2].nexec = 2;
	p[2].exec = xcalloc(2, sizeof(struct tree_exec));
	p[2].exec[0] = X(550, 700);
	p[2].exec[1] = X(700, 900); /* no records: lost */
	struct shm_proc s[] = {
		P(10, 20, 0),
		P(20, 160, 0),		      /* the first 20's first image */
		P(20, 260, 0),		      /* its second */
		P(20, 170, SHM_PROC_FORKED),  /* a fork: no exec of its own */
		P(20, 560, TRACE_SHM_CORRUPT), /* the second 20: corrupt, kept apart */
		P(30, 600, 0),		      /* perf never saw pid 30 */
		P(20, 265, 0),		      /* a second record set for one image: dropped */
	};
	size_t n = sizeof s / sizeof *s;

	CHECK(follow_join(&t, s, n, 1) == 4);
	CHECK(p[0].exec[0].kind == TREE_EXEC_SHIM && p[0].exec[0].utime_us == 20);
	CHECK(p[1].exec[0].kind == TREE_EXEC_SHIM && p[1].exec[0].utime_us == 160);
	CHECK(p[1].exec[1].kind == TREE_EXEC_SHIM && p[1].exec[1].utime_us == 260);
	CHECK(p[1].exec[1].argc == 1 && !strcmp(p[1].exec[1].argv[0], "prog"));
	CHECK(p[2].exec[0].kind == TREE_EXEC_SHIM && (p[2].exec[0].shm_flags & TRACE_SHM_CORRUPT));
	CHECK(p[2].exec[1].kind == TREE_EXEC_LOST && t.lost_execs == 1);
	CHECK(t.unmatched_execs == 2 && !t.lost_events); /* pid 30's, and the second set's */
	/* What was not taken stays for shm_procs_free; what was taken is gone from it. */
	CHECK(!s[1].ev && !s[1].argv && s[3].ev && s[5].ev && s[6].ev);
	for (size_t i = 0; i < n; i++) {
		free(s[i].ev);
		for (size_t a = 0; s[i].argv && a < s[i].argc; a++)
			free(s[i].argv[a]);
		free(s[i].argv);
	}
	run_tree_free(&t);
}

/* An image that ends with records of these types (a = the status). */
static struct shm_proc PE(int pid, uint64_t ts, uint32_t flags, const uint16_t *types,
			  const uint64_t *a, size_t n)
{
	struct shm_proc p = P(pid, ts, flags);

	p.ev = xrealloc(p.ev, n * sizeof *p.ev);
	p.nev = n;
	for (size_t i = 0; i < n; i++)
		p.ev[i] = (struct trace_event){.ts = ts + 10 + i, .type = types[i], .a = a[i]};
	return p;
}

/*
 * Exit statuses: ldprof's reap wins; else the last image's exit call,
 * else main's return; a process whose image did neither stays unknown.
 * A fork that never executed gets its records' exit call and CPU.
 */
static void test_join_status(void)
{
	static const uint16_t ret_then_exit[] = {LDPROF_REC_MAIN_RETURN, LDPROF_REC_EXIT_CALL};
	static const uint16_t ret_only[] = {LDPROF_REC_MAIN_RETURN};
	static const uint16_t exit_only[] = {LDPROF_REC_EXIT_CALL};
	static const uint16_t neither[] = {LDPROF_REC_MAIN_ENTER};
	static const uint64_t v1[] = {1, 9}, v2[] = {2}, v3[] = {0x103}, v0[] = {0};
	struct run_tree t = {0};
	struct tree_proc *p;

	t.nproc = 6;
	t.proc = p = xcalloc(t.nproc, sizeof *t.proc);
	for (size_t i = 0; i < t.nproc; i++) {
		p[i] = (struct tree_proc){.pid = 10 + (int)i, .parent = 0, .fork_ts = 100 * i,
					  .exit_ts = 100 * i + 90};
		if (i == 4)
			continue; /* a fork that never executed */
		p[i].nexec = 1;
		p[i].exec = xcalloc(1, sizeof(struct tree_exec));
		p[i].exec[0] = X(100 * i + 5, 100 * i + 90);
	}
	p[0].parent = TREE_NO_PROC;
	p[0].have_status = true; /* reaped by ldprof: 7 */
	p[0].wait_status = 7 << 8;
	struct shm_proc s[] = {
		PE(10, 6, 0, exit_only, v0, 1),	       /* says 0; the reap's 7 stays */
		PE(11, 106, 0, ret_then_exit, v1, 2),  /* main returned 1, then _exit(9) */
		PE(12, 206, 0, ret_only, v2, 1),       /* main returned 2 */
		PE(13, 306, 0, neither, v0, 1),	       /* killed, say: unknown */
		PE(14, 6, SHM_PROC_FORKED, exit_only, v3, 1), /* the fork: exit(0x103) */
		PE(15, 506, 0, exit_only, v0, 1),
	};
	s[4].forked_ts = 420;
	s[4].utime_us = 12;
	size_t n = sizeof s / sizeof *s;

	CHECK(follow_join(&t, s, n, 0) == 5);
	CHECK(p[0].have_status && !p[0].status_from_shim && WEXITSTATUS(p[0].wait_status) == 7);
	CHECK(p[1].have_status && p[1].status_from_shim && WEXITSTATUS(p[1].wait_status) == 9);
	CHECK(p[2].have_status && p[2].status_from_shim && WEXITSTATUS(p[2].wait_status) == 2);
	CHECK(!p[3].have_status && !p[3].status_from_shim);
	CHECK(p[4].fork_recorded && p[4].fork_records == 1 && p[4].exit_call_ts == 16);
	CHECK(p[4].have_status && p[4].status_from_shim && WIFEXITED(p[4].wait_status) &&
	      WEXITSTATUS(p[4].wait_status) == 3);
	CHECK(p[4].have_cpu && p[4].utime_us == 12);
	CHECK(p[5].have_status && WEXITSTATUS(p[5].wait_status) == 0);
	/* A fork seen outside any process's life joins nothing. */
	p[4].fork_recorded = false;
	s[4].forked_ts = 395;
	CHECK(follow_join(&t, &s[4], 1, 0) == 0 && !p[4].fork_recorded);
	for (size_t i = 0; i < n; i++) {
		free(s[i].ev);
		for (size_t a = 0; s[i].argv && a < s[i].argc; a++)
			free(s[i].argv[a]);
		free(s[i].argv);
	}
	run_tree_free(&t);
}

int main(void)
{
	test_clock();
	test_build();
	test_live_rings();
	test_kinds();
	test_join();
	test_join_status();
	return unit_done("follow_test");
}
