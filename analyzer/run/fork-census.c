#include "run/fork-census.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "run/spawn.h"

static struct tally_proc *find(struct fork_tally *t, pid_t pid)
{
	/* Newest first: a pid the kernel reused is the live one. */
	for (size_t i = t->n; i-- > 0;)
		if (t->p[i].pid == pid)
			return &t->p[i];
	return NULL;
}

static struct tally_proc *add(struct fork_tally *t, pid_t pid, bool image, bool pending)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->p = xrealloc(t->p, t->cap * sizeof *t->p);
	}
	t->p[t->n] =
		(struct tally_proc){.pid = pid, .image = image, .live = true, .pending = pending};
	return &t->p[t->n++];
}

void fork_tally_start(struct fork_tally *t, pid_t top)
{
	memset(t, 0, sizeof *t);
	add(t, top, true, false);
}

void fork_tally_exec(struct fork_tally *t, pid_t pid)
{
	struct tally_proc *p = find(t, pid);

	if (p)
		p->image = false;
}

void fork_tally_child(struct fork_tally *t, pid_t parent, pid_t child, enum tally_kind k)
{
	struct tally_proc *p = find(t, parent), *c = find(t, child);
	bool image = p && p->image;

	/* Its first stop may have come before its parent's event, and added it. */
	if (!c || !c->live)
		c = add(t, child, image, false);
	c->image = image;
	c->pending = false;
	if (image && k == TALLY_FORK)
		t->c.forks++;
	else if (image && k == TALLY_VFORK)
		t->c.vforks++;
}

/* glibc reads it once a process, at the first lookup through NSS (nss_database.c). */
#define NSS_CONF "/etc/nsswitch.conf"

void fork_tally_open(struct fork_tally *t, pid_t pid, const char *path)
{
	struct tally_proc *p = find(t, pid);

	if (p && p->image && !p->nss && !strcmp(path, NSS_CONF)) {
		p->nss = true;
		t->c.nss++;
	}
}

void fork_tally_free(struct fork_tally *t)
{
	free(t->p);
	memset(t, 0, sizeof *t);
}

/* Why the child never reached its exec. */
#define CHILD_NO_EXEC 127

/*
 * The child: a process group of its own, /dev/null for stdio, the caller's
 * signal dispositions and mask as a timed run gets them (run/spawn.c),
 * stopped until the parent has seized it, then the program.
 */
static void child(const char *path, char *const argv[])
{
	int fd = open("/dev/null", O_RDWR), sigs[SPAWN_MAX_SIGS];
	bool ignored[SPAWN_MAX_SIGS];
	sigset_t mask;
	size_t n = interrupt_caller_state(sigs, ignored, SPAWN_MAX_SIGS, &mask);

	for (size_t i = 0; i < n; i++)
		signal(sigs[i], ignored[i] ? SIG_IGN : SIG_DFL);
	setpgid(0, 0);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
	}
	raise(SIGSTOP);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	execv(path, argv);
	_exit(CHILD_NO_EXEC);
}

/* The census of one run. */
struct census {
	struct fork_tally t;
	pid_t top;
	bool top_exec;	/* the top's first exec (the program's own) came */
	bool letting_go; /* the top exited: detach each tracee at its next stop */
	bool watch_nss;	 /* stop the image's processes at their system calls */
	int stopped;	 /* a tracee stopped by this signal (SIGTTIN: it wanted the terminal) */
	size_t live;
};

/*
 * The first len - 1 bytes of the path an open of pid's names: enough to tell
 * NSS's configuration from any other path; "" when it cannot be read.
 */
static void open_path(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	struct iovec local = {buf, len - 1}, remote = {(void *)(uintptr_t)addr, len - 1};
	ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	buf[got > 0 ? (size_t)got : 0] = '\0';
}

/* A system call stop: at the entry of an open, the path it opens. */
static void on_syscall(struct census *c, pid_t pid)
{
	struct __ptrace_syscall_info si;
	char path[sizeof NSS_CONF + 1];
	uint64_t addr;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof si, &si) <= 0 ||
	    si.op != PTRACE_SYSCALL_INFO_ENTRY || si.arch != AUDIT_ARCH_X86_64)
		return;
	if (si.entry.nr == SYS_openat || si.entry.nr == SYS_openat2)
		addr = si.entry.args[1];
	else if (si.entry.nr == SYS_open)
		addr = si.entry.args[0];
	else
		return;
	open_path(pid, addr, path, sizeof path);
	fork_tally_open(&c->t, pid, path);
}

/* Whether pid's maps show a [heap] (its brk grew): 1 or 0; -1 when they cannot be read. */
static int has_heap(pid_t pid)
{
	char path[32], *line = NULL;
	size_t cap = 0;
	int heap = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (!heap && getline(&line, &cap, f) > 0)
		heap = strstr(line, " [heap]\n") != NULL;
	free(line);
	fclose(f);
	return heap;
}

