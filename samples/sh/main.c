/*
 * sh [-i] [FILE [ARG...]]
 * sh [-i] -c STRING [ARG0 [ARG...]]
 *
 * With neither FILE nor -c, commands come from stdin, and with line
 * editing when stdin and stderr are terminals (or with -i).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

/*
 * Read and run commands until the input ends or "exit" runs.  "buf" holds
 * the text not yet run; a command left open by a quote gets the next line
 * appended and is lexed again from its start.
 */
static void run_input(struct shell *sh, struct input *in)
{
	struct strbuf buf = {0};
	size_t pos = 0;
	const char *line;

	while (!sh->exiting) {
		if (pos == buf.len) {
			if ((line = input_line(in, 0)) == NULL)
				break;
			sb_clear(&buf);
			sb_adds(&buf, line);
			pos = 0;
		}
		struct words w = {0};
		const char *p = buf.s + pos;
		enum lex_status st = lex_command(sh, &p, &w);

		if (st == LEX_MORE) {
			words_free(&w);
			if ((line = input_line(in, 1)) == NULL) {
				sh_error("unexpected end of file");
				sh->status = 2;
				break;
			}
			sb_adds(&buf, line);
			continue;
		}
		pos = (size_t)(p - buf.s);
		if (st == LEX_ERROR) {
			sh->status = 2;
			/* A script with a syntax error stops; a user retypes. */
			if (!sh->interactive)
				sh->exiting = 1;
			pos = buf.len;
		} else if (w.n > 0) {
			sh->status = run_command(sh, &w);
		}
		words_free(&w);
	}
	sb_free(&buf);
}

static _Noreturn void usage(const char *why, const char *arg)
{
	sh_error("%s%s", arg, why);
	fputs("usage: sh [-i] [-c string [arg0 [arg ...]] | file [arg ...]]\n", stderr);
	exit(2);
}

/* What to run, decided from the command line. */
struct options {
	const char *command;   /* -c STRING */
	int force_interactive; /* -i */
	int first_operand;     /* index in argv of FILE or ARG0 */
};

static struct options parse_options(int argc, char **argv)
{
	struct options o = {0};
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-i") == 0) {
			o.force_interactive = 1;
		} else if (strcmp(argv[i], "-c") == 0) {
			if (++i == argc)
				usage("-c requires an argument", "");
			o.command = argv[i];
		} else {
			usage(": unknown option", argv[i]);
		}
	}
	o.first_operand = i;
	return o;
}

/* Open the script named on the command line; the file gives $0. */
static void open_script(struct input *in, const char *path)
{
	in->kind = IN_FILE;
	in->name = path;
	in->fp = fopen(path, "re"); /* close-on-exec: not for our children */
	if (in->fp == NULL) {
		sh_error("%s: %s", path, strerror(errno));
		exit(errno == ENOENT ? 127 : 126);
	}
}

/*
 * Interactive shells survive ^C and ^\ at the prompt; children do not.
 * Line editing is only for commands typed on stdin, not for "-i -c".
 */
static void set_interactive(struct shell *sh, struct input *in)
{
	sh->interactive = 1;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (in->kind == IN_FD)
		input_edit_open(in, sh->arg0);
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv);
	char **operands = argv + o.first_operand;
	int noperands = argc - o.first_operand;
	struct shell sh = {.arg0 = argv[0]};
	struct input in = {.kind = IN_FD, .fd = STDIN_FILENO};

	if (o.command != NULL || noperands > 0) {
		/* The first operand is $0: the -c ARG0 or the script's name. */
		if (noperands > 0)
			sh.arg0 = operands[0];
		sh.params = operands + (noperands > 0);
		sh.nparams = noperands > 0 ? noperands - 1 : 0;
		if (o.command != NULL) {
			in.kind = IN_STRING;
			in.str = o.command;
		} else {
			open_script(&in, operands[0]);
		}
	}
	if (o.force_interactive ||
	    (in.kind == IN_FD && isatty(STDIN_FILENO) && isatty(STDERR_FILENO)))
		set_interactive(&sh, &in);
	run_input(&sh, &in);
	input_close(&in);
	return sh.status;
}
