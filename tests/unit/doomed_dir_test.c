/*
 * Unit tests for base/doomed-dir: a signal that ends ldprof inside an
 * interrupt scope removes the doomed directory with its files (more of
 * them than one getdents64 buffer holds, so that the handler reads the
 * directory while it empties it); an undoomed one stays.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "base/doomed-dir.h"
#include "base/interrupt.h"

#define NFILES 300 /* about 120 entries fill the handler's 4 KiB buffer */

static void make_dir(char *dir)
{
	strcpy(dir, "/tmp/ldprof-doomed-test.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	for (int i = 0; i < NFILES; i++) {
		char path[128];
		snprintf(path, sizeof path, "%s/a-file-with-a-longer-name-%03d", dir, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
	}
}

/* A child that dooms dir (or not), then dies of sig; its wait status. */
static int die_in_scope(const char *dir, bool doom, int sig)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none); /* SIGQUIT's core file, left nowhere */
		interrupt_begin();
		doomed_dir_set(dir);
		if (!doom)
			doomed_dir_set(NULL);
		raise(sig);
		_exit(0); /* not reached: the handler ends the process by sig */
	}
	CHECK(pid > 0);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return st;
}

static bool exists(const char *path)
{
	struct stat s;

	return stat(path, &s) == 0;
}

int main(void)
{
	const int sigs[] = {SIGTERM, SIGHUP, SIGQUIT};
	char dir[64];

	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		make_dir(dir);
		int st = die_in_scope(dir, true, sigs[i]);
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i]);
		CHECK(!exists(dir));
	}
	make_dir(dir);
	int st = die_in_scope(dir, false, SIGTERM);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK(exists(dir));
	char *cmd = malloc(strlen(dir) + 16);
	sprintf(cmd, "rm -rf -- '%s'", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	return unit_done("doomed_dir");
}
