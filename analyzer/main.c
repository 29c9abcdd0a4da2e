/* ldprof: where a dynamically linked program's startup time goes. */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "base/util.h"

const struct command commands[] = {
	{"run", cmd_run, "run a program many times and show where its startup went (default)",
	 usage_run},
	{"compare", cmd_compare, "run two programs interleaved and compare their start-up",
	 usage_compare},
	{"calibrate", cmd_calibrate, "fit the relocation cost model on this machine",
	 usage_calibrate},
	{"record", cmd_record, "run a program like run and save the trace to a file", usage_record},
	{"report", cmd_report, "show a saved trace in any format", usage_report},
	{"diff", cmd_diff, "compare two saved traces; fail on a regression", usage_diff},
	{"audit", cmd_audit, "rank a system's programs by their modelled loader cost", usage_audit},
	{"deps", cmd_deps, "show what ld.so will load and bind, and what it costs", usage_deps},
	{"help", cmd_help, "show this list, or one command's options", usage_help},
	{"version", cmd_version, "print ldprof's version", usage_version},
	{NULL, NULL, NULL, NULL},
};

const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int print_usage(const struct command *cmd, FILE *f)
{
	fputs(cmd->usage, f);
	return EXIT_OK;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ldprof %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ldprof %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	int status;

	/* Only the character type: JSON numbers need the C decimal point. */
	setlocale(LC_CTYPE, "");
	if (argc < 2) {
		cmd_help(1, (char *[]){"help", NULL});
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cmd_help(1, (char *[]){"help", NULL}) | finish_stdout();
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(1, (char *[]){"version", NULL}) | finish_stdout();
	/* `run` is the default: "ldprof ./prog args" and "ldprof -n 5 prog". */
	cmd = find_command(argv[1]);
	if (cmd)
		status = cmd->fn(argc - 1, argv + 1);
	else
		status = cmd_run(argc, (argv[0] = "run", argv));
	return status ? status : finish_stdout();
}
