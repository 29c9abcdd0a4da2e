#include "model/minimal-pair.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/doomed-dir.h"
#include "base/exit.h"
#include "base/interrupt.h"
#include "base/pagecache.h"
#include "model/compare.h"
#include "model/sched-state.h"

const char *calib_cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

/* sh -c CMD, waited for; its status in *st. -errno when it could not start. */
static int spawn_sh(const char *cmd, int *st)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	pid_t pid;
	int r = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);

	if (r)
		return -r;
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * Not by system(): it ignores SIGINT in its caller until the command ends,
 * so a `kill -INT` sent to ldprof alone while cc ran was lost and the runs
 * went on. Spawned inside the caller's interrupt scope, ldprof's handler
 * records it and the build ends as interrupted.
 */
int calib_sh(const char *cmd, struct errbuf *err)
{
	int st, r = spawn_sh(cmd, &st);

	if (r)
		return set_err(err, -r, "sh: %s", strerror(-r));
	if (interrupt_requested())
		return set_err(err, EINTR, "interrupted");
	/* sh dies of the SIGINT, or exits 128 + SIGINT when cc did. */
	if ((WIFSIGNALED(st) && WTERMSIG(st) == SIGINT) ||
	    (WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGINT))
		return set_err(err, EINTR, "interrupted");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return set_err(err, ECHILD, "calibration build failed: %s", cmd);
	return 0;
}

int calib_run_timed(const char *dir, const char *prog, const char *arg, double *us,
		    struct errbuf *err)
{
	char *path = xasprintf("%s/%s", dir, prog), *qp = sh_quote(path);
	char *cmd = xasprintf("%s %s", qp, arg);
	FILE *p = popen(cmd, "r");
	int r = 0, st;

	if (!p) {
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (fscanf(p, "%lf", us) != 1 || !(*us > 0))
		r = set_err(err, EIO, "%s: no time in its output", path);
	st = pclose(p);
	if (!r && st)
		r = set_err(err, ECHILD, "%s: failed (status %d)", path, st);
out:
	free(cmd);
	free(qp);
	free(path);
	return r;
}

/*
 * One program built dynamic and static: NAME.c holding main's body, then
 * NAME-dynamic and NAME-static. volatile keeps the compiler from dropping
 * an allocation that nothing reads.
 */
static int build_pair(const char *dir, const char *name, const char *body, struct errbuf *err)
{
	char *q = sh_quote(dir);
	char *cmd =
		xasprintf("cd %s && printf '#include <stdlib.h>\\nint main(void){%s}\\n' > "
			  "%s.c && %s -O1 -o %s-dynamic %s.c && %s -O1 -static -o %s-static %s.c",
			  q, body, name, calib_cc(), name, name, calib_cc(), name, name);
	int r = calib_sh(cmd, err);

	free(cmd);
	free(q);
	return r;
}

int minimal_pair_build(const char *dir, struct errbuf *err)
{
	return build_pair(dir, "min", "void *volatile p = malloc(1); free(p); return 0;", err);
}

int minimal_pair_build_plain(const char *dir, struct errbuf *err)
{
	return build_pair(dir, "plain", "return 0;", err);
}

/* The most pairs measured in one set of rounds: the allocating one and the plain one. */
#define MAX_PAIRS 2

static void pair_argv(const char *dir, const char *name, char *argv[4])
{
	argv[0] = xasprintf("%s/%s-static", dir, name);
	argv[2] = xasprintf("%s/%s-dynamic", dir, name);
	argv[1] = argv[3] = NULL;
}

void minimal_pair_argv(const char *dir, char *argv[4])
{
	pair_argv(dir, "min", argv);
}

void minimal_pair_cost_of(const struct trace *st, const struct trace *dyn,
			  struct minimal_pair_cost *c)
{
	struct compare cmp;

