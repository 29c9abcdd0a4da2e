/*
 * The command table: one entry per command drives dispatch, `ldprof help`
 * and the test that runs -h on every command. One file per command.
 */
#ifndef LDPROF_COMMANDS_H
#define LDPROF_COMMANDS_H

#include <stdio.h>

/* Exit statuses shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* the work could not be done (a run failed, ...) */
	EXIT_USAGE = 2, /* bad options or bad input */
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0] is the command's name */
	const char *help;		  /* one line for `ldprof help` */
	const char *usage;		  /* the full text for -h */
};

extern const struct command commands[];
const struct command *find_command(const char *name);
/* Print cmd's usage to f; returns EXIT_OK. */
int print_usage(const struct command *cmd, FILE *f);
/* A usage error: message, a hint at -h, EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int cmd_run(int argc, char **argv);
int cmd_deps(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

extern const char usage_run[], usage_deps[], usage_help[], usage_version[];
extern const char usage_record[], usage_report[], usage_diff[], usage_compare[];
extern const char usage_calibrate[], usage_audit[];

#endif
