#include "cmd/options.h"

#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/out/outpath.h"
#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "render/output.h"

/* More than any command has; a table that overflows fails the first test that runs it. */
#define MAX_OPTS 64
/* getopt_long's value for the long option opts[i]: above every letter. */
#define LONG_BASE 256

struct optset {
	const struct opt *o[MAX_OPTS];
	size_t n;
};

static void flatten(const struct opt *opts, struct optset *s)
{
	for (; opts->type != OPTT_END; opts++) {
		if (opts->type == OPTT_INCLUDE)
			flatten(opts->value, s);
		else if (s->n < MAX_OPTS)
			s->o[s->n++] = opts;
		else
			abort(); /* a table this size is a programming error */
	}
}

/* "--runs", or "-n" for an option without a long name, for the messages. */
static const char *opt_name(const struct opt *o, char buf[64])
{
	if (o->long_name)
		snprintf(buf, 64, "--%s", o->long_name);
	else
		snprintf(buf, 64, "-%c", o->short_name);
	return buf;
}

/* Into a bool, an enum or any unsigned type, by its size. */
static void store_unsigned(void *p, size_t size, unsigned long v)
{
	switch (size) {
	case sizeof(unsigned char):
		*(unsigned char *)p = (unsigned char)v;
		break;
	case sizeof(unsigned short):
		*(unsigned short *)p = (unsigned short)v;
		break;
	case sizeof(unsigned):
		*(unsigned *)p = (unsigned)v;
		break;
	default:
		*(unsigned long *)p = v;
		break;
	}
}

/* "a, b or c" from the names whose bit is in mask (all when mask is 0). */
static void list_names(char *buf, size_t n, const char *const *names, unsigned long mask)
{
	const char *pick[32];
	size_t k = 0, len = 0;

	for (size_t i = 0; names[i] && k < ARRAY_SIZE(pick); i++)
		if (!mask || (mask >> i & 1))
			pick[k++] = names[i];
	buf[0] = '\0';
	for (size_t i = 0; i < k && len < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 < k ? ", " : " or ";
		len += (size_t)snprintf(buf + len, n - len, "%s%s", sep, pick[i]);
	}
}

static int choose(const char *cmd, const struct opt *o, const char *arg, const char *const *names,
		  unsigned long mask, size_t *index)
{
	char list[256], nb[64];

	for (size_t i = 0; names[i]; i++)
		if ((!mask || (mask >> i & 1)) && !strcmp(arg, names[i])) {
			*index = i;
			return 0;
		}
	list_names(list, sizeof list, names, mask);
	return usage_error(cmd, "%s wants %s, not '%s'", opt_name(o, nb), list, arg);
}

/* Store one option's value; 0, or an exit status after a usage error. */
static int apply(const char *cmd, const struct opt *o, const char *arg)
{
	unsigned long v;
	struct errbuf err;
	size_t i;
	char nb[64];

	switch (o->type) {
	case OPTT_SET:
		store_unsigned(o->value, o->size, o->num_min);
		return 0;
	case OPTT_UNSIGNED:
		if (parse_ulong(arg, o->num_min, o->num_max, &v))
			return usage_error(cmd, "%s wants a number from %lu to %lu, not '%s'",
					   opt_name(o, nb), o->num_min, o->num_max, arg);
		store_unsigned(o->value, o->size, v);
		return 0;
	case OPTT_SECONDS:
		if (parse_seconds(arg, o->value))
			return usage_error(cmd, "%s wants seconds, not '%s'", opt_name(o, nb), arg);
		return 0;
	case OPTT_STRING:
	case OPTT_OUTPUT:
		*(const char **)o->value = arg;
		return 0;
	case OPTT_CHOICE:
		if (choose(cmd, o, arg, o->choices, 0, &i))
			return EXIT_USAGE;
		*(const char **)o->value = o->choices[i];
		return 0;
	case OPTT_FORMAT:
		if (choose(cmd, o, arg, out_format_names, o->num_max, &i))
			return EXIT_USAGE;
		*(enum out_format *)o->value = (enum out_format)i;
		return 0;
	case OPTT_CALLBACK:
		if (o->callback(o->value, arg, &err))
			return usage_error(cmd, "%s", err.msg);
		return 0;
	default:
		return 0;
	}
}

