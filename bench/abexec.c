/*
 * abexec: time the exec of several commands side by side, interleaved
 * round by round, so that drift on a shared machine hits every variant
 * alike. Each run is a child sharing our memory (run/spawn.h), a
 * timestamp, execve, wait4, a timestamp, as in ldprof itself.
 *
 *   abexec [-n RUNS] [-w WARMUP] 'LABEL|ENV=V ...|COMMAND ARGS...' ...
 *
 * ENV entries are added to the environment; LDPROF_SHM=auto sets up a
 * record buffer the way ldprof does, so the audit module records for real;
 * LDPROF_SHM=follow sets up the one of `ldprof -f` (chunks, reopened by
 * path), so that the shim's follow-mode cost can be set beside its own.
 * Output: per variant the median, its 95% CI, and the difference and ratio
 * to the first variant with a paired bootstrap CI, plus page faults.
 * -r FILE also writes every run: round, label, microseconds, page faults
 * and involuntary context switches (wait4's ru_nivcsw: how often the
 * scheduler preempted the run), one line each.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/shm.h"
#include "run/spawn.h"
#include "base/stats.h"
#include "base/tsc.h"

extern char **environ;

struct variant {
	char *label;
	char **argv;
	char **env;
	struct shm_buf *shm; /* the buffer its shim records into, or NULL */
	char **shm_env;	     /* follow: its LDPROF_SHM entry, renamed at each reset */
	double *us;
	long *minflt;
	long *nivcsw;
};

static char **split(char *s, size_t *n)
{
	char **v = xcalloc(strlen(s) / 2 + 2, sizeof *v);
	*n = 0;
	for (char *t = strtok(s, " "); t; t = strtok(NULL, " "))
		v[(*n)++] = t;
	return v;
}

/* The follow-mode buffer, made for the first variant that asks for it. */
static struct shm_buf *follow_buffer(void)
{
	static struct shm_buf fshm;
	static bool made;
	struct errbuf err;

	if (!made && shm_create_follow(&fshm, 0, 0, &err)) {
		fprintf(stderr, "abexec: %s\n", err.msg);
		exit(1);
	}
	made = true;
	return &fshm;
}

static void parse_variant(struct variant *v, char *spec, struct shm_buf *shm)
{
	char *label = strtok(spec, "|"), *envs = strtok(NULL, "|"), *cmd = strtok(NULL, "|");
	size_t ne, nc, k = 0, base = 0;

	if (!label || !envs || !cmd) {
		fprintf(stderr, "abexec: bad spec (want 'LABEL|ENV=V ...|COMMAND ...')\n");
		exit(2);
	}
	v->label = label;
	v->argv = split(cmd, &nc);
	char **e = split(envs, &ne);
	while (environ[base])
		base++;
	v->env = xcalloc(base + ne + 2, sizeof *v->env);
	for (size_t i = 0; i < base; i++)
		v->env[k++] = environ[i];
	for (size_t i = 0; i < ne; i++) {
		if (!strcmp(e[i], "-"))
			continue;
		if (!strcmp(e[i], "LDPROF_SHM=auto")) {
			v->shm = shm;
			v->env[k++] = shm_env(shm);
		} else if (!strcmp(e[i], "LDPROF_SHM=follow")) {
			v->shm = follow_buffer();
			v->shm_env = &v->env[k];
			v->env[k++] = xstrdup("LDPROF_SHM=");
		} else {
			v->env[k++] = e[i];
		}
	}
}

static struct spawner spawner;

static double run_once(struct variant *v, struct shm_buf *run_shm, int devnull, long *minflt,
		       long *nivcsw)
{
	struct shm_buf *shm = v->shm ? v->shm : run_shm;
	struct rusage ru;
	uint64_t t0, t1;
	struct errbuf err;
	int st;

	if (shm_reset(shm, &err)) {
		fprintf(stderr, "abexec: %s\n", err.msg);
		exit(1);
	}
	if (v->shm_env) { /* a segment has a new id after each reset */
		free(*v->shm_env);
		*v->shm_env = shm_env(shm);
	}
	/* Started as ldprof starts a run (spawn.h), so that both time the same exec. */
	struct spawn_args a = {
		.path = v->argv[0],
		.argv = v->argv,
		.envp = v->env,
		.tty_fd = -1,
		.stdin_fd = devnull,
		.stdout_fd = devnull,
		.stderr_fd = devnull,
		/* The run buffer's fd is inherited; a follow buffer is attached by itself. */
		.inherit_fd = v->shm && !v->shm->chunk_size ? shm->fd : -1,
		.gate_fd = -1,
		.gate_wfd = -1,
		.hdr = shm->hdr,
	};
	pid_t pid = spawn_start(&spawner, &a, &err);
	if (pid < 0) {
		fprintf(stderr, "abexec: %s\n", err.msg);
		exit(1);
	}
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	t1 = tsc_now();
	t0 = shm->hdr->exec_ts;
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 127) {
		fprintf(stderr, "abexec: %s: %s failed\n", v->label, v->argv[0]);
		exit(1);
	}
	*minflt = ru.ru_minflt;
	*nivcsw = ru.ru_nivcsw;
	return (double)(t1 - t0);
}

