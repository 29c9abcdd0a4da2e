#include "base/out/json.h"

#include <math.h>

#include "base/out/textsafe.h"

void json_begin(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}

/* Bytes at p that go out as they are: valid UTF-8 but '"', '\\' and controls. */
static size_t plain_run(const char *p)
{
	size_t n = 0, k;

	while ((unsigned char)p[n] >= 0x20 && p[n] != '"' && p[n] != '\\' &&
	       (k = utf8_seq_len(p + n)))
		n += k;
	return n;
}

/*
 * JSON strings are Unicode, names are bytes: a byte that is not part of
 * valid UTF-8 is written as \udcXX (U+DC80-U+DCFF, a lone low surrogate),
 * as Python's surrogateescape maps it, so that the bytes come back exactly
 * (docs/json.md). Valid UTF-8 never holds a surrogate, so nothing collides.
 */
void json_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *p = s; *p;) {
		size_t n = plain_run(p);
		unsigned char c = (unsigned char)p[n];

		fwrite(p, 1, n, f);
		p += n;
		if (!c)
			break;
		if (!utf8_seq_len(p))
			fprintf(f, "\\u%04x", 0xdc00 | c);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else
			fprintf(f, "\\u%04x", c);
		p++;
	}
	fputc('"', f);
}

/* Separator, indentation and key before a value. */
static void prefix(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	j->first[j->depth] = false;
	if (key) {
		json_put_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	prefix(j, key);
	fputc(c, j->f);
	if (j->depth < 31)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
}

void json_obj_open(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void json_obj_close(struct json *j)
{
	close_(j, '}');
}

void json_arr_open(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void json_arr_close(struct json *j)
{
	close_(j, ']');
}

void json_str(struct json *j, const char *key, const char *s)
{
	prefix(j, key);
	if (s)
		json_put_string(j->f, s);
	else
		fputs("null", j->f);
}

void json_num(struct json *j, const char *key, double v)
{
	prefix(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void json_int(struct json *j, const char *key, long long v)
{
	prefix(j, key);
	fprintf(j->f, "%lld", v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	prefix(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	fputs("null", j->f);
}

void json_pair(struct json *j, const char *key, double a, double b)
{
	if (isnan(a) && isnan(b)) {
		json_null(j, key); /* an interval nobody estimated */
		return;
	}
	json_arr_open(j, key);
	json_num(j, NULL, a);
	json_num(j, NULL, b);
	json_arr_close(j);
}