/* getopt_long's tables for the options in s; the caller frees *longs. */
static void getopt_tables(const struct optset *s, bool options_first, char *shorts,
			  struct option **longs)
{
	size_t n = 0, k = 0;

	*longs = xcalloc(s->n + 1, sizeof **longs);
	if (options_first)
		shorts[n++] = '+'; /* else getopt permutes, and options may follow operands */
	shorts[n++] = ':';	   /* a missing value is ':', not '?' */
	for (size_t i = 0; i < s->n; i++) {
		const struct opt *o = s->o[i];
		if (o->type == OPTT_GROUP)
			continue;
		if (o->short_name) {
			shorts[n++] = (char)o->short_name;
			if (o->argh)
				shorts[n++] = ':';
		}
		if (o->long_name)
			(*longs)[k++] = (struct option){o->long_name,
							o->argh ? required_argument : no_argument,
							NULL, LONG_BASE + (int)i};
	}
	shorts[n] = '\0';
}

static const struct opt *find_opt(const struct optset *s, int c)
{
	if (c >= LONG_BASE && (size_t)(c - LONG_BASE) < s->n)
		return s->o[c - LONG_BASE];
	for (size_t i = 0; i < s->n; i++)
		if (s->o[i]->type != OPTT_GROUP && s->o[i]->short_name == c)
			return s->o[i];
	return NULL;
}

/* The message for getopt's ':' and '?'; word is the argument getopt stopped at. */
static int bad_option(const char *cmd, const struct optset *s, int c, const char *word)
{
	const struct opt *o = optopt ? find_opt(s, optopt) : NULL;
	char nb[64];

	if (c == ':' && optopt < LONG_BASE)
		return usage_error(cmd, "option '-%c' needs a value", optopt);
	if (c == ':')
		return usage_error(cmd, "option '%s' needs a value", o ? opt_name(o, nb) : word);
	if (o && !strncmp(word, "--", 2))
		return usage_error(cmd, "option '%s' takes no value", opt_name(o, nb));
	if (optopt && optopt < LONG_BASE)
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", word);
}

