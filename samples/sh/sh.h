/*
 * sh: a deliberately small shell used as an ldprof sample.
 *
 * It stands in for FreeBSD's /bin/sh of 2003, whose move from a static to
 * a dynamic binary (libedit, ncurses, libc) made a loop running a null
 * script about 40% slower.  The shell therefore has to be real enough to
 * run scripts and to need libedit and terminfo, and nothing more.
 */
#ifndef LDPROF_SAMPLE_SH_H
#define LDPROF_SAMPLE_SH_H

#include <stddef.h>
#include <stdio.h>

/* State shared by the parser (for $? and $1) and the builtins (exit). */
struct shell {
	int status;	  /* status of the last command: $? */
	int exiting;	  /* set by "exit": stop reading input */
	int interactive;  /* prompting, line editing, signals ignored */
	const char *arg0; /* $0 */
	char **params;	  /* $1 ... */
	int nparams;	  /* $# */
};

/* A growable string; s is always NUL-terminated once anything is added. */
struct strbuf {
	char *s;
	size_t len, cap;
};

/* A growable, NULL-terminated argument vector, ready for execvp. */
struct words {
	char **v;
	size_t n, cap;
};

/* util.c */
void sh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_adds(struct strbuf *sb, const char *s);
void sb_clear(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void words_add(struct words *w, char *word);
void words_free(struct words *w);

/* lex.c: split one command off the input, expanding as it goes. */
enum lex_status {
	LEX_OK,	  /* a command (possibly empty) was read */
	LEX_MORE, /* the text ends inside a quote: read another line */
	LEX_ERROR /* a syntax error was reported */
};
enum lex_status lex_command(const struct shell *sh, const char **pp, struct words *out);

/* exec.c */
int run_command(struct shell *sh, struct words *w);

/* term.c: the terminfo side of the terminal. */
int term_clear(void);

/*
 * input.c: where lines come from.  Only the libedit source prompts; the
 * others read the way a script needs (see input.c for why stdin is read a
 * byte at a time).
 */
enum input_kind { IN_STRING, IN_FILE, IN_FD, IN_EDIT };

struct editline;
struct history;

struct input {
	enum input_kind kind;
	const char *str;      /* IN_STRING: the -c text, NULL once read */
	FILE *fp;	      /* IN_FILE */
	const char *name;     /* IN_FILE: for error messages */
	int fd;		      /* IN_FD */
	struct editline *el;  /* IN_EDIT */
	struct history *hist; /* IN_EDIT */
	struct strbuf line;   /* IN_FILE, IN_FD: the current line */
};

void input_edit_open(struct input *in, const char *arg0);
const char *input_line(struct input *in, int continuation);
void input_close(struct input *in);

#endif
