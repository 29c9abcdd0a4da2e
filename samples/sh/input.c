/*
 * Where command lines come from: a -c string, a script file, a pipe or
 * file on stdin, or the terminal through libedit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <histedit.h>

#include "sh.h"

/* The prompt libedit shows; input_line switches it for continuation lines. */
static const char *prompt = "$ ";

static char *show_prompt(EditLine *el)
{
	(void)el;
	return (char *)prompt;
}

/*
 * Set up line editing with history, reading ~/.editrc like FreeBSD's sh.
 * EL_SIGNAL lets libedit restore the terminal if a signal arrives while
 * it owns it.
 */
void input_edit_open(struct input *in, const char *arg0)
{
	HistEvent ev;

	in->kind = IN_EDIT;
	in->hist = history_init();
	if (in->hist != NULL) {
		history(in->hist, &ev, H_SETSIZE, 100);
		history(in->hist, &ev, H_SETUNIQUE, 1);
	}
	in->el = el_init(arg0, stdin, stdout, stderr);
	if (in->el == NULL) {
		sh_error("cannot initialise line editing");
		return;
	}
	el_set(in->el, EL_EDITOR, "emacs");
	el_set(in->el, EL_SIGNAL, 1);
	el_set(in->el, EL_PROMPT, show_prompt);
	if (in->hist != NULL)
		el_set(in->el, EL_HIST, history, in->hist);
	el_source(in->el, NULL);
}

/* Remember non-blank lines, so that up-arrow brings them back. */
static void remember(struct input *in, const char *line)
{
	HistEvent ev;

	if (in->hist != NULL && line[strspn(line, " \t\n")] != '\0')
		history(in->hist, &ev, H_ENTER, line);
}

static const char *edit_line(struct input *in, int continuation)
{
	const char *line;
	int count;

	if (in->el == NULL)
		return NULL;
	prompt = continuation ? "> " : "$ ";
	line = el_gets(in->el, &count);
	if (line == NULL || count <= 0)
		return NULL;
	remember(in, line);
	return line;
}

/*
 * Read stdin a byte at a time: a command we start may read the rest of
 * stdin itself, so we must not buffer past the end of our own line.
 */
static const char *fd_line(struct input *in)
{
	char c;
	ssize_t n;

	sb_clear(&in->line);
	while ((n = read(in->fd, &c, 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sh_error("read error: %s", strerror(errno));
			break;
		}
		sb_addc(&in->line, c);
		if (c == '\n')
			break;
	}
	return in->line.len ? in->line.s : NULL;
}

/* A script is ours alone, so stdio may buffer it. */
static const char *file_line(struct input *in)
{
	ssize_t n = getline(&in->line.s, &in->line.cap, in->fp);

	if (n < 0) {
		if (ferror(in->fp))
			sh_error("%s: %s", in->name, strerror(errno));
		return NULL;
	}
	in->line.len = (size_t)n;
	return in->line.s;
}

/*
 * The next line, with its newline if it had one, or NULL at the end.
 * "continuation" is set when the line completes an unfinished command.
 */
const char *input_line(struct input *in, int continuation)
{
	const char *s;

	switch (in->kind) {
	case IN_STRING:
		s = in->str; /* the whole -c string is one "line" */
		in->str = NULL;
		return s;
	case IN_FILE:
		return file_line(in);
	case IN_FD:
		return fd_line(in);
	case IN_EDIT:
		return edit_line(in, continuation);
	}
	return NULL;
}

void input_close(struct input *in)
{
	if (in->el != NULL)
		el_end(in->el);
	if (in->hist != NULL)
		history_end(in->hist);
	if (in->fp != NULL)
		fclose(in->fp);
	sb_free(&in->line);
}
