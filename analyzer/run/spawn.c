#include "run/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "base/tsc.h"
#include "ldprof-syscall.h"

#define SPAWN_STACK (64u * 1024)

/* The child runs on a stack of ours that no sanitizer knows: not instrumented. */
#define CHILD_CODE __attribute__((no_sanitize("address", "undefined")))

/* The child shares ldprof's thread area: system calls that touch no errno. */
#define raw3(nr, a, b, c) shim_syscall3(nr, (long)(a), (long)(b), (long)(c))
#define raw4(nr, a, b, c, d) shim_syscall6(nr, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* The kernel's struct sigaction, for SIG_DFL and SIG_IGN (no restorer needed). */
struct kernel_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

CHILD_CODE static void set_disposition(int sig, void (*handler)(int))
{
	struct kernel_sigaction ka = {.handler = handler};

	raw4(SYS_rt_sigaction, sig, &ka, 0, sizeof ka.mask);
}

CHILD_CODE static __attribute__((noreturn)) void child_exit(int status)
{
	for (;;)
		raw3(SYS_exit, status, 0, 0);
}

CHILD_CODE static bool await_gate(const struct spawn_args *a)
{
	char c;
	long n;

	raw3(SYS_close, a->gate_wfd, 0, 0);
	while ((n = raw3(SYS_read, a->gate_fd, &c, 1)) == -EINTR)
		;
	raw3(SYS_close, a->gate_fd, 0, 0);
	return n == 1;
}

/* Everything here happens before the clock starts. */
CHILD_CODE static int child(void *arg)
{
	const struct spawn_args *a = arg;
	int pid = (int)raw3(SYS_getpid, 0, 0, 0);
	long ret;

	/* A group of its own, so that Ctrl-C can end all of the run. */
	raw3(SYS_setpgid, 0, 0, 0);
	if (a->tty_fd >= 0) /* SIGTTOU is blocked: allowed from the background */
		raw3(SYS_ioctl, a->tty_fd, TIOCSPGRP, &pid);
	if (a->stdin_fd >= 0)
		raw3(SYS_dup2, a->stdin_fd, 0, 0);
	if (a->stdout_fd >= 0)
		raw3(SYS_dup2, a->stdout_fd, 1, 0);
	if (a->stderr_fd >= 0)
		raw3(SYS_dup2, a->stderr_fd, 2, 0);
	if (a->inherit_fd >= 0)
		raw3(SYS_fcntl, a->inherit_fd, F_SETFD, 0);
	if (a->gate_fd >= 0 && !await_gate(a))
		child_exit(127); /* the events could not be attached: the launcher says why */
	/*
	 * ldprof's handlers must never run here, in its memory: the signals
	 * it handles go to the caller's disposition (exec would reset a
	 * handler to the default anyway) before the caller's mask unblocks
	 * anything.
	 */
	for (size_t i = 0; i < a->nsigs; i++)
		set_disposition(a->sigs[i], a->ignored[i] ? SIG_IGN : SIG_DFL);
	raw4(SYS_rt_sigprocmask, SIG_SETMASK, &a->caller_mask, 0, sizeof a->caller_mask);
	a->hdr->pid = pid;
	a->hdr->exec_ts = tsc_now();
	ret = raw3(SYS_execve, a->path, a->argv, a->envp);
	a->hdr->exec_errno = (int32_t)-ret;
	child_exit(127);
}

int spawn_init(struct spawner *s, struct errbuf *err)
{
	memset(s, 0, sizeof *s);
	s->stack_size = SPAWN_STACK;
	s->stack = mmap(NULL, s->stack_size, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (s->stack == MAP_FAILED) {
		s->stack = NULL;
		return set_err(err, errno, "the child's stack: mmap: %s", strerror(errno));
	}
	return 0;
}

void spawn_fini(struct spawner *s)
{
	if (s->stack)
		munmap(s->stack, s->stack_size);
	memset(s, 0, sizeof *s);
}

pid_t spawn_start(struct spawner *s, const struct spawn_args *args, struct errbuf *err)
{
	sigset_t all, old, mask;
	pid_t pid;
	int e;

	s->args = *args;
	s->args.nsigs = interrupt_caller_state(s->args.sigs, s->args.ignored, SPAWN_MAX_SIGS, &mask);
	memcpy(&s->args.caller_mask, &mask, sizeof s->args.caller_mask);
	/* No signal until the child has dropped ldprof's handlers. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(child, (char *)s->stack + s->stack_size, CLONE_VM | SIGCHLD, &s->args);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return set_err(err, e, "clone: %s", strerror(e));
	return pid;
}
