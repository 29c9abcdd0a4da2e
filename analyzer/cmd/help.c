#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "base/version.h"

const char usage_help[] = "usage: ldprof help [COMMAND]\n"
			  "\n"
			  "Without COMMAND, list the commands; with one, show its options.\n";

const char usage_version[] = "usage: ldprof version\n"
			     "\n"
			     "Print ldprof's version.\n";

int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return print_usage(find_command("help"), stdout);
	if (argc > 2)
		return usage_error("help", "too many arguments");
	if (argc == 2) {
		if (!(c = find_command(argv[1])))
			return usage_error("help", "no such command: %s", argv[1]);
		return print_usage(c, stdout);
	}
	printf("usage: ldprof [run] [OPTIONS] [--] PROGRAM [ARGS...]\n"
	       "       ldprof COMMAND [OPTIONS] ...\n\n"
	       "ldprof runs a dynamically linked program many times under a small shim and\n"
	       "shows where its startup time went: exec, loading, relocation, constructors,\n"
	       "main and exit, per phase and per library.\n\n"
	       "Commands:\n");
	for (c = commands; c->name; c++)
		printf("  %-10s %s\n", c->name, c->help);
	printf("\nSee 'ldprof help COMMAND' or 'man ldprof'.\n");
	return EXIT_OK;
}

int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return print_usage(find_command("version"), stdout);
	if (argc > 1)
		return usage_error("version", "unexpected argument: %s", argv[1]);
	printf("ldprof %s\n", LDPROF_VERSION);
	return EXIT_OK;
}
