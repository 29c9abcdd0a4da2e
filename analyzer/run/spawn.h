/*
 * Starting the program of a run: a child that shares ldprof's memory
 * (clone with CLONE_VM, as posix_spawn does) and execs it.
 *
 * Why not fork: execve first tears down the caller's address space, and
 * a forked child's is a copy of ldprof's. That teardown is inside the run's
 * exec phase, which starts just before execve: ~22 us per MiB that the
 * caller has written here (87 us for 4 MiB, 364 us for 16 MiB; 0.9 ms for
 * a sanitized ldprof), growing with ldprof's heap, none of it the
 * program's. A child that shares the memory
 * owns none of it, and its execve only lets go of it. It also takes none
 * of fork's copy-on-write faults, which counted in the run's minflt.
 *
 * The child calls no libc function (they may write errno, which is
 * ldprof's too): raw system calls only, from what spawn_start copied for
 * it, since ldprof goes on meanwhile and may change its own state.
 */
#ifndef LDPROF_SPAWN_H
#define LDPROF_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ldprof-record.h"
#include "base/util.h"

#define SPAWN_MAX_SIGS 16

/* What the child does before execve, in this order. */
struct spawn_args {
	const char *path;
	char *const *argv, *const *envp;
	int tty_fd;		 /* >= 0: make the child's group the terminal's foreground */
	int stdin_fd, stdout_fd, stderr_fd; /* >= 0: dup2'd onto 0, 1, 2 */
	int inherit_fd;		 /* >= 0: its close-on-exec flag cleared */
	int gate_fd, gate_wfd;	 /* >= 0: wait for one byte on gate_fd (closing gate_wfd) */
	struct ldprof_shm_header *hdr; /* gets the child's pid, the exec time, execve's errno */
	/* Filled by spawn_start: the caller's signal state (interrupt.h). */
	int sigs[SPAWN_MAX_SIGS];
	bool ignored[SPAWN_MAX_SIGS];
	size_t nsigs;
	unsigned long caller_mask; /* the kernel's 64-bit mask */
};

/* The child's stack, made once (spawn_init) and kept: one child at a time. */
struct spawner {
	void *stack;
	size_t stack_size;
	struct spawn_args args; /* the running child's; unchanged until it is reaped */
};

int spawn_init(struct spawner *s, struct errbuf *err);
void spawn_fini(struct spawner *s);

/*
 * Start a child doing args (copied into s) and return its pid, or -errno
 * in err. The child exits 127 when the gate closes without a byte or
 * execve fails (its errno then in hdr->exec_errno).
 */
pid_t spawn_start(struct spawner *s, const struct spawn_args *args, struct errbuf *err);

#endif
