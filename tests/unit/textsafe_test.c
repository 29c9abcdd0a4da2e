/*
 * Unit tests for names as ldprof shows them: the UTF-8 check (overlong
 * forms, surrogates, code points above U+10FFFF, cut sequences), the JSON
 * escaping of invalid bytes as \udcXX, and the terminal quoting of control
 * characters and invalid bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/out/json.h"
#include "base/out/textsafe.h"
#include "unit.h"

static char *json_of(const char *s)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	json_put_string(f, s);
	fclose(f);
	return out;
}

static void test_utf8(void)
{
	CHECK(utf8_seq_len("a") == 1);
	CHECK(utf8_seq_len("\xc2\xb5") == 2);	      /* µ */
	CHECK(utf8_seq_len("\xe2\x82\xac") == 3);     /* € */
	CHECK(utf8_seq_len("\xf0\x9f\x98\x80") == 4); /* U+1F600 */
	CHECK(utf8_seq_len("\xf4\x8f\xbf\xbf") == 4); /* U+10FFFF */
	CHECK(utf8_seq_len("\xff") == 0);
	CHECK(utf8_seq_len("\x80") == 0);	      /* a continuation alone */
	CHECK(utf8_seq_len("\xc0\xaf") == 0);	      /* overlong '/' */
	CHECK(utf8_seq_len("\xe0\x80\xaf") == 0);     /* overlong */
	CHECK(utf8_seq_len("\xed\xa0\x80") == 0);     /* U+D800, a surrogate */
	CHECK(utf8_seq_len("\xf4\x90\x80\x80") == 0); /* above U+10FFFF */
	CHECK(utf8_seq_len("\xe2\x82") == 0);	      /* cut short by the NUL */
	CHECK(utf8_seq_len("\xf0\x9f\x98") == 0);
}

static void test_json(void)
{
	struct {
		const char *in, *out;
	} cases[] = {
		{"plain", "\"plain\""},
		{"/tmp/x\xffy", "\"/tmp/x\\udcffy\""},
		{"caf\xe9", "\"caf\\udce9\""},
		{"\xc2\xb5s", "\"\xc2\xb5s\""},
		{"\xed\xa0\x80", "\"\\udced\\udca0\\udc80\""},
		{"\xe2\x82", "\"\\udce2\\udc82\""},
		{"q\"b\\\n\t\x1b", "\"q\\\"b\\\\\\n\\t\\u001b\""},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = json_of(cases[i].in);
		CHECK(!strcmp(got, cases[i].out));
		if (strcmp(got, cases[i].out))
			fprintf(stderr, "  json %s, want %s\n", got, cases[i].out);
		free(got);
	}
}

static void test_terminal(void)
{
	const char *plain = "/usr/lib/libc.so.6";
	struct {
		const char *in, *safe, *clean;
	} cases[] = {
		{"a\nb\x1b[31m", "\"a\\nb\\033[31m\"", "a\\nb\\033[31m"},
		{"x\xffy", "\"x\\377y\"", "x\\377y"},
		{"tab\there \"q\" \\", "\"tab\\there \\\"q\\\" \\\\\"", "tab\\there \"q\" \\"},
		{"del\x7f c1\xc2\x9b", "\"del\\177 c1\\302\\233\"", "del\\177 c1\\302\\233"},
		{"\xc2\xb5s \"q\"", "\xc2\xb5s \"q\"", "\xc2\xb5s \"q\""},
	};

	CHECK(term_safe(plain) == plain); /* nothing to escape: the name itself */
	CHECK(term_safe(NULL) == NULL);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK(!strcmp(term_safe(cases[i].in), cases[i].safe));
		CHECK(!strcmp(term_clean(cases[i].in), cases[i].clean));
	}
	/* Eight results stay valid at once. */
	const char *r[8];
	for (int i = 0; i < 8; i++)
		r[i] = term_safe(i % 2 ? "odd\n" : "even\n");
	CHECK(!strcmp(r[0], "\"even\\n\"") && !strcmp(r[7], "\"odd\\n\""));
}

int main(void)
{
	test_utf8();
	test_json();
	test_terminal();
	return unit_done("textsafe_test");
}