void fork_counts_free(struct fork_counts *c)
{
	for (size_t i = 0; i < c->nmapped; i++)
		free(c->mapped[i].path);
	free(c->mapped);
	c->mapped = NULL;
	c->nmapped = 0;
	c->mapped_seen = false;
}

static void add_mapped(struct fork_counts *c, const char *path, unsigned long kib)
{
	size_t i = 0;

	while (i < c->nmapped && strcmp(c->mapped[i].path, path))
		i++;
	if (i == c->nmapped) {
		c->mapped = xrealloc(c->mapped, (c->nmapped + 1) * sizeof *c->mapped);
		c->mapped[c->nmapped++] = (struct mapped_file){xstrdup(path), 0};
	}
	c->mapped[i].pages += (uint32_t)(kib / 4);
}

/*
 * The clean page-cache pages of each file pid maps, from its smaps: a
 * mapping's line ("start-end perms offset dev inode path"), then its
 * "Key: N kB" lines. 0, or -1 when they cannot be read.
 */
static int read_mapped(pid_t pid, struct fork_counts *c)
{
	char path[32], *line = NULL, file[4096] = "";
	size_t cap = 0;
	unsigned long kib;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (getline(&line, &cap, f) > 0) {
		int at = 0;
		if (!isupper((unsigned char)line[0])) { /* a mapping's line */
			sscanf(line, "%*x-%*x %*s %*x %*s %*u %n", &at);
			file[0] = '\0';
			if (at > 0 && line[at] == '/')
				snprintf(file, sizeof file, "%.*s", (int)strcspn(line + at, "\n"),
					 line + at);
		} else if (file[0] && (sscanf(line, "Shared_Clean: %lu kB", &kib) == 1 ||
				       sscanf(line, "Private_Clean: %lu kB", &kib) == 1)) {
			add_mapped(c, file, kib);
		}
	}
	free(line);
	fclose(f);
	c->mapped_seen = true;
	return 0;
}

/* The top about to exit (PTRACE_EVENT_EXIT: its address space still whole). */
static void on_top_exit(struct census *c, const struct tally_proc *p)
{
	int heap;

	if (!p->image || c->t.c.heap_seen || (heap = has_heap(p->pid)) < 0)
		return;
	c->t.c.heap_seen = true;
	c->t.c.heap = heap;
	if (read_mapped(p->pid, &c->t.c))
		fork_counts_free(&c->t.c);
}

static bool group_stop_sig(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void gone(struct census *c, struct tally_proc *p)
{
	if (p && p->live) {
		p->live = false;
		c->live--;
	}
}

/* One stop of a tracee: count it, and let it go on (or go). */
static void on_stop(struct census *c, pid_t pid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct tally_proc *p = find(&c->t, pid);
	unsigned long msg = 0;

	if (!p || !p->live) { /* a child whose parent's event is still to come */
		p = add(&c->t, pid, false, true);
		c->live++;
	}
	if (sig == (SIGTRAP | 0x80) && !event) { /* a system call stop (PTRACE_O_TRACESYSGOOD) */
		on_syscall(c, pid);
		sig = 0;
	} else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
	    event == PTRACE_EVENT_CLONE) {
		if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg)) {
			struct tally_proc *old = find(&c->t, (pid_t)msg);
			bool was_live = old && old->live; /* its first stop came first */
			fork_tally_child(&c->t, pid, (pid_t)msg,
					 event == PTRACE_EVENT_FORK    ? TALLY_FORK
					 : event == PTRACE_EVENT_VFORK ? TALLY_VFORK
								       : TALLY_THREAD);
			c->live += !was_live;
			p = find(&c->t, pid); /* the array may have moved */
		}
		sig = 0;
	} else if (event == PTRACE_EVENT_EXEC) {
		if (pid == c->top && !c->top_exec)
			c->top_exec = true;
		else
			fork_tally_exec(&c->t, pid);
		sig = 0;
	} else if (event == PTRACE_EVENT_EXIT) {
		if (pid == c->top)
			on_top_exit(c, p);
		sig = 0;
	} else if (event == PTRACE_EVENT_STOP && pid == c->top && !c->top_exec) {
		sig = 0; /* its own stop before exec, which SIGCONT ends: seized in it */
	} else if (event == PTRACE_EVENT_STOP && group_stop_sig(sig) && !c->letting_go) {
		/*
		 * Stopped, as it would be without ptrace: it wanted the terminal
		 * (the census runs in the background), or stopped itself. No
		 * one will continue it: the census ends here.
		 */
		ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		c->stopped = sig;
		return;
	} else if (event) {
		sig = 0;
	}
	if (c->letting_go) {
		ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig);
		gone(c, p);
		return;
	}
	/* The image's processes stop at their system calls until one opens NSS's configuration. */
	ptrace(c->watch_nss && (p->image || p->pending) && !p->nss ? PTRACE_SYSCALL : PTRACE_CONT,
	       pid, NULL, (void *)(long)sig);
}

