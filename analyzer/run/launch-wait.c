#include "run/launch-wait.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "base/tsc.h"

/* Without a pidfd: has the child exited? (Not reaped: its pid stays ours.) */
static bool exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno != EINTR; /* ECHILD and the like: wait4 will say */
	return si.si_pid == pid;
}

/*
 * The run's group, and its leader too if it left the group (setsid); with
 * -f, every process of the tree still alive, wherever its group is.
 */
static void signal_run(struct launcher *l, pid_t pid, int sig)
{
	if (!l->follow || !l->fl.top_reaped) {
		kill(-pid, sig);
		if (getpgid(pid) != pid)
			kill(pid, sig);
	}
	if (l->follow)
		follow_signal_live(&l->fl, sig);
}

/* Another kill for -f: a process forked while the last one was sent. */
#define REKILL_NS 100000000ull

/* One wait for the run's end: its pidfd, or (-f) the tree's rings and SIGCHLD. */
static bool wait_some(struct launcher *l, pid_t pid, int pidfd, int ms)
{
	/* -f: a ring per CPU, then SIGCHLD and the wake-up. */
	size_t max = (l->follow ? l->fl.nring + 2 : 2) + 1, n = 0;
	struct pollfd *p = xcalloc(max, sizeof *p);
	bool sampling = l->sampling && sampler_active(l->sampler), done;

	/* --sample: its ring, drained while the run goes on. */
	if (sampling)
		p[n++] = sampler_pollfd(l->sampler);
	if (l->follow)
		n += follow_pollfds(&l->fl, p + n, max - n - 1);
	else
		p[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
	p[n++] = (struct pollfd){.fd = interrupt_wake_fd(), .events = POLLIN};
	poll(p, n, ms);
	if (p[n - 1].revents)
		interrupt_drain();
	if (sampling)
		sampler_service(l->sampler);
	if (l->follow) {
		follow_service(&l->fl);
		done = follow_done(&l->fl);
	} else {
		done = pidfd >= 0 ? (p[sampling].revents & POLLIN) != 0 : exited(pid);
	}
	free(p);
	return done;
}

static int ms_until(uint64_t now, uint64_t when)
{
	if (!when)
		return -1;
	if (when <= now)
		return 0;
	uint64_t ms = (when - now) / 1000000u + 1;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* Stopped by SIGTTOU or SIGTTIN while ldprof is in the foreground: fg it. */
static void hand_terminal(struct launcher *l, pid_t pid, struct run_end *e)
{
	if (e->tty_handed || !terminal_stopped(pid) || !terminal_ours(&l->tty))
		return;
	terminal_give(&l->tty, pid);
	kill(-pid, SIGCONT);
	l->tty.give = e->tty_handed = true;
}

void launch_wait(struct launcher *l, pid_t pid, int pidfd, struct run_end *e)
{
	uint64_t deadline = l->timeout_s > 0 ? mono_ns() + (uint64_t)(l->timeout_s * 1e9) : 0;
	uint64_t kill_at = 0;
	/* Neither pidfd nor wake-up pipe: look now and then; and for a stop. */
	int cap = pidfd < 0 && interrupt_wake_fd() < 0 ? 10 : -1;

	if (l->tty.fd >= 0 && !l->tty_now)
		cap = cap < 0 ? 100 : cap;

	for (;;) {
		uint64_t now = mono_ns();
		if (interrupt_requested() && !e->interrupted) {
			e->interrupted = true;
			signal_run(l, pid, SIGINT);
			kill_at = now + INTERRUPT_GRACE_NS;
		}
		if (deadline && now >= deadline) {
			e->timed_out = true;
			signal_run(l, pid, SIGKILL);
			deadline = 0;
			kill_at = l->follow ? now + REKILL_NS : 0;
		}
		if (kill_at && now >= kill_at) {
			signal_run(l, pid, SIGKILL);
			kill_at = l->follow ? now + REKILL_NS : 0;
		}
		/* Once reaped, the top's pid may be another process's. */
		if (l->tty.fd >= 0 && !l->tty_now && !(l->follow && l->fl.top_reaped))
			hand_terminal(l, pid, e);
		int ms = ms_until(now, earliest(deadline, kill_at));
		if (wait_some(l, pid, pidfd, cap >= 0 && (ms < 0 || ms > cap) ? cap : ms))
			break;
	}
	if (e->interrupted && !l->follow)
		kill(-pid, SIGKILL); /* what is left of the run's group */
}
