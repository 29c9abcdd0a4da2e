/*
 * The controlling terminal across runs. Each run is a process group of its
 * own (launch.h), which the terminal treats as a background job: a program
 * that touches the terminal (tcsetattr, reading /dev/tty) is stopped by
 * SIGTTOU or SIGTTIN. When ldprof is in the foreground, the launcher then
 * hands the terminal to the run's group and continues it, as a shell's fg
 * would, and gives it to every later run from its start; ldprof takes it
 * back after each run. Meanwhile Ctrl-C reaches the program, not ldprof.
 */
#ifndef LDPROF_TERMINAL_H
#define LDPROF_TERMINAL_H

#include <stdbool.h>
#include <sys/types.h>

struct terminal {
	int fd;	   /* /dev/tty, or -1: no controlling terminal, nothing to do */
	bool give; /* a run wanted it: give it to each run from its start */
};

void terminal_open(struct terminal *t);
void terminal_close(struct terminal *t);

/* Is ldprof's process group the terminal's foreground group? */
bool terminal_ours(const struct terminal *t);

/* Make pgid the foreground group; works from a background group too. */
void terminal_give(const struct terminal *t, pid_t pgid);

/* Was pid stopped for using the terminal (SIGTTIN, SIGTTOU)? Not reaped. */
bool terminal_stopped(pid_t pid);

#endif
