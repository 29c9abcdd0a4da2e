/* ldprof help and ldprof version. */
#include <stdio.h>
#include <string.h>

#include "base/version.h"
#include "cmd/commands.h"
#include "cmd/options.h"

const char usage_help[] = "usage: ldprof help [COMMAND]\n"
			  "\n"
			  "Without COMMAND, list the commands; with one, show its options.\n";

const char usage_version[] = "usage: ldprof version\n"
			     "\n"
			     "Print ldprof's version.\n";

static void list_commands(void)
{
	printf("usage: ldprof [run] [OPTIONS] [--] PROGRAM [ARGS...]\n"
	       "       ldprof COMMAND [OPTIONS] ...\n\n"
	       "ldprof runs a dynamically linked program many times under a small shim and\n"
	       "shows where its startup time went: exec, loading, relocation, constructors,\n"
	       "main and exit, per phase and per library.\n\n"
	       "Commands:\n");
	for (const struct command *c = commands; c->name; c++)
		printf("  %-10s %s\n", c->name, c->help);
	printf("\nSee 'ldprof help COMMAND' or 'man ldprof'.\n");
}

int cmd_help(int argc, char **argv)
{
	const struct opt opts[] = {OPT_GROUP("Options:"), OPT_HELP(), OPT_END()};
	const struct command *c;
	int first, r;

	if ((r = parse_options("help", argc, argv, opts, &first)) >= 0)
		return r;
	if (first == argc) {
		list_commands();
		return EXIT_OK;
	}
	if (!(c = find_command(argv[first])))
		return usage_error("help", "no such command: %s", argv[first]);
	/* Each command's usage comes from its own option table: ask it. */
	return c->fn(2, (char *[]){(char *)c->name, "--help", NULL});
}

int cmd_version(int argc, char **argv)
{
	const struct opt opts[] = {OPT_GROUP("Options:"), OPT_HELP(), OPT_END()};
	int first, r;

	if ((r = parse_options("version", argc, argv, opts, &first)) >= 0)
		return r;
	printf("ldprof %s\n", LDPROF_VERSION);
	return EXIT_OK;
}