static double median_of(const double *x, size_t n)
{
	double *c = xmalloc(n * sizeof *c);
	struct summary s;

	memcpy(c, x, n * sizeof *c);
	summarize(c, n, &s);
	free(c);
	return s.median;
}

/* Paired bootstrap over rounds of median(b) - median(a). */
static void diff_ci(const double *a, const double *b, size_t n, double *lo, double *hi)
{
	enum { ROUNDS = 1000 };
	double *ra = xmalloc(n * sizeof *ra), *rb = xmalloc(n * sizeof *rb), d[ROUNDS];
	uint64_t seed = 88172645463325252ull;

	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < n; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			ra[i] = a[seed % n];
			rb[i] = b[seed % n];
		}
		d[r] = median_of(rb, n) - median_of(ra, n);
	}
	struct summary s;
	summarize(d, ROUNDS, &s); /* sorts d */
	*lo = d[(int)(0.025 * ROUNDS)];
	*hi = d[(int)(0.975 * ROUNDS)];
	free(ra);
	free(rb);
}

/* Every run, for a look at the distribution (-r). */
static int write_raw(const char *path, const struct variant *v, size_t nv, size_t runs)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "abexec: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "round label us minflt nivcsw\n");
	for (size_t r = 0; r < runs; r++)
		for (size_t i = 0; i < nv; i++)
			fprintf(f, "%zu %s %.1f %ld %ld\n", r, v[i].label, v[i].us[r], v[i].minflt[r],
				v[i].nivcsw[r]);
	if (fclose(f)) {
		fprintf(stderr, "abexec: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long runs = 500, warmup = 10;
	struct shm_buf shm;
	struct errbuf err;
	struct tsc_cal cal;
	int opt, devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	const char *raw_path = NULL;

	while ((opt = getopt(argc, argv, "n:w:r:")) != -1) {
		if (opt == 'r')
			raw_path = optarg;
		else if (opt == 'n')
			runs = strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			warmup = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	size_t nv = (size_t)(argc - optind);
	if (spawn_init(&spawner, &err)) {
		fprintf(stderr, "abexec: %s\n", err.msg);
		return 1;
	}
	if (!nv || !runs || shm_create(&shm, LDPROF_SHM_RUN_BYTES, &err)) {
		fprintf(stderr,
			"usage: abexec [-n RUNS] [-w WARMUP] [-r FILE] 'LABEL|ENV ...|CMD ...'...\n");
		return 2;
	}
	struct variant *v = xcalloc(nv, sizeof *v);
	for (size_t i = 0; i < nv; i++) {
		parse_variant(&v[i], argv[optind + i], &shm);
		v[i].us = xcalloc(runs, sizeof(double));
		v[i].minflt = xcalloc(runs, sizeof(long));
		v[i].nivcsw = xcalloc(runs, sizeof(long));
	}
	tsc_cal_begin(&cal);
	for (unsigned long r = 0; r < warmup + runs; r++)
		for (size_t i = 0; i < nv; i++) {
			long f, cs;
			double t = run_once(&v[i], &shm, devnull, &f, &cs);
			if (r >= warmup) {
				v[i].us[r - warmup] = t;
				v[i].minflt[r - warmup] = f;
				v[i].nivcsw[r - warmup] = cs;
			}
		}
	double hz = tsc_cal_end(&cal);
	printf("%-28s %10s %21s %24s %7s %7s %7s %7s %7s\n", "variant", "median", "95% CI",
	       "vs first (95% CI)", "ratio", "minflt", "mean", "vs 1st", "mean");
	double base = 0;
	for (size_t i = 0; i < nv; i++) {
		struct summary s, f;
		double *c = xmalloc(runs * sizeof *c), *fl = xmalloc(runs * sizeof *fl);
		for (size_t k = 0; k < runs; k++) {
			c[k] = v[i].us[k] = v[i].us[k] * 1e6 / hz;
			fl[k] = (double)v[i].minflt[k];
		}
		summarize(c, runs, &s);
		summarize(fl, runs, &f);
		if (i == 0)
			base = s.median;
		char ci[64], d[64] = "";
		snprintf(ci, sizeof ci, "[%.1f, %.1f]", s.ci_lo, s.ci_hi);
		if (i > 0) {
			double lo, hi;
			diff_ci(v[0].us, v[i].us, runs, &lo, &hi);
			snprintf(d, sizeof d, "%+.1f [%+.1f, %+.1f]", s.median - base, lo, hi);
		}
		/* Faults, paired by round: the median of this run's less the first's. */
		for (size_t k = 0; k < runs; k++)
			fl[k] = (double)(v[i].minflt[k] - v[0].minflt[k]);
		struct summary df;
		summarize(fl, runs, &df);
		printf("%-28s %7.1f us %21s %24s %7.3f %7.1f %7.2f %+7.1f %+7.2f\n", v[i].label,
		       s.median, ci, d, s.median / base, f.median, f.mean, df.median, df.mean);
		free(c);
		free(fl);
	}
	printf("(%lu interleaved rounds after %lu warmup; times from the last timestamp before "
	       "execve to wait4's return)\n",
	       runs, warmup);
	if (raw_path && write_raw(raw_path, v, nv, runs))
		return 1;
	/* Now: a sanitizer's leak check at exit would end us before stdio flushes. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "abexec: stdout: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
