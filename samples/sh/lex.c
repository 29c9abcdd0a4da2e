/*
 * The lexer: reads one simple command (up to ";", a newline or the end of
 * the text) and returns its words with quotes removed and parameters
 * expanded.
 *
 * Expansion happens while lexing, so the caller has to lex and run one
 * command at a time: in "false; echo $?" the $? must see the status of
 * "false".  When the text ends inside a quote, the lexer says LEX_MORE and
 * the caller appends a line and lexes the same command again; expansion has
 * no side effects, so doing it twice is harmless.
 *
 * Deliberately left out: field splitting, globbing, tilde expansion and
 * command substitution.  An unquoted expansion that is empty yields no
 * word, as in every POSIX shell.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

struct lexer {
	const struct shell *sh;
	const char *p;	    /* next character to read */
	struct strbuf word; /* the word being built */
	int in_word;	    /* a word has started, even if still empty ("") */
	struct words *out;
};

static int is_name_start(char c)
{
	return c == '_' || isalpha((unsigned char)c);
}

static int is_name_char(char c)
{
	return c == '_' || isalnum((unsigned char)c);
}

static void add_char(struct lexer *lx, char c)
{
	sb_addc(&lx->word, c);
	lx->in_word = 1;
}

static void finish_word(struct lexer *lx)
{
	if (!lx->in_word)
		return;
	words_add(lx->out, xstrdup(lx->word.len ? lx->word.s : ""));
	sb_clear(&lx->word);
	lx->in_word = 0;
}

/* $N: $0 is the script name, unset positional parameters are empty. */
static const char *positional(const struct shell *sh, const char *digits, size_t len)
{
	long i = 0;

	for (size_t k = 0; k < len && i <= sh->nparams; k++)
		i = i * 10 + (digits[k] - '0');
	if (i == 0)
		return sh->arg0;
	return i <= sh->nparams ? sh->params[i - 1] : "";
}

/*
 * The value of the parameter whose name is name[0..len); "num" is scratch
 * space for the special parameters that are numbers.  Unset means empty.
 */
static const char *param_value(const struct shell *sh, const char *name, size_t len,
			       char num[static 24])
{
	const char *v = num;

	if (len == 1 && strchr("?$#", *name) != NULL) {
		long n = *name == '?' ? sh->status : *name == '#' ? sh->nparams : (long)getpid();
		snprintf(num, 24, "%ld", n);
	} else if (isdigit((unsigned char)*name)) {
		v = positional(sh, name, len);
	} else {
		char *copy = xrealloc(NULL, len + 1);

		memcpy(copy, name, len);
		copy[len] = '\0';
		v = getenv(copy);
		free(copy);
	}
	return v != NULL ? v : "";
}

/* Length of the name after "$" in the unbraced form; 0 if there is none. */
static size_t name_length(const char *p)
{
	size_t n = 0;

	if (*p == '?' || *p == '$' || *p == '#' || isdigit((unsigned char)*p))
		return 1; /* $10 is $1 followed by "0", as POSIX says */
	if (!is_name_start(*p))
		return 0;
	while (is_name_char(p[n]))
		n++;
	return n;
}

/* Length of the name inside "${...}", or 0 if it is not a valid one. */
static size_t braced_length(const char *p)
{
	size_t n = 0;

	if (*p == '?' || *p == '$' || *p == '#')
		return 1;
	if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)p[n]))
			n++;
		return n;
	}
	while (is_name_char(p[n]) && (n > 0 || is_name_start(p[n])))
		n++;
	return n;
}

/* lx->p is at "$".  A "$" that starts no expansion stays literal. */
static enum lex_status lex_dollar(struct lexer *lx)
{
	const char *name = lx->p + 1;
	size_t len;
	char num[24];

	if (*name == '{') {
		name++;
		len = braced_length(name);
		if (name[len] == '\0')
			return LEX_MORE;
		if (len == 0 || name[len] != '}') {
			sh_error("bad substitution");
			return LEX_ERROR;
		}
		lx->p = name + len + 1;
	} else {
		len = name_length(name);
		if (len == 0) {
			add_char(lx, '$');
			lx->p++;
			return LEX_OK;
		}
		lx->p = name + len;
	}
	const char *value = param_value(lx->sh, name, len, num);
	if (*value != '\0') {
		sb_adds(&lx->word, value);
		lx->in_word = 1;
	}
	return LEX_OK;
}

/* Outside quotes a backslash keeps the next character; before a newline
 * it joins the lines, so the command goes on in the next line. */
static enum lex_status lex_backslash(struct lexer *lx)
{
	const char *p = lx->p;

	if (p[1] == '\0' || (p[1] == '\n' && p[2] == '\0'))
		return LEX_MORE;
	if (p[1] != '\n')
		add_char(lx, p[1]);
	lx->p = p + 2;
	return LEX_OK;
}

/* '...': everything up to the next quote is literal. */
static enum lex_status lex_single(struct lexer *lx)
{
	const char *end = strchr(lx->p + 1, '\'');

	if (end == NULL)
		return LEX_MORE;
	lx->in_word = 1;
	for (const char *q = lx->p + 1; q < end; q++)
		sb_addc(&lx->word, *q);
	lx->p = end + 1;
	return LEX_OK;
}

/* "...": $ still expands; backslash only escapes $ ` " \ and newline. */
static enum lex_status lex_double(struct lexer *lx)
{
	enum lex_status st;

	lx->in_word = 1;
	lx->p++;
	while (*lx->p != '"') {
		const char *p = lx->p;

		if (*p == '\0' || (*p == '\\' && p[1] == '\0'))
			return LEX_MORE;
		if (*p == '$') {
			if ((st = lex_dollar(lx)) != LEX_OK)
				return st;
			continue;
		}
		if (*p == '\\' && strchr("$`\"\\\n", p[1]) != NULL) {
			if (p[1] != '\n')
				sb_addc(&lx->word, p[1]);
			lx->p += 2;
			continue;
		}
		sb_addc(&lx->word, *p);
		lx->p++;
	}
	lx->p++;
	return LEX_OK;
}

/* A comment runs to the end of the line; the newline still ends the command. */
static void skip_comment(struct lexer *lx)
{
	while (*lx->p != '\0' && *lx->p != '\n')
		lx->p++;
}

/* Handle the character at lx->p, which does not end the command. */
static enum lex_status lex_char(struct lexer *lx)
{
	switch (*lx->p) {
	case ' ':
	case '\t':
		finish_word(lx);
		lx->p++;
		return LEX_OK;
	case '#':
		if (lx->in_word)
			break;
		skip_comment(lx);
		return LEX_OK;
	case '\\':
		return lex_backslash(lx);
	case '\'':
		return lex_single(lx);
	case '"':
		return lex_double(lx);
	case '$':
		return lex_dollar(lx);
	}
	add_char(lx, *lx->p++);
	return LEX_OK;
}

enum lex_status lex_command(const struct shell *sh, const char **pp, struct words *out)
{
	struct lexer lx = {.sh = sh, .p = *pp, .out = out};
	enum lex_status st = LEX_OK;

	while (*lx.p != '\0' && *lx.p != '\n' && *lx.p != ';') {
		if ((st = lex_char(&lx)) != LEX_OK)
			break;
	}
	if (st == LEX_OK) {
		finish_word(&lx);
		if (*lx.p != '\0')
			lx.p++; /* the separator */
	}
	sb_free(&lx.word);
	*pp = lx.p;
	return st;
}
