/*
 * The command table: one entry per command drives dispatch, `ldprof help`,
 * each command's usage and operand count, and the tests that run -h and
 * every option on every command. One file per command.
 */
#ifndef LDPROF_COMMANDS_H
#define LDPROF_COMMANDS_H

#include <limits.h>
#include <stdio.h>

#include "base/exit.h"

enum command_flags {
	CMD_DEFAULT = 1 << 0,	    /* "ldprof ARGS" without a command name runs this one */
	CMD_OPTIONS_FIRST = 1 << 1, /* options end at the first operand (a program's own) */
	CMD_PROGRAMS = 1 << 2,	    /* the input operands are programs, found on PATH */
};

#define OPERANDS_ANY INT_MAX

struct command {
	const char *name;
	/* Called with its own entry; argv[0] is the command's name. */
	int (*fn)(const struct command *cmd, int argc, char **argv);
	const char *help;     /* one line for `ldprof help` */
	const char *usage;    /* -h: what comes before the options */
	const char *epilogue; /* -h: what comes after them, or NULL */
	int min_operands, max_operands;
	const char *missing; /* too few operands: "no program given" */
	const char *extra;   /* too many: "one trace file at a time"; NULL: "unexpected argument" */
	int inputs;	     /* the leading operands -o must not overwrite (OPERANDS_ANY: all) */
	int output_error;    /* the exit status when -o cannot be written */
	unsigned flags;
};

extern const struct command commands[];
const struct command *find_command(const char *name);
/* The command "ldprof ARGS" runs when ARGS[0] names none. */
const struct command *default_command(void);
int cmd_run(const struct command *cmd, int argc, char **argv);
int cmd_deps(const struct command *cmd, int argc, char **argv);
int cmd_record(const struct command *cmd, int argc, char **argv);
int cmd_compare(const struct command *cmd, int argc, char **argv);
int cmd_calibrate(const struct command *cmd, int argc, char **argv);
int cmd_audit(const struct command *cmd, int argc, char **argv);
int cmd_report(const struct command *cmd, int argc, char **argv);
int cmd_diff(const struct command *cmd, int argc, char **argv);
int cmd_help(const struct command *cmd, int argc, char **argv);
int cmd_version(const struct command *cmd, int argc, char **argv);

extern const char usage_run[], usage_deps[], usage_help[], usage_version[];
extern const char usage_record[], usage_report[], usage_diff[], usage_compare[];
extern const char usage_calibrate[], usage_audit[];
extern const char epilogue_run[], epilogue_deps[], epilogue_record[], epilogue_report[];
extern const char epilogue_diff[], epilogue_compare[], epilogue_audit[];

#endif
