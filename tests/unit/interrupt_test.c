/*
 * base/interrupt.c: SIGINT is counted across nested scopes, the caller's
 * dispositions and mask come back at the end and in a forked child, an
 * ignored SIGTERM stays ignored, and SIGCHLD is waitable inside a scope
 * even when the caller ignored it. SIGTERM reaches the extra pids
 * (interrupt_set_extra) outside the group, as -f needs for a setsid child.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "unit.h"

static void (*handler_of(int sig))(int)
{
	struct sigaction sa;

	sigaction(sig, NULL, &sa);
	return sa.sa_handler;
}

static bool blocked(int sig)
{
	sigset_t m;

	sigprocmask(SIG_SETMASK, NULL, &m);
	return sigismember(&m, sig);
}

static void nesting_and_request(void)
{
	interrupt_begin();
	CHECK(!interrupt_requested());
	CHECK(handler_of(SIGINT) != SIG_DFL);
	raise(SIGINT);
	CHECK(interrupt_requested());
	interrupt_begin(); /* nested: keeps the request */
	CHECK(interrupt_requested());
	interrupt_end();
	CHECK(handler_of(SIGINT) != SIG_DFL);
	interrupt_end();
	CHECK(handler_of(SIGINT) == SIG_DFL);
	interrupt_begin(); /* a fresh outermost scope: cleared */
	CHECK(!interrupt_requested());
	interrupt_end();
}

/* The caller's state as interrupt_caller_state() gives it, as bits. */
static int child_state(void)
{
	int sigs[16], st = 0;
	bool ign[16];
	sigset_t mask;
	size_t n = interrupt_caller_state(sigs, ign, 16, &mask);

	for (size_t i = 0; i < n; i++) {
		st |= (sigs[i] == SIGTERM) << 5; /* ignored by the caller: left alone, never listed */
		if (sigs[i] == SIGCHLD)
			st |= ign[i] << 1;
		if (sigs[i] == SIGINT)
			st |= !ign[i] << 2;
	}
	st |= sigismember(&mask, SIGUSR1) << 3 | sigismember(&mask, SIGCHLD) << 4;
	return st;
}

static void caller_state(void)
{
	sigset_t m;

	signal(SIGTERM, SIG_IGN);
	signal(SIGCHLD, SIG_IGN);
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigaddset(&m, SIGCHLD);
	sigprocmask(SIG_BLOCK, &m, NULL);
	interrupt_begin();
	CHECK(handler_of(SIGTERM) == SIG_IGN); /* ignored: ours to leave alone */
	CHECK(handler_of(SIGCHLD) != SIG_IGN);
	CHECK(!blocked(SIGCHLD));
	CHECK(blocked(SIGUSR1));
	CHECK(child_state() == 30);
	interrupt_end();
	CHECK(handler_of(SIGCHLD) == SIG_IGN);
	CHECK(blocked(SIGCHLD));
	CHECK(blocked(SIGUSR1));
	sigprocmask(SIG_UNBLOCK, &m, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
}

/*
 * A helper, as ldprof would be, with a sleeper in a session of its own as
 * its extra pid: SIGTERM ends the helper and reaches the sleeper. The test
 * is the subreaper, so the orphaned sleeper's status comes back to it.
 */
static void extra_pids(void)
{
	int p[2], status = 0;
	pid_t helper, sleeper = -1;

	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	CHECK(pipe(p) == 0);
	if ((helper = fork()) == 0) {
		pid_t s;
		interrupt_begin();
		if ((s = fork()) == 0) {
			setsid();
			for (;;)
				pause();
		}
		static pid_t extra[1];
		extra[0] = s;
		interrupt_set_extra(extra, 1);
		if (write(p[1], &s, sizeof s) != sizeof s)
			_exit(2);
		raise(SIGTERM);
		_exit(3); /* not reached: SIGTERM ends the helper */
	}
	CHECK(read(p[0], &sleeper, sizeof sleeper) == sizeof sleeper);
	CHECK(waitpid(helper, &status, 0) == helper && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM);
	CHECK(waitpid(sleeper, &status, 0) == sleeper && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGTERM);
	close(p[0]);
	close(p[1]);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

int main(void)
{
	nesting_and_request();
	caller_state();
	extra_pids();
	return unit_done("interrupt_test");
}