/* The options; -1 when all were good, else an exit status. */
static int parse_opts(const struct command *c, int argc, char **argv, const struct optset *s,
		      const struct opt *opts)
{
	char shorts[2 * MAX_OPTS + 4];
	struct option *longs;
	int ch, r = -1;

	getopt_tables(s, c->flags & CMD_OPTIONS_FIRST, shorts, &longs);
	opterr = 0;
	optind = 0; /* not 1: glibc then also forgets the last option string's ordering */
	while (r < 0 && (ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt *o = find_opt(s, ch);
		if (ch == ':' || ch == '?')
			r = bad_option(c->name, s, ch, argv[optind - 1]);
		else if (o && o->type == OPTT_HELP)
			print_usage_with(c, opts), r = EXIT_OK;
		else if (o && apply(c->name, o, optarg))
			r = EXIT_USAGE;
	}
	free(longs);
	return r;
}

static int check_operands(const struct command *c, int n, char **op)
{
	if (n < c->min_operands)
		return c->min_operands > 1 ? usage_error(c->name, "%s, got %d", c->missing, n)
					   : usage_error(c->name, "%s", c->missing);
	if (n > c->max_operands) {
		if (c->min_operands > 1 && c->min_operands == c->max_operands)
			return usage_error(c->name, "%s, got %d", c->extra, n);
		if (c->extra)
			return usage_error(c->name, "%s ('%s' is extra)", c->extra,
					   op[c->max_operands]);
		return usage_error(c->name, "unexpected argument '%s'", op[c->max_operands]);
	}
	return -1;
}

/* An input operand -o would overwrite; a program is one only when named by a path. */
static const char *overwritten_input(const struct command *c, const struct outpath *out, int n,
				     char **op)
{
	for (int i = 0; i < n && i < c->inputs; i++)
		if ((!(c->flags & CMD_PROGRAMS) || strchr(op[i], '/')) &&
		    outpath_is_file(out, op[i]))
			return op[i];
	return NULL;
}

/* Every -o the options gave, checked before anything runs. */
static int check_outputs(const struct command *c, const struct optset *s, int n, char **op)
{
	for (size_t i = 0; i < s->n; i++) {
		const char *path, *input;
		struct outpath out;
		struct errbuf err;
		if (s->o[i]->type != OPTT_OUTPUT || !(path = *(const char **)s->o[i]->value))
			continue;
		if (outpath_resolve(path, 0, &out, &err)) {
			error_msg("-o %s", err.msg);
			return c->output_error;
		}
		input = overwritten_input(c, &out, n, op);
		outpath_free(&out);
		if (input) {
			error_msg("-o %s: is the input %s; refusing to overwrite it", path, input);
			return c->output_error;
		}
	}
	return -1;
}

int parse_options(const struct command *c, int argc, char **argv, const struct opt *opts,
		  int *first)
{
	struct optset s = {.n = 0};
	int r;

	flatten(opts, &s);
	if ((r = parse_opts(c, argc, argv, &s, opts)) >= 0)
		return r;
	*first = optind;
	if ((r = check_operands(c, argc - optind, argv + optind)) >= 0)
		return r;
	return check_outputs(c, &s, argc - optind, argv + optind);
}

/* "  -n, --runs N", as the usage shows it. */
static int opt_left(const struct opt *o, char *buf, size_t n)
{
	int len = snprintf(buf, n, "  ");

	if (o->short_name)
		len += snprintf(buf + len, n - (size_t)len, "-%c%s", o->short_name,
				o->long_name ? ", " : "");
	else
		len += snprintf(buf + len, n - (size_t)len, "    ");
	if (o->long_name)
		len += snprintf(buf + len, n - (size_t)len, "--%s", o->long_name);
	if (o->argh)
		len += snprintf(buf + len, n - (size_t)len, " %s", o->argh);
	return len;
}

/* The help column: 22, or up to 26 for longer option names. */
static int help_column(const struct optset *s)
{
	int widest = 0;
	char buf[128];

	for (size_t i = 0; i < s->n; i++)
		if (s->o[i]->type != OPTT_GROUP) {
			int len = opt_left(s->o[i], buf, sizeof buf);
			widest = len > widest ? len : widest;
		}
	return widest + 1 < 22 ? 22 : widest + 1 > 26 ? 26 : widest + 1;
}

static void print_opt(const struct opt *o, int col)
{
	char left[128];
	int len = opt_left(o, left, sizeof left);
	const char *h = o->help, *nl;

	printf("%s%*s", left, len < col ? col - len : 2, "");
	while ((nl = strchr(h, '\n'))) {
		printf("%.*s\n%*s", (int)(nl - h), h, col, "");
		h = nl + 1;
	}
	printf("%s\n", h);
}

void print_usage_with(const struct command *c, const struct opt *opts)
{
	struct optset s = {.n = 0};
	int col;

	flatten(opts, &s);
	col = help_column(&s);
	fputs(c->usage, stdout);
	for (size_t i = 0; i < s.n; i++) {
		if (s.o[i]->type == OPTT_GROUP)
			printf("\n%s\n", s.o[i]->help);
		else
			print_opt(s.o[i], col);
	}
	if (c->epilogue)
		fputs(c->epilogue, stdout);
}

const char *const color_choices[] = {"auto", "always", "never", NULL};

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ldprof %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ldprof %s --help'.\n", cmd);
	return EXIT_USAGE;
}