/* The top exited: stop each tracee left, to detach it at that stop. */
static void let_go(struct census *c)
{
	c->letting_go = true;
	for (size_t i = 0; i < c->t.n; i++)
		if (c->t.p[i].live)
			ptrace(PTRACE_INTERRUPT, c->t.p[i].pid, NULL, NULL);
}

static void kill_all(const struct census *c)
{
	kill(-c->top, SIGKILL);
	for (size_t i = 0; i < c->t.n; i++)
		if (c->t.p[i].live)
			kill(c->t.p[i].pid, SIGKILL); /* those that left its process group */
}

/* Polls, yielding the CPU, before the loop naps once nothing stops. */
#define CENSUS_SPINS 200

/*
 * Until no tracee is left; -ETIME after the timeout, -EINTR on Ctrl-C,
 * -EAGAIN when one stopped (all killed then).
 */
static int trace_all(struct census *c, double timeout_s)
{
	uint64_t deadline = timeout_s > 0 ? mono_ns() + (uint64_t)(timeout_s * 1e9) : 0;
	struct timespec nap = {0, 200000};
	int r = 0, status, idle = 0;

	while (c->live) {
		pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break; /* ECHILD: all gone */
		if (pid > 0) {
			idle = 0;
			if (WIFSTOPPED(status))
				on_stop(c, pid, status);
			else if (WIFEXITED(status) || WIFSIGNALED(status))
				gone(c, find(&c->t, pid));
			if (pid == c->top && !WIFSTOPPED(status) && !c->letting_go && !r)
				let_go(c);
			continue;
		}
		if (!r && interrupt_requested())
			r = -EINTR;
		if (!r && c->stopped)
			r = -EAGAIN;
		if (!r && deadline && mono_ns() > deadline)
			r = -ETIME;
		if (r)
			kill_all(c);
		/*
		 * A tracee stopped at a system call runs to its next in
		 * microseconds: a nap after each would cost a syscall-heavy
		 * program 200 us a call (dd bs=1, 1.4 s under the census
		 * before the system call stops, 61 s with the nap).
		 */
		if (idle++ < CENSUS_SPINS)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
	return r;
}

/* Start the child and seize it at its stop before exec. */
static int start(struct census *c, const char *path, char *const argv[], struct errbuf *err)
{
	const long opts = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
			  PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL |
			  PTRACE_O_TRACESYSGOOD;
	int status, e;
	pid_t w;

	c->top = fork();
	if (c->top < 0)
		return set_err(err, errno, "fork: %s", strerror(errno));
	if (c->top == 0)
		child(path, argv);
	do
		w = waitpid(c->top, &status, WUNTRACED);
	while (w < 0 && errno == EINTR);
	if (w != c->top || !WIFSTOPPED(status)) {
		e = w < 0 ? errno : ECHILD;
		kill(c->top, SIGKILL);
		waitpid(c->top, &status, 0);
		return set_err(err, e, "it did not start: %s", strerror(e));
	}
	if (ptrace(PTRACE_SEIZE, c->top, NULL, (void *)opts)) {
		e = errno;
		kill(c->top, SIGKILL);
		waitpid(c->top, &status, __WALL);
		return set_err(err, e, "ptrace: %s%s", strerror(e),
			       e == EPERM ? " (is ldprof itself traced?)" : "");
	}
	fork_tally_start(&c->t, c->top);
	c->live = 1;
	kill(c->top, SIGCONT);
	return 0;
}

int fork_census(const char *path, char *const argv[], double timeout_s, bool watch_nss,
		struct fork_counts *out, struct errbuf *err)
{
	struct census c = {.watch_nss = watch_nss};
	int r = start(&c, path, argv, err);

	if (r)
		return r;
	r = trace_all(&c, timeout_s);
	*out = c.t.c;
	fork_tally_free(&c.t);
	if (r || !c.top_exec)
		fork_counts_free(out);
	if (r == -ETIME)
		return set_err(err, ETIME, "it ran past the %.0f s timeout, and was killed", timeout_s);
	if (r == -EAGAIN)
		return set_err(err, EAGAIN, "it stopped (%s), and was killed",
			       c.stopped == SIGTTIN || c.stopped == SIGTTOU
				       ? "it wanted the terminal"
				       : strsignal(c.stopped));
	if (r)
		return set_err(err, -r, "interrupted");
	if (!c.top_exec)
		return set_err(err, ENOEXEC, "it could not be executed");
	return 0;
}
