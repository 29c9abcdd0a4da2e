/* ldprof: where a dynamically linked program's startup time goes. */
#include <locale.h>
#include <string.h>

#include "base/util.h"
#include "cmd/commands.h"

/* A command without arguments. */
static int run_named(const char *name)
{
	const struct command *cmd = find_command(name);

	return cmd->fn(cmd, 1, (char *[]){(char *)name, NULL});
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int status;

	/* Only the character type: JSON numbers need the C decimal point. */
	setlocale(LC_CTYPE, "");
	if (argc < 2)
		return run_named("help") | EXIT_USAGE;
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return run_named("help") | finish_stdout();
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return run_named("version") | finish_stdout();
	/* The default command: "ldprof ./prog args" and "ldprof -n 5 prog". */
	if ((cmd = find_command(argv[1]))) {
		status = cmd->fn(cmd, argc - 1, argv + 1);
	} else {
		cmd = default_command();
		argv[0] = (char *)cmd->name;
		status = cmd->fn(cmd, argc, argv);
	}
	return status ? status : finish_stdout();
}
