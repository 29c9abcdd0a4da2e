/* Small helpers: error messages and growable buffers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sh.h"

/* Every diagnostic carries the "sh: " prefix that scripts grep for. */
void sh_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout); /* keep our output and the message in order */
	fputs("sh: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A shell that cannot allocate cannot do anything useful: give up. */
void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL) {
		sh_error("out of memory");
		exit(2);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

/* Make room for at least "more" further bytes plus the terminating NUL. */
static void sb_reserve(struct strbuf *sb, size_t more)
{
	if (sb->len + more + 1 <= sb->cap)
		return;
	sb->cap = (sb->len + more + 1) * 2;
	sb->s = xrealloc(sb->s, sb->cap);
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_reserve(sb, 1);
	sb->s[sb->len++] = c;
	sb->s[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	sb_reserve(sb, n);
	memcpy(sb->s + sb->len, s, n + 1);
	sb->len += n;
}

/* Empty the string but keep the allocation for the next line. */
void sb_clear(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->s != NULL)
		sb->s[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = sb->cap = 0;
}

/* Takes ownership of "word"; the vector stays NULL-terminated for execvp. */
void words_add(struct words *w, char *word)
{
	if (w->n + 2 > w->cap) {
		w->cap = w->cap ? w->cap * 2 : 8;
		w->v = xrealloc(w->v, w->cap * sizeof *w->v);
	}
	w->v[w->n++] = word;
	w->v[w->n] = NULL;
}

void words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = w->cap = 0;
}
