#include "run/fork-census.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/interrupt.h"

static struct tally_proc *find(struct fork_tally *t, pid_t pid)
{
	/* Newest first: a pid the kernel reused is the live one. */
	for (size_t i = t->n; i-- > 0;)
		if (t->p[i].pid == pid)
			return &t->p[i];
	return NULL;
}

static struct tally_proc *add(struct fork_tally *t, pid_t pid, bool image)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->p = xrealloc(t->p, t->cap * sizeof *t->p);
	}
	t->p[t->n] = (struct tally_proc){.pid = pid, .image = image};
	return &t->p[t->n++];
}

void fork_tally_start(struct fork_tally *t, pid_t top)
{
	memset(t, 0, sizeof *t);
	add(t, top, true)->seen = true;
}

void fork_tally_exec(struct fork_tally *t, pid_t pid)
{
	struct tally_proc *p = find(t, pid);

	if (p)
		p->image = false;
}

void fork_tally_child(struct fork_tally *t, pid_t parent, pid_t child, enum tally_kind k)
{
	struct tally_proc *p = find(t, parent), *c;
	bool image = p && p->image, seen;

	/* Its first stop may have come before its parent's event. */
	c = find(t, child);
	seen = c && c->seen;
	c = add(t, child, image);
	c->seen = seen;
	if (image && k == TALLY_FORK)
		t->c.forks++;
	else if (image && k == TALLY_VFORK)
		t->c.vforks++;
}

void fork_tally_free(struct fork_tally *t)
{
	free(t->p);
	memset(t, 0, sizeof *t);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* How the child tells why it never stopped at its exec. */
#define CHILD_NO_PTRACE 126
#define CHILD_NO_EXEC	127

/* The child: a process group of its own, /dev/null for stdio, traced from its exec. */
static void child(const char *path, char *const argv[])
{
	int fd = open("/dev/null", O_RDWR);

	setpgid(0, 0);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(CHILD_NO_PTRACE);
	execv(path, argv);
	_exit(CHILD_NO_EXEC);
}

static void kill_all(const struct fork_tally *t, pid_t top)
{
	kill(-top, SIGKILL);
	for (size_t i = 0; i < t->n; i++)
		kill(t->p[i].pid, SIGKILL); /* those that left its process group */
}

/* One stop of a tracee: count it, and let it go on. */
static void on_stop(struct fork_tally *t, pid_t pid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct tally_proc *p = find(t, pid);
	unsigned long msg = 0;
	siginfo_t si;

	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE) {
		if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg))
			fork_tally_child(t, pid, (pid_t)msg,
					 event == PTRACE_EVENT_FORK    ? TALLY_FORK
					 : event == PTRACE_EVENT_VFORK ? TALLY_VFORK
								       : TALLY_THREAD);
		sig = 0;
	} else if (event == PTRACE_EVENT_EXEC) {
		fork_tally_exec(t, pid);
		sig = 0;
	} else if (event) {
		sig = 0;
	} else if (sig == SIGSTOP && (!p || !p->seen)) {
		sig = 0; /* a new tracee's first stop, which attaching it sent */
	} else if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si)) {
		sig = 0; /* a group-stop: it runs on (the census keeps no job control) */
	}
	if (!p)
		p = add(t, pid, false); /* a child whose parent's event is still to come */
	p->seen = true;
	ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
}

/* Until no tracee is left; -ETIME after the timeout, -EINTR on Ctrl-C (all killed then). */
static int trace_all(struct fork_tally *t, pid_t top, double timeout_s)
{
	double deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
	struct timespec nap = {0, 200000};
	int r = 0, status;

	for (;;) {
		pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return r; /* ECHILD: all gone */
		if (pid > 0) {
			if (WIFSTOPPED(status))
				on_stop(t, pid, status);
			continue;
		}
		if (!r && interrupt_requested())
			r = -EINTR;
		if (!r && deadline && now_s() > deadline)
			r = -ETIME;
		if (r)
			kill_all(t, top);
		nanosleep(&nap, NULL);
	}
}

int fork_census(const char *path, char *const argv[], double timeout_s, struct fork_counts *c,
		struct errbuf *err)
{
	struct fork_tally t;
	int status, r;
	pid_t w, top = fork();

	if (top < 0)
		return set_err(err, errno, "fork: %s", strerror(errno));
	if (top == 0)
		child(path, argv);
	do
		w = waitpid(top, &status, __WALL);
	while (w < 0 && errno == EINTR);
	if (w != top) {
		r = errno;
		kill(top, SIGKILL);
		waitpid(top, &status, __WALL);
		return set_err(err, r, "waitpid: %s", strerror(r));
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_NO_PTRACE)
		return set_err(err, EPERM, "ptrace refused (is ldprof itself traced?)");
	if (!WIFSTOPPED(status))
		return set_err(err, ECHILD, "it could not be executed under ptrace");
	if (ptrace(PTRACE_SETOPTIONS, top, NULL,
		   (void *)(long)(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
				  PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL))) {
		r = errno;
		kill(top, SIGKILL);
		waitpid(top, &status, __WALL);
		return set_err(err, r, "ptrace: %s", strerror(r));
	}
	fork_tally_start(&t, top);
	ptrace(PTRACE_CONT, top, NULL, NULL);
	r = trace_all(&t, top, timeout_s);
	*c = t.c;
	fork_tally_free(&t);
	if (r == -ETIME)
		return set_err(err, ETIME, "it ran past the %.0f s timeout, and was killed", timeout_s);
	if (r)
		return set_err(err, -r, "interrupted");
	return 0;
}
