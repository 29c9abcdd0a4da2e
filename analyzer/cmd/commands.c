/*
 * The command table, and `ldprof help`, which prints it: help lives here
 * because it reads the table, which names it (apart, the two would call
 * each other).
 */
#include "cmd/commands.h"

#include <stdio.h>
#include <string.h>

#include "cmd/options.h"

const struct command commands[] = {
	{.name = "run",
	 .fn = cmd_run,
	 .help = "run a program many times and show where its startup went (default)",
	 .usage = usage_run,
	 .epilogue = epilogue_run,
	 .min_operands = 1,
	 .max_operands = OPERANDS_ANY,
	 .missing = "no program given",
	 .inputs = 1,
	 .output_error = EXIT_FAIL,
	 .flags = CMD_DEFAULT | CMD_OPTIONS_FIRST | CMD_PROGRAMS},
	{.name = "compare",
	 .fn = cmd_compare,
	 .help = "run two programs interleaved and compare their start-up",
	 .usage = usage_compare,
	 .epilogue = epilogue_compare,
	 .min_operands = 2,
	 .max_operands = OPERANDS_ANY,
	 .missing = "want PROGRAM_A PROGRAM_B -- ARGS, or two quoted commands",
	 .inputs = 2,
	 .output_error = EXIT_FAIL,
	 .flags = CMD_OPTIONS_FIRST | CMD_PROGRAMS},
	{.name = "calibrate",
	 .fn = cmd_calibrate,
	 .help = "fit the relocation cost model on this machine",
	 .usage = usage_calibrate,
	 .output_error = EXIT_FAIL,
	 .flags = CMD_OPTIONS_FIRST},
	{.name = "record",
	 .fn = cmd_record,
	 .help = "run a program like run and save the trace to a file",
	 .usage = usage_record,
	 .epilogue = epilogue_record,
	 .min_operands = 1,
	 .max_operands = OPERANDS_ANY,
	 .missing = "no program given",
	 .inputs = 1,
	 .output_error = EXIT_FAIL,
	 .flags = CMD_OPTIONS_FIRST | CMD_PROGRAMS},
	{.name = "report",
	 .fn = cmd_report,
	 .help = "show a saved trace in any format",
	 .usage = usage_report,
	 .epilogue = epilogue_report,
	 .min_operands = 1,
	 .max_operands = 1,
	 .missing = "no trace file given",
	 .extra = "one trace file at a time",
	 .inputs = OPERANDS_ANY,
	 .output_error = EXIT_FAIL},
	{.name = "diff",
	 .fn = cmd_diff,
	 .help = "compare two saved traces; fail on a regression",
	 .usage = usage_diff,
	 .epilogue = epilogue_diff,
	 .min_operands = 2,
	 .max_operands = 2,
	 .missing = "two trace files wanted (BEFORE AFTER)",
	 .extra = "two trace files wanted (BEFORE AFTER)",
	 .inputs = OPERANDS_ANY,
	 .output_error = EXIT_USAGE /* 1 is a regression */},
	{.name = "audit",
	 .fn = cmd_audit,
	 .help = "rank a system's programs by their modelled loader cost",
	 .usage = usage_audit,
	 .epilogue = epilogue_audit,
	 .min_operands = 1,
	 .max_operands = OPERANDS_ANY,
	 .missing = "no path given",
	 .inputs = OPERANDS_ANY,
	 .output_error = EXIT_FAIL,
	 .flags = CMD_OPTIONS_FIRST},
	{.name = "deps",
	 .fn = cmd_deps,
	 .help = "show what ld.so will load and bind, and what it costs",
	 .usage = usage_deps,
	 .epilogue = epilogue_deps,
	 .min_operands = 1,
	 .max_operands = OPERANDS_ANY,
	 .missing = "no FILE given",
	 .inputs = OPERANDS_ANY,
	 .output_error = EXIT_FAIL,
	 .flags = CMD_OPTIONS_FIRST},
	{.name = "help",
	 .fn = cmd_help,
	 .help = "show this list, or one command's options",
	 .usage = usage_help,
	 .max_operands = 1},
	{.name = "version",
	 .fn = cmd_version,
	 .help = "print ldprof's version",
	 .usage = usage_version},
	{.name = NULL},
};

const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

const struct command *default_command(void)
{
	for (const struct command *c = commands; c->name; c++)
		if (c->flags & CMD_DEFAULT)
			return c;
	return NULL;
}

const char usage_help[] = "usage: ldprof help [COMMAND]\n"
			  "\n"
			  "Without COMMAND, list the commands; with one, show its options.\n";

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

int cmd_help(const struct command *cmd, int argc, char **argv)
{
	const struct opt opts[] = {OPT_GROUP("Options:"), OPT_HELP(), OPT_END()};
	const struct command *c;
	int first, r;

	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	if (first == argc) {
		list_commands();
		return EXIT_OK;
	}
	if (!(c = find_command(argv[first])))
		return usage_error("help", "no such command: %s", argv[first]);
	/* Each command's usage comes from its own option table: ask it. */
	return c->fn(c, 2, (char *[]){(char *)c->name, "--help", NULL});
}
