/*
 * spawn_start: the program gets the caller's signal state, its fds as
 * asked, and the exec time; a child that cannot exec says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "run/spawn.h"
#include "unit.h"

/* The hex mask of a /proc/PID/status line, from cat's own status. */
static unsigned long long status_mask(const char *text, const char *field)
{
	const char *p = strstr(text, field);

	return p ? strtoull(p + strlen(field), NULL, 16) : ~0ull;
}

static struct ldprof_shm_header *shared_header(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	return p;
}

/* A child that runs path with nothing else to do: every fd left alone, no gate. */
static struct spawn_args plain_args(const char *path, char **argv, char **envp)
{
	return (struct spawn_args){.path = path, .argv = argv, .envp = envp, .tty_fd = -1,
				   .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1,
				   .inherit_fd = -1, .gate_fd = -1, .gate_wfd = -1,
				   .hdr = shared_header()};
}

static void caller_signals_reach_the_program(void)
{
	struct spawner sp;
	struct errbuf err;
	char *argv[] = {"cat", "/proc/self/status", NULL}, *envp[] = {NULL};
	struct spawn_args a = plain_args("/bin/cat", argv, envp);
	char text[8192] = "";
	int out[2], st;
	sigset_t m;

	signal(SIGQUIT, SIG_IGN); /* the caller's: stays ignored */
	signal(SIGCHLD, SIG_IGN); /* ldprof takes it: back to ignored in the program */
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL);
	interrupt_begin();
	CHECK(spawn_init(&sp, &err) == 0);
	CHECK(pipe(out) == 0);
	a.stdout_fd = out[1];
	pid_t pid = spawn_start(&sp, &a, &err);
	CHECK(pid > 0);
	close(out[1]);
	for (size_t n = 0; n < sizeof text - 1;) {
		ssize_t r = read(out[0], text + n, sizeof text - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unsigned long long ign = status_mask(text, "SigIgn:"), blk = status_mask(text, "SigBlk:");
	CHECK(ign & (1ull << (SIGQUIT - 1)));
	CHECK(ign & (1ull << (SIGCHLD - 1)));
	CHECK(!(ign & (1ull << (SIGINT - 1))));	/* ldprof's handler: the default again */
	CHECK(blk == 1ull << (SIGUSR1 - 1));	/* the caller's mask, nothing of ldprof's */
	CHECK(a.hdr->pid == pid && a.hdr->exec_ts != 0);
	interrupt_end();
	spawn_fini(&sp);
	close(out[0]);
	sigprocmask(SIG_UNBLOCK, &m, NULL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
}

static void a_failed_exec_says_why(void)
{
	struct spawner sp;
	struct errbuf err;
	char *argv[] = {"nope", NULL}, *envp[] = {NULL};
	struct spawn_args a = plain_args("/nonexistent/nope", argv, envp);
	int st;

	CHECK(spawn_init(&sp, &err) == 0);
	pid_t pid = spawn_start(&sp, &a, &err);
	CHECK(pid > 0);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 127);
	CHECK(a.hdr->exec_errno == ENOENT);
	spawn_fini(&sp);
}

/* A gate that closes without a byte: the child exits 127 before exec. */
static void a_closed_gate_stops_the_child(void)
{
	struct spawner sp;
	struct errbuf err;
	char *argv[] = {"true", NULL}, *envp[] = {NULL};
	struct spawn_args a = plain_args("/bin/true", argv, envp);
	int gate[2], st;

	CHECK(spawn_init(&sp, &err) == 0);
	CHECK(pipe(gate) == 0);
	a.gate_fd = gate[0];
	a.gate_wfd = gate[1];
	pid_t pid = spawn_start(&sp, &a, &err);
	CHECK(pid > 0);
	close(gate[1]);
	close(gate[0]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 127);
	CHECK(a.hdr->exec_ts == 0 && a.hdr->pid == 0);
	spawn_fini(&sp);
}

int main(void)
{
	caller_signals_reach_the_program();
	a_failed_exec_says_why();
	a_closed_gate_stops_the_child();
	return unit_done("spawn_test");
}
