/*
 * Ctrl-C and the other signals while ldprof runs programs or walks files,
 * in one place for every command. The first SIGINT asks the work to stop:
 * the launcher forwards it to the program's process group, kills the group
 * after a grace, and the command reports what it has. A second SIGINT ends
 * ldprof at once (killing the program's group first). SIGTERM, SIGHUP and
 * SIGQUIT reach the program's group too, then end ldprof as they would
 * have. Ctrl-Z (SIGTSTP) stops the group with ldprof, and SIGCONT continues
 * both. When the caller ignored one of these, ldprof ignores it too.
 *
 * ldprof's own signal state is not the program's: interrupt_begin() saves
 * the caller's dispositions and mask, and the child that execs the program
 * puts them back (interrupt_caller_state), so the program gets exactly
 * what exec from the caller would give it (ignored signals stay ignored,
 * the mask is the caller's).
 */
#ifndef LDPROF_INTERRUPT_H
#define LDPROF_INTERRUPT_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <sys/types.h>

/*
 * Handle SIGINT (and the rest) until the matching interrupt_end(). Calls
 * nest: only the outermost one installs, saves the caller's state and
 * clears the request. SIGCHLD goes back to its default, so that waiting
 * works even when the caller ignored it (wait would fail with ECHILD); on a
 * kernel without pidfds it gets a handler that wakes interrupt_wake_fd().
 */
void interrupt_begin(void);
void interrupt_end(void);

/*
 * fn (async-signal-safe: unlink, rmdir) runs when a signal ends ldprof
 * between interrupt_begin() and interrupt_end(), to remove what it made
 * there; NULL for none. One at a time.
 */
void interrupt_on_death(void (*fn)(void));

/* Whether a SIGINT arrived since the outermost interrupt_begin(). */
bool interrupt_requested(void);

/*
 * Readable after SIGINT (and SIGCHLD without pidfds): poll it next to what
 * you wait for, then interrupt_drain() it. -1 outside begin/end.
 */
int interrupt_wake_fd(void);
void interrupt_drain(void);

/* Whether Ctrl-Z stopped ldprof since the last call (then clears it). */
bool interrupt_take_suspended(void);

/* The process group the signals are passed on to (0: none now). */
void interrupt_set_group(pid_t pgid);

/*
 * More processes the signals reach, wherever their group (-f: the live
 * processes of the tree); NULL or n 0 for none. The handlers read the array
 * in place: the caller keeps it unchanged until the next call replaces it.
 */
void interrupt_set_extra(const pid_t *pids, size_t n);

/*
 * The caller's signal state, for the child that execs the program
 * (run/spawn.c), which shares ldprof's memory and so may call no libc
 * function: the signals ldprof has handlers on (up to max), whether the
 * caller ignored each, and the caller's mask. Returns how many signals.
 */
size_t interrupt_caller_state(int *sigs, bool *ignored, size_t max, sigset_t *mask);

#endif
