#include "run/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "run/follow-join.h"
#include "run/launch-wait.h"
#include "base/tsc.h"

extern char **environ;

#define SHM_BYTES LDPROF_SHM_RUN_BYTES

#ifndef LDPROF_PKGLIBDIR
#define LDPROF_PKGLIBDIR "/usr/local/lib/ldprof"
#endif

static bool usable_dir(const char *dir, char **audit, char **preload)
{
	char *a = xasprintf("%s/ldprof-audit.so", dir), *p = xasprintf("%s/ldprof-preload.so", dir);

	if (!access(a, R_OK) && !access(p, R_OK)) {
		*audit = a;
		*preload = p;
		return true;
	}
	free(a);
	free(p);
	return false;
}

int find_shim(char **audit, char **preload, struct errbuf *err)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	const char *env = getenv("LDPROF_SHIM_DIR");
	ssize_t n;

	if (env && *env) {
		if (usable_dir(env, audit, preload))
			goto check;
		return set_err(err, ENOENT, "LDPROF_SHIM_DIR=%s: no ldprof-audit.so there", env);
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(dir, sizeof dir, "%s/preload", exe); /* the build tree */
		if (usable_dir(dir, audit, preload))
			goto check;
		snprintf(dir, sizeof dir, "%s/../preload", exe); /* build-asan/ldprof */
		if (usable_dir(dir, audit, preload))
			goto check;
		snprintf(dir, sizeof dir, "%s/../lib/ldprof", exe); /* an install */
		if (usable_dir(dir, audit, preload))
			goto check;
	}
	if (usable_dir(LDPROF_PKGLIBDIR, audit, preload))
		goto check;
	return set_err(err, ENOENT,
		       "cannot find ldprof-audit.so: looked next to the ldprof binary, in "
		       "../lib/ldprof and in %s (set LDPROF_SHIM_DIR)",
		       LDPROF_PKGLIBDIR);
check:
	/* LD_AUDIT splits on ':', LD_PRELOAD on ':' and blanks. */
	if (strpbrk(*audit, ": \t\n") || strpbrk(*preload, ": \t\n"))
		return set_err(err, EINVAL,
			       "%s: the shim's path holds ':' or a blank, which "
			       "LD_AUDIT and LD_PRELOAD cannot express",
			       *audit);
	return 0;
}

/* ldprof-audit-symbind.so sits next to ldprof-audit.so. */
static int use_symbind_module(char **audit, struct errbuf *err)
{
	char *dir = xstrdup(*audit);
	char *path = xasprintf("%s/ldprof-audit-symbind.so", dirname(dir));

	free(dir);
	if (access(path, R_OK)) {
		int r = set_err(err, errno, "%s: %s", path, strerror(errno));
		free(path);
		return r;
	}
	free(*audit);
	*audit = path;
	return 0;
}

static bool is_ours(const char *e)
{
	return !strncmp(e, "LD_AUDIT=", 9) || !strncmp(e, "LD_PRELOAD=", 11) ||
	       !strncmp(e, LDPROF_SHM_ENV "=", sizeof LDPROF_SHM_ENV);
}

/* "NAME=ours" or "NAME=ours:theirs": the user's entries keep working. */
static char *prepend(const char *name, const char *ours)
{
	const char *theirs = getenv(name);

	if (!ours)
		return theirs ? xasprintf("%s=%s", name, theirs) : NULL;
	return theirs && *theirs ? xasprintf("%s=%s:%s", name, ours, theirs)
				 : xasprintf("%s=%s", name, ours);
}

/*
 * environ plus our variables; preload is NULL unless --preload. Follow
 * mode names where every process attaches the buffer: the fd itself
 * reaches none of them (shm_env).
 */
static char **profiled_env(const char *audit, const char *preload, const struct shm_buf *shm)
{
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	char **env = xcalloc(n + 4, sizeof *env);
	for (size_t i = 0; i < n; i++)
		if (!is_ours(environ[i]))
			env[k++] = xstrdup(environ[i]);
	env[k++] = prepend("LD_AUDIT", audit);
	if ((env[k] = prepend("LD_PRELOAD", preload)))
		k++;
	env[k++] = shm_env(shm);
	return env;
}

