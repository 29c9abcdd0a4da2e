/* Running a command: the few builtins, or fork + execvp + waitpid. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sh.h"

/* "exit [N]": without N the shell exits with the status of the last command. */
static int builtin_exit(struct shell *sh, int argc, char **argv)
{
	char *end;
	long n;

	sh->exiting = 1;
	if (argc < 2)
		return sh->status;
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno != 0 || end == argv[1] || *end != '\0' || n < 0 || n > INT_MAX) {
		sh_error("exit: illegal number: %s", argv[1]);
		return 2;
	}
	return (int)(n & 0xff);
}

/* "echo [-n] ARGS": no escapes, like FreeBSD's builtin without -e. */
static int builtin_echo(struct shell *sh, int argc, char **argv)
{
	int newline = 1, i = 1;

	(void)sh;
	if (argc > 1 && strcmp(argv[1], "-n") == 0) {
		newline = 0;
		i = 2;
	}
	for (; i < argc; i++) {
		fputs(argv[i], stdout);
		if (i + 1 < argc)
			putchar(' ');
	}
	if (newline)
		putchar('\n');
	/* Flush now: a child started next must not overtake our output. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		clearerr(stdout);
		sh_error("echo: write error: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* Keep PWD and OLDPWD right for the programs we start. */
static void update_pwd(void)
{
	char *cwd = getcwd(NULL, 0);
	const char *old = getenv("PWD");

	if (old != NULL)
		setenv("OLDPWD", old, 1);
	if (cwd != NULL)
		setenv("PWD", cwd, 1);
	free(cwd);
}

/* "cd [DIR]": HOME by default, "cd -" goes back to OLDPWD. */
static int builtin_cd(struct shell *sh, int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("HOME");
	int back = argc > 1 && strcmp(dir, "-") == 0;

	(void)sh;
	if (back)
		dir = getenv("OLDPWD");
	if (dir == NULL || *dir == '\0') {
		sh_error("cd: %s not set", back ? "OLDPWD" : "HOME");
		return 1;
	}
	if (chdir(dir) != 0) {
		sh_error("cd: %s: %s", dir, strerror(errno));
		return 1;
	}
	update_pwd();
	if (back)
		puts(dir);
	return 0;
}

/* "clear": the one builtin that needs terminfo (see term.c). */
static int builtin_clear(struct shell *sh, int argc, char **argv)
{
	(void)sh;
	(void)argc;
	(void)argv;
	return term_clear();
}

static const struct builtin {
	const char *name;
	int (*fn)(struct shell *sh, int argc, char **argv);
} builtins[] = {
	{"exit", builtin_exit},
	{"echo", builtin_echo},
	{"cd", builtin_cd},
	{"clear", builtin_clear},
};

/* In the child: undo what the interactive shell ignores, then exec. */
static _Noreturn void exec_child(char **argv)
{
	int err;

	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	execvp(argv[0], argv);
	err = errno;
	if (err == ENOENT || err == ENOTDIR) {
		sh_error("%s: not found", argv[0]);
		_exit(127);
	}
	sh_error("%s: %s", argv[0], strerror(err));
	_exit(126);
}

/* Turn a wait status into a shell status: 128+N for a death by signal N. */
static int wait_status(const struct shell *sh, pid_t pid)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			sh_error("waitpid: %s", strerror(errno));
			return 2;
		}
	}
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	int sig = WTERMSIG(ws);
	/* Like other shells, say why a child died unless it was expected. */
	if (sig != SIGINT && sig != SIGPIPE)
		fprintf(stderr, "%s%s\n", strsignal(sig), WCOREDUMP(ws) ? " (core dumped)" : "");
	else if (sig == SIGINT && sh->interactive)
		fputc('\n', stderr); /* the prompt goes after the ^C */
	return 128 + sig;
}

static int run_external(const struct shell *sh, char **argv)
{
	pid_t pid;

	fflush(stdout); /* or the child would inherit and repeat our buffer */
	pid = fork();
	if (pid < 0) {
		sh_error("fork: %s", strerror(errno));
		return 2;
	}
	if (pid == 0)
		exec_child(argv);
	return wait_status(sh, pid);
}

int run_command(struct shell *sh, struct words *w)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
		if (strcmp(w->v[0], builtins[i].name) == 0)
			return builtins[i].fn(sh, (int)w->n, w->v);
	}
	return run_external(sh, w->v);
}
