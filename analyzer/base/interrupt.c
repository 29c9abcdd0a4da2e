#include "base/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The signals ldprof takes over while it works; the program gets the caller's. */
static const int taken[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCHLD};
#define NTAKEN (sizeof taken / sizeof *taken)

static struct sigaction caller_action[NTAKEN];
static bool installed[NTAKEN];
static sigset_t caller_mask;
static unsigned depth;
static int wake[2] = {-1, -1};
static volatile sig_atomic_t sigints;
static volatile sig_atomic_t group;
static volatile sig_atomic_t suspended;
/* interrupt_set_extra's: one pointer, so a handler sees the old set or the new one. */
struct extra_set {
	const pid_t *pids;
	size_t n;
};
static struct extra_set extra_sets[2];
static struct extra_set *volatile extra;
static void (*volatile on_death)(void);

/* The run's group (and its leader), then the extra processes. */
static void signal_all(pid_t g, int sig, bool leader_too)
{
	const struct extra_set *x = extra;

	if (g > 0) {
		kill(-g, sig);
		if (leader_too)
			kill(g, sig);
	}
	for (size_t i = 0; x && i < x->n; i++)
		if (x->pids[i] > 0)
			kill(x->pids[i], sig);
}

static void wake_up(void)
{
	ssize_t n = write(wake[1], "", 1); /* full pipe: a wake-up is pending anyway */

	(void)n;
}

/* Die of sig as if ldprof had no handler; it is delivered when we return. */
static void die_of(int sig)
{
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	void (*cleanup)(void) = on_death;

	if (cleanup)
		cleanup();
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
}

static void on_sigint(int sig)
{
	int saved = errno;
	pid_t g = (pid_t)group;

	sigints = sigints + 1;
	if (sigints > 1) { /* the user insists: no report, no waiting */
		signal_all(g, SIGKILL, true); /* the leader too, should it have left the group */
		die_of(sig);
	}
	wake_up(); /* the launcher forwards it and starts the grace */
	errno = saved;
}

/* SIGTERM, SIGHUP, SIGQUIT: the program's group gets it too, then we go. */
static void on_fatal(int sig)
{
	signal_all((pid_t)group, sig, false);
	die_of(sig);
}

/*
 * Ctrl-Z: the run's group stops with ldprof and continues with it (the run
 * is then not a sample: interrupt_take_suspended()).
 */
static void on_tstp(int sig)
{
	int saved = errno;
	pid_t g = (pid_t)group;
	struct sigaction dfl = {.sa_handler = SIG_DFL}, ours;
	sigset_t tstp;

	suspended = 1;
	signal_all(g, sig, false);
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, &ours);
	sigemptyset(&tstp);
	sigaddset(&tstp, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &tstp, NULL); /* stops here until SIGCONT */
	sigprocmask(SIG_BLOCK, &tstp, NULL);
	sigaction(sig, &ours, NULL);
	signal_all(g, SIGCONT, false);
	errno = saved;
}

static void on_sigchld(int sig)
{
	int saved = errno;

	(void)sig;
	wake_up();
	errno = saved;
}

static bool have_pidfds(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void take(size_t i)
{
	int sig = taken[i];
	struct sigaction sa = {.sa_flags = SA_RESTART};

	sigaction(sig, NULL, &caller_action[i]);
	/*
	 * An ignored SIGTERM, SIGHUP, SIGQUIT or SIGTSTP stays ignored (nohup, `cmd &` in
	 * sh). SIGINT is always ours, as before: `ldprof ... &` in a script gets
	 * it ignored, and kill -INT must still stop it with a report.
	 */
	installed[i] = sig == SIGCHLD || sig == SIGINT || caller_action[i].sa_handler != SIG_IGN;
	if (!installed[i])
		return;
	sa.sa_handler = sig == SIGINT ? on_sigint : sig == SIGTSTP ? on_tstp : on_fatal;
	/* A pidfd says when a child exits; without one, SIGCHLD has to wake us. */
	if (sig == SIGCHLD)
		sa.sa_handler = have_pidfds() ? SIG_DFL : on_sigchld;
	if (sig == SIGCHLD)
		sa.sa_flags |= SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void interrupt_begin(void)
{
	sigset_t chld;

	if (depth++)
		return;
	sigints = 0;
	group = 0;
	extra = NULL;
	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		wake[0] = wake[1] = -1; /* poll skips -1: waits still end, on their timeouts */
	sigprocmask(SIG_SETMASK, NULL, &caller_mask);
	for (size_t i = 0; i < NTAKEN; i++)
		take(i);
	/* A caller's blocked SIGCHLD would leave the wait without its wake-up. */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
}

void interrupt_end(void)
{
	if (!depth || --depth)
		return;
	group = 0;
	extra = NULL;
	for (size_t i = 0; i < NTAKEN; i++)
		if (installed[i])
			sigaction(taken[i], &caller_action[i], NULL);
	sigprocmask(SIG_SETMASK, &caller_mask, NULL);
	interrupt_drain();
}

void interrupt_on_death(void (*fn)(void))
{
	on_death = fn;
}

bool interrupt_requested(void)
{
	return sigints > 0;
}

int interrupt_wake_fd(void)
{
	return depth ? wake[0] : -1;
}

void interrupt_drain(void)
{
	char buf[64];

	while (wake[0] >= 0 && read(wake[0], buf, sizeof buf) > 0)
		;
}

bool interrupt_take_suspended(void)
{
	bool was = suspended;

	suspended = 0;
	return was;
}

void interrupt_set_group(pid_t pgid)
{
	group = pgid;
}

void interrupt_set_extra(const pid_t *pids, size_t n)
{
	/* Fill the set no handler can be reading, then switch to it. */
	struct extra_set *next = extra == &extra_sets[0] ? &extra_sets[1] : &extra_sets[0];

	if (!pids || !n) {
		extra = NULL;
		return;
	}
	next->pids = pids;
	next->n = n;
	extra = next;
}

size_t interrupt_caller_state(int *sigs, bool *ignored, size_t max, sigset_t *mask)
{
	size_t n = 0;

	if (depth)
		*mask = caller_mask;
	else
		sigprocmask(SIG_SETMASK, NULL, mask);
	for (size_t i = 0; depth && i < NTAKEN && n < max; i++)
		if (installed[i]) {
			sigs[n] = taken[i];
			ignored[n++] = caller_action[i].sa_handler == SIG_IGN;
		}
	return n;
}
