#include "base/words.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One pass that writes the words into out (when not NULL) and counts them. */
static int scan(const char *s, char *out, char **argv, size_t *n, struct errbuf *err)
{
	char *w = out;
	bool in_word = false;

	*n = 0;
	for (; *s; s++) {
		char q = 0;
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			if (in_word && w)
				*w++ = '\0';
			in_word = false;
			continue;
		}
		if (!in_word) {
			if (argv && w)
				argv[*n] = w;
			(*n)++;
			in_word = true;
		}
		if (*s == '\'' || *s == '"')
			q = *s++;
		if (!q) {
			if (*s == '\\' && s[1])
				s++;
			if (w)
				*w++ = *s;
			continue;
		}
		for (; *s && *s != q; s++) {
			if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
				s++;
			if (w)
				*w++ = *s;
		}
		if (!*s)
			return set_err(err, EINVAL, "unterminated %c quote", q);
	}
	if (in_word && w)
		*w++ = '\0';
	return 0;
}

int split_words(const char *line, char ***words, size_t *n, struct errbuf *err)
{
	size_t len = strlen(line) + 1, count;
	int r = scan(line, NULL, NULL, &count, err);

	*words = NULL;
	*n = 0;
	if (r)
		return r;
	char **argv = xcalloc(1, (count + 1) * sizeof(char *) + len);
	char *strings = (char *)(argv + count + 1);
	scan(line, strings, argv, &count, err);
	argv[count] = NULL;
	*words = argv;
	*n = count;
	return 0;
}
