/*
 * Unit tests for the JSON writer (base/out/json.c): the pretty and compact
 * layouts of one document, the escaping of every special byte at every
 * place of strings of every length around the eight-byte scan (against a
 * byte-at-a-time reference), output far larger than the writer's buffer,
 * members rendered by other writers, and raw members equal to the calls'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/out/json.h"
#include "base/out/textsafe.h"
#include "unit.h"

struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m)
{
	m->buf = NULL;
	m->f = open_memstream(&m->buf, &m->len);
}

/* The bytes written, NUL-terminated; free them. */
static char *mem_close(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

static void document(struct json *j)
{
	json_obj_open(j, NULL);
	json_int(j, "a", 1);
	json_arr_open(j, "b");
	json_bool(j, NULL, true);
	json_null(j, NULL);
	json_str(j, NULL, "x\"y");
	json_arr_close(j);
	json_obj_open(j, "c");
	json_obj_close(j);
	json_arr_open(j, "d");
	json_arr_close(j);
	json_int(j, "e", -42);
	json_num(j, "f", 1.5);
	json_num(j, "g", NAN);
	json_pair(j, "p", 1, 2);
	json_str(j, "s", NULL);
	json_obj_close(j);
	json_end(j);
}

static char *render(bool pretty)
{
	struct mem m;
	struct json j;

	mem_open(&m);
	json_begin_style(&j, m.f, pretty);
	document(&j);
	return mem_close(&m);
}

static void test_styles(void)
{
	char *pretty = render(true), *compact = render(false);

	CHECK(!strcmp(pretty, "{\n"
			      "  \"a\": 1,\n"
			      "  \"b\": [\n"
			      "    true,\n"
			      "    null,\n"
			      "    \"x\\\"y\"\n"
			      "  ],\n"
			      "  \"c\": {},\n"
			      "  \"d\": [],\n"
			      "  \"e\": -42,\n"
			      "  \"f\": 1.5,\n"
			      "  \"g\": null,\n"
			      "  \"p\": [\n"
			      "    1,\n"
			      "    2\n"
			      "  ],\n"
			      "  \"s\": null\n"
			      "}\n"));
	CHECK(!strcmp(compact, "{\"a\":1,\"b\":[true,null,\"x\\\"y\"],\"c\":{},\"d\":[],\"e\":-42,"
			       "\"f\":1.5,\"g\":null,\"p\":[1,2],\"s\":null}\n"));
	free(pretty);
	free(compact);
	/* json_begin is the pretty layout, as every document but deps' has. */
	struct mem m;
	struct json j;
	mem_open(&m);
	json_begin(&j, m.f);
	document(&j);
	char *dflt = mem_close(&m);
	pretty = render(true);
	CHECK(!strcmp(dflt, pretty));
	free(dflt);
	free(pretty);
}

/* The escaping, one byte (or UTF-8 sequence) at a time. */
static void reference(struct mem *m, const char *s)
{
	fputc('"', m->f);
	for (const char *p = s; *p;) {
		unsigned char c = (unsigned char)*p;
		size_t n = utf8_seq_len(p);
		if (!n)
			fprintf(m->f, "\\u%04x", 0xdc00 | c);
		else if (n > 1)
			fwrite(p, 1, n, m->f);
		else if (c == '"' || c == '\\')
			fprintf(m->f, "\\%c", c);
		else if (c == '\n' || c == '\t' || c == '\r')
			fprintf(m->f, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else if (c < 0x20)
			fprintf(m->f, "\\u%04x", c);
		else
			fputc(c, m->f);
		p += n ? n : 1;
	}
	fputc('"', m->f);
}

static char *escaped(const char *s, bool ref)
{
	struct mem m;

	mem_open(&m);
	if (ref)
		reference(&m, s);
	else
		json_put_string(m.f, s);
	return mem_close(&m);
}

static void test_escape_everywhere(void)
{
	static const char *const specials[] = {
		"\"",	"\\",	"\n",	    "\x01",	    "\x1f",	    "\x7f",
		"\xff", "\x80", "\xc3\xa9", "\xe2\x82\xac", "\xed\xa0\x80", "\xf0\x9f\x98\x80",
		" ",	"~"};
	int bad = 0;

	for (size_t len = 0; len <= 40; len++)
		for (size_t pos = 0; pos <= len; pos++)
			for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
				char s[64];
				memset(s, 'a' + (int)(len % 26), len);
				s[len] = '\0';
				memmove(s + pos + strlen(specials[k]), s + pos, len - pos + 1);
				memcpy(s + pos, specials[k], strlen(specials[k]));
				char *got = escaped(s, false), *want = escaped(s, true);
				if (strcmp(got, want) && bad++ < 5)
					fprintf(stderr, "  escape: got %s, want %s\n", got, want);
				free(got);
				free(want);
			}
	CHECK(bad == 0);
}

/* Keys are escaped as values are: short, long, empty, with bytes to escape. */
static void test_keys(void)
{
	char long_key[200];
	const char *keys[] = {"a",
			      "",
			      "k\"ey",
			      "tab\t",
			      "\xff",
			      long_key,
			      long_key + 130,
			      long_key + 135,
			      long_key + 136,
			      long_key + 137};
	int bad = 0;

	memset(long_key, 'k', sizeof long_key - 1);
	long_key[sizeof long_key - 1] = '\0'; /* 199, 69, 64, 63 and 62 bytes */
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		for (int pretty = 0; pretty < 2; pretty++) {
			struct mem m, want;
			struct json j;
			mem_open(&m);
			mem_open(&want);
			json_begin_style(&j, m.f, pretty);
			json_obj_open(&j, NULL);
			json_str(&j, keys[k], "v");
			json_obj_close(&j);
			json_end(&j);
			fputs(pretty ? "{\n  " : "{", want.f);
			reference(&want, keys[k]);
			fputs(pretty ? ": \"v\"\n}\n" : ":\"v\"}\n", want.f);
			char *got = mem_close(&m), *exp = mem_close(&want);
			if (strcmp(got, exp) && bad++ < 3)
				fprintf(stderr, "  key: got %s, want %s\n", got, exp);
			free(got);
			free(exp);
		}
	CHECK(bad == 0);

	/* Keys at every place of the buffer, where it fills up. */
	struct mem m, want;
	struct json j;
	mem_open(&m);
	mem_open(&want);
	json_begin_style(&j, m.f, false);
	json_obj_open(&j, NULL);
	fputc('{', want.f);
	for (int i = 0; i < 20000; i++) {
		const char *key = long_key + 199 - i % 70;
		json_int(&j, key, i);
		fprintf(want.f, "%s\"%s\":%d", i ? "," : "", key, i);
	}
	json_obj_close(&j);
	json_end(&j);
	fputs("}\n", want.f);
	char *got = mem_close(&m), *exp = mem_close(&want);
	CHECK(!strcmp(got, exp));
	free(got);
	free(exp);
}

/* Far more than the writer's buffer, in values and in one string. */
static void test_large(void)
{
	size_t big = 5 * JSON_BUFSIZE + 3;
	char *s = malloc(big + 1);
	struct mem m, want;
	struct json j;

	for (size_t i = 0; i < big; i++)
		s[i] = i % 1000 == 999 ? '\n' : (char)('a' + i % 26);
	s[big] = '\0';
	mem_open(&m);
	mem_open(&want);
	json_begin_style(&j, m.f, false);
	json_arr_open(&j, NULL);
	fputc('[', want.f);
	for (int i = 0; i < 20000; i++) {
		json_int(&j, NULL, (long long)i * 7919 - 50000);
		fprintf(want.f, "%s%lld", i ? "," : "", (long long)i * 7919 - 50000);
	}
	json_str(&j, NULL, s);
	fputc(',', want.f);
	reference(&want, s);
	for (size_t i = 0; i < big; i++) /* one run of plain bytes, longer than the buffer */
		s[i] = (char)('a' + i % 26);
	json_str(&j, NULL, s);
	fputc(',', want.f);
	reference(&want, s);
	json_arr_close(&j);
	json_end(&j);
	fputs("]\n", want.f);
	char *got = mem_close(&m), *exp = mem_close(&want);
	CHECK(!strcmp(got, exp));
	free(got);
	free(exp);
	free(s);
}

/* Members rendered by json_begin_member writers, as deps' threads do. */
static char *members(bool pretty)
{
	struct mem m, part;
	struct json j, p;

	mem_open(&m);
	json_begin_style(&j, m.f, pretty);
	json_obj_open(&j, NULL);
	json_arr_open(&j, "files");
	for (int i = 0; i < 3; i++) {
		mem_open(&part);
		json_begin_member(&p, part.f, &j);
		json_obj_open(&p, NULL);
		json_int(&p, "n", i);
		json_obj_close(&p);
		json_flush(&p);
		char *text = mem_close(&part);
		json_raw_member(&j, text, strlen(text));
		free(text);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end(&j);
	return mem_close(&m);
}

static void test_members(void)
{
	char *pretty = members(true), *compact = members(false);

	CHECK(!strcmp(pretty, "{\n  \"files\": [\n    {\n      \"n\": 0\n    },\n    {\n"
			      "      \"n\": 1\n    },\n    {\n      \"n\": 2\n    }\n  ]\n}\n"));
	CHECK(!strcmp(compact, "{\"files\":[{\"n\":0},{\"n\":1},{\"n\":2}]}\n"));
	free(pretty);
	free(compact);
}

/* A raw member is the same bytes as the calls make in a compact document. */
static void test_raw(void)
{
	struct mem a, b;
	struct json j;

	mem_open(&a);
	json_begin_style(&j, a.f, false);
	json_arr_open(&j, NULL);
	for (int i = 0; i < 2; i++) {
		json_obj_open(&j, NULL);
		json_int(&j, "from", -i);
		json_str(&j, "symbol", "q\"\xff");
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_end(&j);
	mem_open(&b);
	json_begin_style(&j, b.f, false);
	json_arr_open(&j, NULL);
	for (int i = 0; i < 2; i++) {
		json_raw_member(&j, "{\"from\":", 8);
		json_raw_int(&j, -i);
		JSON_RAW_LIT(&j, ",\"symbol\":");
		json_raw_str(&j, "q\"\xff", 3);
		JSON_RAW_LIT(&j, "}");
	}
	json_arr_close(&j);
	json_end(&j);
	char *calls = mem_close(&a), *raw = mem_close(&b);
	CHECK(!strcmp(calls, "[{\"from\":0,\"symbol\":\"q\\\"\\udcff\"},"
			     "{\"from\":-1,\"symbol\":\"q\\\"\\udcff\"}]\n"));
	CHECK(!strcmp(calls, raw));
	free(calls);
	free(raw);
}

int main(void)
{
	test_styles();
	test_escape_everywhere();
	test_keys();
	test_large();
	test_members();
	test_raw();
	return unit_done("json_test");
}
