/*
 * Waiting for one run to end (launch.c's part, apart): its pidfd wakes us
 * (or SIGCHLD, without pidfds), and so does SIGINT. Ctrl-C is passed on to
 * the run's group, which is killed after INTERRUPT_GRACE_NS; the timeout
 * kills it at once; a run stopped for the terminal gets it (terminal.h).
 */
#ifndef LDPROF_LAUNCH_WAIT_H
#define LDPROF_LAUNCH_WAIT_H

#include "run/launch.h"

struct run_end {
	bool timed_out, interrupted;
	bool tty_handed; /* stopped for the terminal, then given it */
};

/*
 * Until pid (the leader of the run's group) exits; it is not reaped. With
 * -f (l->follow), until every process of the tree has exited and been
 * reaped (follow.h): the timeout and Ctrl-C then reach every process of
 * the tree that is still alive, whatever its process group.
 */
void launch_wait(struct launcher *l, pid_t pid, int pidfd, struct run_end *e);

#endif
