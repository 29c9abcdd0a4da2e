#include "run/terminal.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

void terminal_open(struct terminal *t)
{
	t->fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
	t->give = false;
}

void terminal_close(struct terminal *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->give = false;
}

bool terminal_ours(const struct terminal *t)
{
	return t->fd >= 0 && tcgetpgrp(t->fd) == getpgrp();
}

void terminal_give(const struct terminal *t, pid_t pgid)
{
	sigset_t ttou, old;

	if (t->fd < 0)
		return;
	/* From a background group tcsetpgrp raises SIGTTOU, unless blocked. */
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	tcsetpgrp(t->fd, pgid);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

bool terminal_stopped(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOHANG | WNOWAIT) || si.si_pid != pid)
		return false;
	return si.si_code == CLD_STOPPED && (si.si_status == SIGTTIN || si.si_status == SIGTTOU);
}
