/* Unit tests for words.c: sh-like splitting without expansion. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "base/words.h"

static int same(const char *line, const char *const *want)
{
	char **w;
	size_t n, k = 0;
	struct errbuf err;
	int ok;

	if (split_words(line, &w, &n, &err))
		return 0;
	while (want[k])
		k++;
	ok = n == k && !w[n];
	for (size_t i = 0; ok && i < n; i++)
		ok = !strcmp(w[i], want[i]);
	free(w);
	return ok;
}

int main(void)
{
	char **w;
	size_t n;
	struct errbuf err;

	CHECK(same("bash -c exit", (const char *[]){"bash", "-c", "exit", NULL}));
	CHECK(same("  a   b\t c ", (const char *[]){"a", "b", "c", NULL}));
	CHECK(same("sh -c 'echo hi; exit 3'",
		   (const char *[]){"sh", "-c", "echo hi; exit 3", NULL}));
	CHECK(same("x \"a \\\"q\\\" $HOME\"", (const char *[]){"x", "a \"q\" $HOME", NULL}));
	CHECK(same("a\\ b c", (const char *[]){"a b", "c", NULL}));
	CHECK(same("pre'quoted'post", (const char *[]){"prequotedpost", NULL}));
	CHECK(same("''", (const char *[]){"", NULL}));
	CHECK(same("", (const char *[]){NULL}));
	CHECK(split_words("echo 'open", &w, &n, &err) < 0);
	CHECK(strstr(err.msg, "unterminated") != NULL);
	return unit_done("words_test");
}
