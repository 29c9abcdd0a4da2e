/*
 * The option driver every command uses, in the spirit of git's
 * parse-options: a command lists its options in one table (letter, long
 * name, value name, where the value goes, help), and the driver parses
 * argv with it, checks the operand count against the command table,
 * answers -h with the usage it builds from the same table, and gives every
 * command the same messages: a missing value and an unknown option are told
 * apart everywhere.
 */
#ifndef LDPROF_OPTIONS_H
#define LDPROF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

struct command;

enum opt_type {
	OPTT_END,
	OPTT_GROUP,    /* a heading in the usage ("Options:") */
	OPTT_INCLUDE,  /* another table's options, in place */
	OPTT_HELP,     /* -h, --help */
	OPTT_SET,      /* a flag: stores num_min in *value (of size bytes) */
	OPTT_UNSIGNED, /* an unsigned number in [num_min, num_max] */
	OPTT_SECONDS,  /* a positive duration in seconds, into a double */
	OPTT_STRING,   /* the value itself, into a const char * */
	OPTT_CHOICE,   /* one of choices[], stored as the matching choices[i] */
	OPTT_FORMAT,   /* an enum out_format allowed by the num_max bit mask */
	OPTT_OUTPUT,   /* -o FILE: a path checked before any work is done */
	OPTT_CALLBACK, /* callback(value, arg, err) */
};

struct opt {
	enum opt_type type;
	int short_name; /* 0 for none */
	const char *long_name;
	const char *argh; /* the value's name in the usage; NULL for a flag */
	void *value;
	size_t size; /* OPTT_SET, OPTT_UNSIGNED: sizeof *value */
	unsigned long num_min, num_max;
	const char *const *choices; /* OPTT_CHOICE: NULL-terminated */
	int (*callback)(void *value, const char *arg, struct errbuf *err);
	const char *help; /* lines after the first are indented under it */
};

#define OPT_END()                                                                                  \
	{                                                                                          \
		.type = OPTT_END                                                                   \
	}
#define OPT_GROUP(title)                                                                           \
	{                                                                                          \
		.type = OPTT_GROUP, .help = (title)                                                \
	}
#define OPT_INCLUDE(table)                                                                         \
	{                                                                                          \
		.type = OPTT_INCLUDE, .value = (void *)(table)                                     \
	}
#define OPT_HELP()                                                                                 \
	{                                                                                          \
		.type = OPTT_HELP, .short_name = 'h', .long_name = "help",                         \
		.help = "show this help"                                                           \
	}
/* A flag: stores n in *v (a bool, an enum...). */
#define OPT_SET(s, l, v, n, h)                                                                     \
	{                                                                                          \
		.type = OPTT_SET, .short_name = (s), .long_name = (l), .value = (v),               \
		.size = sizeof *(v), .num_min = (n), .help = (h)                                   \
	}
#define OPT_BOOL(s, l, v, h) OPT_SET(s, l, v, 1, h)
#define OPT_UNSIGNED(s, l, a, v, lo, hi, h)                                                        \
	{                                                                                          \
		.type = OPTT_UNSIGNED, .short_name = (s), .long_name = (l), .argh = (a),           \
		.value = (v), .size = sizeof *(v), .num_min = (lo), .num_max = (hi), .help = (h)   \
	}
#define OPT_SECONDS(s, l, a, v, h)                                                                 \
	{                                                                                          \
		.type = OPTT_SECONDS, .short_name = (s), .long_name = (l), .argh = (a),            \
		.value = (v), .help = (h)                                                          \
	}
#define OPT_STRING(s, l, a, v, h)                                                                  \
	{                                                                                          \
		.type = OPTT_STRING, .short_name = (s), .long_name = (l), .argh = (a),             \
		.value = (v), .help = (h)                                                          \
	}
#define OPT_CHOICE(s, l, a, v, c, h)                                                               \
	{                                                                                          \
		.type = OPTT_CHOICE, .short_name = (s), .long_name = (l), .argh = (a),             \
		.value = (v), .choices = (c), .help = (h)                                          \
	}
/* --format FMT, for the formats whose bits (1 << OUT_xxx) are in mask. */
#define OPT_FORMAT(v, mask, h)                                                                     \
	{                                                                                          \
		.type = OPTT_FORMAT, .long_name = "format", .argh = "FMT", .value = (v),           \
		.num_max = (mask), .help = (h)                                                     \
	}
#define OPT_OUTPUT(v, h)                                                                           \
	{                                                                                          \
		.type = OPTT_OUTPUT, .short_name = 'o', .long_name = "output", .argh = "FILE",     \
		.value = (v), .help = (h)                                                          \
	}
#define OPT_CALLBACK(s, l, a, v, fn, h)                                                            \
	{                                                                                          \
		.type = OPTT_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a),           \
		.value = (v), .callback = (fn), .help = (h)                                        \
	}

/*
 * Parse argv (argv[0] is the command's name) with opts, for c, the entry
 * of the command table the command was called with. Stops at the first
 * operand when the command's table entry says so, else permutes. Then the
 * operand count is checked against the table, and every OPT_OUTPUT path is
 * checked before anything runs: it must be writable, and not one of the
 * operands when the command reads them. Returns -1 to go on, with *first
 * the index of the first operand, or an exit status: usage errors printed,
 * -h answered.
 */
int parse_options(const struct command *c, int argc, char **argv, const struct opt *opts,
		  int *first);

/* A usage error: "ldprof CMD: message", a hint at --help; returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The usage of cmd built from its table entry and opts, to stdout. */
void print_usage_with(const struct command *c, const struct opt *opts);

#endif