static char **copy_env(void)
{
	size_t n = 0;

	while (environ[n])
		n++;
	char **env = xcalloc(n + 1, sizeof *env);
	for (size_t i = 0; i < n; i++)
		env[i] = xstrdup(environ[i]);
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

int launcher_init(struct launcher *l, const struct launch_opts *o, struct errbuf *err)
{
	char *audit = NULL, *preload = NULL;
	int r;

	memset(l, 0, sizeof *l);
	l->shm.fd = -1;
	l->devnull = -1;
	l->stderr_fd = -1;
	terminal_open(&l->tty);
	l->path = xstrdup(o->path);
	l->argv = o->argv;
	l->show_output = o->show_output;
	l->preload = o->preload;
	l->timeout_s = o->timeout_s;
	l->gate[0] = l->gate[1] = -1;
	if ((r = spawn_init(&l->spawner, err)))
		goto out;
	if (o->follow) {
		if ((r = follow_init(&l->fl, err)))
			goto out;
		l->follow = true;
	}
	l->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (l->devnull < 0) {
		r = set_err(err, errno, "/dev/null: %s", strerror(errno));
		goto out;
	}
	l->follow = o->follow;
	if (o->reap_tree && !o->follow) {
		if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
			r = set_err(err, errno, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
			goto out;
		}
		l->reap_tree = true;
	}
	if (o->sample) {
		l->sampler = xcalloc(1, sizeof *l->sampler);
		sampler_init(l->sampler, o->sample_period_ns);
	}
	if ((r = o->follow ? shm_create_follow(&l->shm, o->follow_bytes, o->follow_chunk, err)
			   : shm_create(&l->shm, SHM_BYTES, err)))
		goto out;
	l->env_plain = copy_env();
	if (o->profiled) {
		if ((r = find_shim(&audit, &preload, err)))
			goto out;
		if (o->symbind && (r = use_symbind_module(&audit, err)))
			goto out;
		l->env_profiled = profiled_env(audit, o->preload ? preload : NULL, &l->shm);
	}
	r = 0;
out:
	free(audit);
	free(preload);
	if (r)
		launcher_fini(l);
	return r;
}

void launcher_fini(struct launcher *l)
{
	if (l->reap_tree)
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
	if (l->devnull >= 0)
		close(l->devnull);
	terminal_close(&l->tty);
	shm_destroy(&l->shm);
	free_env(l->env_plain);
	free_env(l->env_profiled);
	free(l->path);
	if (l->follow)
		follow_fini(&l->fl);
	if (l->sampler) {
		sampler_fini(l->sampler);
		free(l->sampler);
	}
	spawn_fini(&l->spawner);
	memset(l, 0, sizeof *l);
	l->shm.fd = -1;
	l->devnull = -1;
	l->stderr_fd = -1;
	l->tty.fd = -1;
}

/* What the child does before execve (spawn.h): everything before the clock starts. */
static void child_args(const struct launcher *l, bool profiled, struct spawn_args *a)
{
	memset(a, 0, sizeof *a);
	a->path = l->path;
	a->argv = l->argv;
	a->envp = profiled ? l->env_profiled : l->env_plain;
	a->tty_fd = l->tty_now ? l->tty.fd : -1;
	a->stdin_fd = l->devnull;
	a->stdout_fd = a->stderr_fd = -1;
	if (l->stderr_fd >= 0) {
		a->stdout_fd = l->devnull;
		a->stderr_fd = l->stderr_fd;
	} else if (!l->show_output) {
		a->stdout_fd = a->stderr_fd = l->devnull;
	}
	/*
	 * The shim maps the buffer through this fd and closes it at once. With
	 * -f it opens the path instead, so that a top process the shim cannot
	 * enter (static, set-ID) passes no fd on to the workload.
	 */
	a->inherit_fd = profiled && !l->follow ? l->shm.fd : -1;
	a->gate_fd = l->gate[0];
	a->gate_wfd = l->gate[1];
	a->hdr = l->shm.hdr;
}

static void fill_usage(struct run_usage *u, const struct rusage *ru)
{
	u->minflt = ru->ru_minflt;
	u->majflt = ru->ru_majflt;
	u->maxrss_kb = ru->ru_maxrss;
	u->utime_us = timeval_us(&ru->ru_utime);
	u->stime_us = timeval_us(&ru->ru_stime);
	u->nivcsw = ru->ru_nivcsw;
}

/* What the end of a run means: 0 for a sample, else -errno (launcher_run). */
static int run_result(const struct launcher *l, const struct run_end *e, int status,
		      struct errbuf *err)
{
	/* Believed only when the child exited 127 with no shim (shm_exec_errno). */
	int exec_errno = shm_exec_errno(l->shm.hdr, l->shm.size, status);

	if (exec_errno)
		return set_err(err, exec_errno, "%s: cannot execute: %s", l->path,
			       strerror(exec_errno));
	if (e->interrupted)
		return set_err(err, EINTR, "interrupted");
	if (e->timed_out)
		return set_err(err, ETIMEDOUT, "%s: killed after the %.3g s timeout", l->path,
			       l->timeout_s);
	if (e->tty_handed)
		return set_err(err, EAGAIN, "%s: stopped until it had the terminal", l->path);
	if (interrupt_take_suspended())
		return set_err(err, EAGAIN, "%s: suspended (Ctrl-Z) during the run", l->path);
	return 0;
}

static void close_gate(struct launcher *l)
{
	for (int i = 0; i < 2; i++)
		if (l->gate[i] >= 0)
			close(l->gate[i]);
	l->gate[0] = l->gate[1] = -1;
}

/* -f, --sample: attach the events to the waiting child, then let it exec. */
static int start_following(struct launcher *l, pid_t pid, struct errbuf *err)
{
	int ret = 0;

	if (l->gate[1] >= 0) {
		if (l->follow)
			ret = follow_attach(&l->fl, pid, err);
		if (!ret && l->sampling)
			l->sample_refused = (ret = sampler_attach(l->sampler, pid, err)) != 0;
		if (!ret && write(l->gate[1], "x", 1) != 1)
			ret = set_err(err, errno, "pipe: %s", strerror(errno));
	}
	close_gate(l);
	return ret;
}

/* The child's gate closed without a byte: it exits at once; reap it. */
static void reap_refused(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* -f over a System V segment: each run's has a new id, which the environment names. */
static void name_follow_buffer(struct launcher *l)
{
	size_t n = strlen(LDPROF_SHM_ENV);

	if (!l->follow || !l->shm.sysv || !l->env_profiled)
		return;
	for (char **e = l->env_profiled; *e; e++)
		if (!strncmp(*e, LDPROF_SHM_ENV, n) && (*e)[n] == '=') {
			free(*e);
			*e = shm_env(&l->shm);
			return;
		}
}

static double rusage_cpu_us(const struct rusage *ru)
{
	return timeval_us(&ru->ru_utime) + timeval_us(&ru->ru_stime);
}

/* Reap the children of ldprof's that have ended: true when none is left. */
static bool reap_ended(void)
{
	pid_t w;

	while ((w = waitpid(-1, NULL, WNOHANG)) > 0 || (w < 0 && errno == EINTR))
		;
	return w < 0; /* ECHILD */
}

/*
 * After the program's reap: its processes that ldprof inherited, reaped as
 * they end within REAP_GRACE_NS; the CPU time of all that was reaped since
 * before (RUSAGE_CHILDREN), or NAN when one still runs (left running).
 */
static double reap_tree(const struct rusage *before)
{
	uint64_t end = mono_ns() + REAP_GRACE_NS;
	struct timespec nap = {0, 50000};
	struct rusage now;

	while (!reap_ended()) {
		if (mono_ns() > end)
			return NAN;
		nanosleep(&nap, NULL);
	}
	getrusage(RUSAGE_CHILDREN, &now);
	return rusage_cpu_us(&now) - rusage_cpu_us(before);
}

/*
 * Start the program once and reap it; r gets its status, usage and clock.
 * With -f, the run ends when the last process of its tree is reaped, and a
 * profiled run gets its tree (r->tree).
 */
static int run_once(struct launcher *l, bool profiled, struct trace_run *r, pid_t *pidp,
		    struct errbuf *err)
{
	struct run_end e = {0};
	struct rusage ru;
	int status, pidfd, ret = 0;
	pid_t pid;

	if (interrupt_requested())
		return set_err(err, EINTR, "interrupted");
	if ((ret = shm_reset(&l->shm, err)))
		return ret;
	name_follow_buffer(l);
	if (l->preload)
		l->shm.hdr->options |= LDPROF_OPT_PRELOAD;
	l->tty_now = l->tty.give && terminal_ours(&l->tty);
	interrupt_take_suspended();
	if (((l->follow && profiled) || l->sampling) && pipe2(l->gate, O_CLOEXEC))
		return set_err(err, errno, "pipe: %s", strerror(errno));
	if (l->follow)
		follow_prepare(&l->fl);
	if (l->sampling)
		sampler_prepare(l->sampler);
	struct spawn_args args;
	struct rusage self, kids;
	child_args(l, profiled, &args);
	getrusage(RUSAGE_SELF, &self); /* the peak the child's maxrss will count (trace.h) */
	if (l->reap_tree)
		reap_ended(); /* what an earlier run left, so that its time is not this run's */
	getrusage(RUSAGE_CHILDREN, &kids);
	pid = spawn_start(&l->spawner, &args, err);
	if (pid < 0) {
		ret = pid;
		close_gate(l);
		if (l->follow)
			follow_abort(&l->fl);
		return ret;
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	interrupt_set_group(pid);
	if (l->gate[1] >= 0 && (ret = start_following(l, pid, err))) {
		interrupt_set_group(0);
		if (l->follow)
			follow_abort(&l->fl);
		else
			reap_refused(pid);
		if (l->sampling)
			sampler_abort(l->sampler);
		return ret;
	}
	pidfd = l->follow ? -1 : (int)syscall(SYS_pidfd_open, pid, 0);
	launch_wait(l, pid, pidfd, &e);
	if (l->follow) {
		r->tree = follow_finish(&l->fl, l->shm.hdr->exec_ts, &status, &r->reap_ts, &ru);
	} else {
		interrupt_set_group(0); /* before the reap frees its pid for reuse */
		while (wait4(pid, &status, 0, &ru) < 0)
			if (errno != EINTR) {
				ret = set_err(err, errno, "wait4: %s", strerror(errno));
				break;
			}
		r->reap_ts = tsc_now();
		if (!ret && l->reap_tree)
			r->usage.tree_cpu_us = reap_tree(&kids);
	}
	if (l->tty_now || e.tty_handed)
		terminal_give(&l->tty, getpgrp()); /* back to ldprof */
	if (pidfd >= 0)
		close(pidfd);
	if (ret)
		return ret;
	r->timed_out = e.timed_out;
	r->profiled = profiled;
	r->wait_status = status;
	r->exec_ts = l->shm.hdr->exec_ts;
	fill_usage(&r->usage, &ru);
	r->usage.launcher_rss_kb = self.ru_maxrss;
	*pidp = pid;
	return run_result(l, &e, status, err);
}

/*
 * -f: every image's records into its exec of the tree. The top's first
 * image is also the run's own (r->ev, as without -f).
 */
static void join_shim(struct launcher *l, struct trace *t, struct trace_run *r)
{
	struct shm_proc *procs = NULL;
	uint64_t lost = 0;
	struct errbuf err;
	size_t n = 0;

	if (!shm_collect_procs(&l->shm, t, &procs, &n, &lost, &err))
		follow_join(r->tree, procs, n, lost);
	shm_procs_free(procs, n);
	if (r->shim_attached && r->tree->nproc && r->tree->proc[0].nexec)
		r->tree->proc[0].exec[0].kind = TREE_EXEC_SHIM;
}

int launcher_run(struct launcher *l, bool profiled, struct trace *t, struct trace_run *r,
		 struct errbuf *err)
{
	pid_t pid = 0;
	int ret = run_once(l, profiled, r, &pid, err);

	if (!profiled && r->tree) {
		run_tree_free(r->tree); /* a plain run is only timed */
		free(r->tree);
		r->tree = NULL;
	}
	if (ret || !profiled)
		return ret;
	shm_freeze(&l->shm); /* one moment for the run's records and its tree's */
	shm_collect(&l->shm, pid, t, r);
	if (r->tree)
		join_shim(l, t, r);
	return 0;
}

int launcher_run_sampled(struct launcher *l, struct trace *t, struct trace_run *r, uint32_t run,
			 struct errbuf *err)
{
	int ret;

	l->sampling = true;
	l->sample_refused = false;
	ret = launcher_run(l, true, t, r, err);
	l->sampling = false;
	r->sampled = true;
	if (ret) {
		sampler_abort(l->sampler);
		return ret;
	}
	sampler_finish(l->sampler, t, run);
	return 0;
}

char *launcher_stderr(struct launcher *l, bool profiled, size_t max)
{
	struct trace_run r = {0};
	struct errbuf err;
	char *text = NULL;
	int fd = memfd_create("ldprof-stderr", MFD_CLOEXEC);
	ssize_t n;
	pid_t pid;

	if (fd < 0)
		return NULL;
	l->stderr_fd = fd;
	if (run_once(l, profiled, &r, &pid, &err) != -EINTR) {
		text = xmalloc(max + 1);
		n = pread(fd, text, max, 0);
		text[n > 0 ? n : 0] = '\0';
	}
	if (r.tree) {
		run_tree_free(r.tree);
		free(r.tree);
	}
	l->stderr_fd = -1;
	close(fd);
	return text;
}