	compare_totals(st, dyn, &cmp);
	*c = (struct minimal_pair_cost){cmp.diff.median, cmp.diff.lo, cmp.diff.hi,
					cmp.plain[0].median, cmp.pairs};
	compare_free(&cmp);
}

/*
 * The pairs named in names (each NAME-static and NAME-dynamic in dir), all
 * interleaved, runs rounds; each pair's cost into costs. An exit status.
 */
static int measure_pairs(const struct profile_opts *o, const char *dir, unsigned runs,
			 const char *const *names, size_t npairs, struct minimal_pair_cost *costs)
{
	char *argv[2 * 2 * MAX_PAIRS];
	struct profile_cmd cmds[2 * MAX_PAIRS];
	struct profile_opts po = *o;
	struct trace t[2 * MAX_PAIRS];
	int r;

	for (size_t i = 0; i < npairs; i++) {
		pair_argv(dir, names[i], argv + 4 * i);
		cmds[2 * i] = (struct profile_cmd){1, &argv[4 * i]};
		cmds[2 * i + 1] = (struct profile_cmd){1, &argv[4 * i + 2]};
	}
	po.plan.runs = runs;
	po.follow = po.sample = po.sample_required = po.symbind = false;
	memset(t, 0, sizeof t);
	r = profile_programs(&po, 2 * npairs, cmds, t, true);
	for (size_t i = 0; i < npairs; i++) {
		if (!r)
			minimal_pair_cost_of(&t[2 * i], &t[2 * i + 1], &costs[i]);
		trace_free(&t[2 * i]);
		trace_free(&t[2 * i + 1]);
		free(argv[4 * i]);
		free(argv[4 * i + 2]);
	}
	return r;
}

int minimal_pair_measure(const struct profile_opts *o, const char *dir, unsigned runs,
			 struct minimal_pair_cost *c)
{
	static const char *const names[] = {"min"};

	return measure_pairs(o, dir, runs, names, 1, c);
}

int minimal_pairs_measure(const struct profile_opts *o, const char *dir, unsigned runs,
			  struct minimal_pair_cost *c, double *malloc_us)
{
	static const char *const names[MAX_PAIRS] = {"min", "plain"};
	struct minimal_pair_cost costs[MAX_PAIRS];
	int r = measure_pairs(o, dir, runs, names, MAX_PAIRS, costs);

	if (!r) {
		*c = costs[0];
		*malloc_us = fmax(0, costs[0].us - costs[1].us);
	}
	return r;
}

int minimal_pair_make(char **dir, struct errbuf *err)
{
	const char *tmpdir = getenv("TMPDIR");
	char *d = xasprintf("%s/ldprof-fixed.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int r;

	if (!mkdtemp(d)) {
		r = set_err(err, errno, "%s: %s", d, strerror(errno));
		free(d);
		return r;
	}
	doomed_dir_set(d); /* a signal that ends ldprof removes it (base/doomed-dir.h) */
	/* Settled as calibrate's are: a fresh min-static ran 57 to 80 us faster. */
	if ((r = minimal_pair_build(d, err)) || (r = page_cache_settle_dir(d, err))) {
		minimal_pair_remove(d);
		return r;
	}
	*dir = d;
	return 0;
}

/*
 * Every file in it: the fork, NSS and unwind programs are built beside
 * the pair (model/model-run.c), and a removal of the pair's files alone
 * left their directory behind on every run that priced one of them.
 */
void minimal_pair_remove(char *dir)
{
	doomed_dir_remove(dir);
	free(dir);
}

bool calm_pair_difference(const struct trace *t, struct interval *d)
{
	struct sched_state ss[2];
	struct compare c;
	bool busy, ok;

	sched_state_build(&t[0], false, &ss[0]);
	sched_state_build(&t[1], false, &ss[1]);
	busy = sched_state_pct(&ss[0]) >= SCHED_BUSY_PCT ||
	       sched_state_pct(&ss[1]) >= SCHED_BUSY_PCT;
	if (!busy) {
		compare_totals(&t[0], &t[1], &c);
		*d = c.diff;
		compare_free(&c);
		return true;
	}
	const struct summary *a = &ss[0].total_other, *b = &ss[1].total_other;
	ok = a->n >= CALM_PAIR_MIN && b->n >= CALM_PAIR_MIN;
	d->median = b->median - a->median;
	/* Unpaired: the CI of a difference of two medians, at its widest. */
	d->lo = b->ci_lo - a->ci_hi;
	d->hi = b->ci_hi - a->ci_lo;
	return ok;
}
