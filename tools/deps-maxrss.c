/*
 * deps-maxrss COMMAND [ARGS...]: run COMMAND, then print its peak RSS in
 * KiB on stderr as "maxrss KIB". A forked child's peak RSS starts at its
 * parent's size, so the bench measures through this small program rather
 * than from Python (which would count its own megabytes). Not installed.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: deps-maxrss COMMAND [ARGS...]\n", stderr);
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 1;
	fprintf(stderr, "maxrss %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
