/* Unit tests for the option driver (cmd/options.c): typed values, operands, messages. */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "cmd/commands.h"
#include "cmd/common-options.h"

static const struct command permuting = {.name = "t",
					 .usage = "usage: t\n",
					 .min_operands = 1,
					 .max_operands = 2,
					 .missing = "no FILE given",
					 .inputs = OPERANDS_ANY,
					 .output_error = EXIT_FAIL};
static const struct command options_first = {.name = "t",
					     .usage = "usage: t\n",
					     .max_operands = OPERANDS_ANY,
					     .flags = CMD_OPTIONS_FIRST};

struct vals {
	unsigned u;
	unsigned long ul;
	double sec;
	bool flag;
	const char *color, *out;
	enum out_format format;
};

/* Parse the words with a table of every type; the exit status, -1 to go on. */
/* What the last parse printed on stderr. */
static char msg[1024];

static int parse(const struct command *c, struct vals *v, int *first, char **argv)
{
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		OPT_UNSIGNED('u', "u", "N", &v->u, 1, 10, "an unsigned"),
		OPT_UNSIGNED(0, "ul", "N", &v->ul, 0, 1ul << 40, "an unsigned long"),
		OPT_SECONDS(0, "sec", "SEC", &v->sec, "seconds"),
		OPT_BOOL('f', "flag", &v->flag, "a flag"),
		OPT_COLOR(&v->color),
		OPT_FORMAT(&v->format, FORMAT_BIT(OUT_TEXT) | FORMAT_BIT(OUT_CSV), "text or csv"),
		OPT_JSON(&v->format),
		OPT_OUTPUT(&v->out, "output"),
		OPT_END(),
	};
	FILE *err = tmpfile();
	int argc = 0, saved = dup(2), r;
	size_t n;

	while (argv[argc])
		argc++;
	memset(v, 0, sizeof *v);
	fflush(stderr);
	dup2(fileno(err), 2); /* the usage errors are expected: kept in msg */
	r = parse_options(c, argc, argv, opts, first);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	n = fread(msg, 1, sizeof msg - 1, err);
	msg[n] = '\0';
	fclose(err);
	return r;
}

int main(void)
{
	struct vals v;
	int first;

	CHECK(parse(&permuting, &v, &first,
		    (char *[]){"t", "-u", "7", "--ul=1099511627776", "a", "--sec", "0.5", "-f",
			       "--color", "never", "--format", "csv", NULL}) == -1);
	CHECK(v.u == 7 && v.ul == 1ul << 40 && v.sec == 0.5 && v.flag);
	CHECK(v.color && !strcmp(v.color, "never") && v.format == OUT_CSV);
	CHECK(first == 11); /* permuted: the operand comes last */
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "--json", "a", NULL}) == -1 &&
	      v.format == OUT_JSON);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "--fl", "a", NULL}) == -1 && v.flag);

	/* Bad values, missing values, unknown options, operand counts. */
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "-u", "11", "a", NULL}) == EXIT_USAGE);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "--sec", "-1", "a", NULL}) ==
	      EXIT_USAGE);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "--format", "json", "a", NULL}) ==
	      EXIT_USAGE);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "a", "-u", NULL}) == EXIT_USAGE);
	/* A missing value and an unknown option are told apart (the ':' first). */
	CHECK(strstr(msg, "option '-u' needs a value") != NULL);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "-x", "a", NULL}) == EXIT_USAGE);
	CHECK(strstr(msg, "unknown option '-x'") != NULL && !strstr(msg, "needs a value"));
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "--flag=1", "a", NULL}) == EXIT_USAGE);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", NULL}) == EXIT_USAGE);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "a", "b", "c", NULL}) == EXIT_USAGE);
	/* -o is checked before anything runs, and never an input. */
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "-o", "/no/such/dir/x", "a", NULL}) ==
	      EXIT_FAIL);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "-o", "/bin/sh", "/bin/sh", NULL}) ==
	      EXIT_FAIL);
	CHECK(parse(&permuting, &v, &first, (char *[]){"t", "-o", "-", "/bin/sh", NULL}) == -1);

	/* Options first: the program's own options are its operands. */
	CHECK(parse(&options_first, &v, &first, (char *[]){"t", "-f", "prog", "-u", "x", NULL}) ==
	      -1);
	CHECK(first == 2 && v.flag && v.u == 0);
	CHECK(parse(&options_first, &v, &first, (char *[]){"t", "--", "-u", NULL}) == -1 &&
	      first == 2);
	return unit_done("options_test");
}
