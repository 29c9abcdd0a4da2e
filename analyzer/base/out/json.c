#include "base/out/json.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/out/textsafe.h"

void json_begin_style(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->n = 0;
	j->depth = 0;
	j->pretty = pretty;
	j->first[0] = true;
}

void json_begin(struct json *j, FILE *f)
{
	json_begin_style(j, f, true);
}

void json_begin_member(struct json *j, FILE *f, const struct json *parent)
{
	json_begin_style(j, f, parent->pretty);
	j->depth = parent->depth;
	j->first[j->depth] = true;
}

void json_flush(struct json *j)
{
	if (j->n)
		fwrite_unlocked(j->buf, 1, j->n, j->f);
	j->n = 0;
}

static void put(struct json *j, const char *s, size_t n)
{
	if (n > sizeof j->buf - j->n) {
		json_flush(j);
		if (n > sizeof j->buf) {
			fwrite_unlocked(s, 1, n, j->f);
			return;
		}
	}
	memcpy(j->buf + j->n, s, n);
	j->n += n;
}

static void put_c(struct json *j, char c)
{
	if (j->n == sizeof j->buf)
		json_flush(j);
	j->buf[j->n++] = c;
}

/* A string literal: strlen is computed at compile time. */
#define PUT_LIT(j, lit) put(j, lit, sizeof lit - 1)

void json_end(struct json *j)
{
	put_c(j, '\n');
	json_flush(j);
}

/*
 * Bytes that go out as they are: printable ASCII but '"' and '\\'. A byte
 * from 0x80 up is checked as UTF-8 (utf8_seq_len) on the slow path.
 */
static const bool ascii_plain[256] = {
	[' '] = 1,
	['!'] = 1,
	['#' ... '['] = 1,
	[']' ... 0x7f] = 1,
};

/* Bytes at p that go out as they are: valid UTF-8 but '"', '\\' and controls. */
static size_t plain_run(const char *p)
{
	size_t n = 0, k;

	for (;;) {
		while (ascii_plain[(unsigned char)p[n]])
			n++;
		if ((unsigned char)p[n] < 0x80 || !(k = utf8_seq_len(p + n)))
			return n;
		n += k;
	}
}

static const char hex[] = "0123456789abcdef";

static void put_u_escape(struct json *j, unsigned code)
{
	char e[6] = {
		'\\',	       'u', hex[code >> 12 & 15], hex[code >> 8 & 15], hex[code >> 4 & 15],
		hex[code & 15]};

	put(j, e, sizeof e);
}

/* Any byte of w below 0x20, equal to '"' or '\\', or from 0x80 up. */
static bool word_needs_care(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
	uint64_t q = w ^ ones * '"', b = w ^ ones * '\\';

	/* (x - ones * k) & ~x & high is nonzero exactly when a byte of x is
	   below k (k <= 0x80; borrows only ever mark bytes above a real one). */
	return (((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((b - ones) & ~b) | w) & high;
}

/*
 * The n bytes at s need no escape: plain ASCII (a name usually is), eight
 * bytes at a time. Hand-rolled because strcspn takes at most a few
 * bytes to reject and a JSON string must reject 35 bytes and every byte
 * from 0x80 up; the byte-at-a-time scan was a third of `deps --json`.
 */
static bool all_plain(const char *s, size_t n)
{
	uint64_t w;

	if (n < 8) {
		for (size_t i = 0; i < n; i++)
			if (!ascii_plain[(unsigned char)s[i]])
				return false;
		return true;
	}
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&w, s + i, 8);
		if (word_needs_care(w))
			return false;
	}
	memcpy(&w, s + n - 8, 8); /* the last eight, overlapping the loop's */
	return !word_needs_care(w);
}

/*
 * JSON strings are Unicode, names are bytes: a byte that is not part of
 * valid UTF-8 is written as \udcXX (U+DC80-U+DCFF, a lone low surrogate),
 * as Python's surrogateescape maps it, so that the bytes come back exactly
 * (docs/json.md). Valid UTF-8 never holds a surrogate, so nothing collides.
 */
static void put_escaped(struct json *j, const char *s)
{
	for (const char *p = s; *p;) {
		size_t n = plain_run(p);
		unsigned char c = (unsigned char)p[n];

		put(j, p, n);
		p += n;
		if (!c)
			break;
		if (!utf8_seq_len(p))
			put_u_escape(j, 0xdc00 | c);
		else if (c == '"' || c == '\\')
			put(j, (char[]){'\\', (char)c}, 2);
		else if (c == '\n')
			PUT_LIT(j, "\\n");
		else if (c == '\t')
			PUT_LIT(j, "\\t");
		else if (c == '\r')
			PUT_LIT(j, "\\r");
		else
			put_u_escape(j, c);
		p++;
	}
}

static void put_strn(struct json *j, const char *s, size_t n)
{
	if (n + 2 <= sizeof j->buf - j->n && all_plain(s, n)) {
		j->buf[j->n] = '"';
		memcpy(j->buf + j->n + 1, s, n);
		j->buf[j->n + 1 + n] = '"';
		j->n += n + 2;
		return;
	}
	put_c(j, '"');
	put_escaped(j, s);
	put_c(j, '"');
}

static void put_string(struct json *j, const char *s)
{
	put_strn(j, s, strlen(s));
}

void json_put_string(FILE *f, const char *s)
{
	struct json j;

	json_begin_style(&j, f, false);
	put_string(&j, s);
	json_flush(&j);
}

/* A newline and the indentation of the current depth. */
static void newline(struct json *j)
{
	size_t n = 1 + 2 * (size_t)j->depth;

	if (n > sizeof j->buf - j->n)
		json_flush(j);
	j->buf[j->n] = '\n';
	memset(j->buf + j->n + 1, ' ', n - 1);
	j->n += n;
}

/* The longest key put_key copies in one pass; longer ones take put_string. */
#define KEY_FAST 64

/*
 * "key": or "key":, copied while checked, in one pass over the bytes: keys
 * are short, and strlen, the scan and memcpy as three calls were a fifth
 * of a pretty document's time.
 */
static void put_key(struct json *j, const char *key)
{
	size_t i = 0;

	if (sizeof j->buf - j->n >= KEY_FAST + 4) {
		char *d = j->buf + j->n + 1;
		for (; i < KEY_FAST && ascii_plain[(unsigned char)key[i]]; i++)
			d[i] = key[i];
	}
	if (key[i] || !i) { /* a byte to escape, a long key, a full buffer, "" */
		put_string(j, key);
	} else {
		j->buf[j->n] = '"';
		j->buf[j->n + 1 + i] = '"';
		j->n += i + 2;
	}
	if (j->pretty)
		PUT_LIT(j, ": ");
	else
		put_c(j, ':');
}

/* Separator, indentation and key before a value. */
static void prefix(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			put_c(j, ',');
		if (j->pretty)
			newline(j);
	}
	j->first[j->depth] = false;
	if (key)
		put_key(j, key);
}

void json_raw_member(struct json *j, const char *text, size_t n)
{
	if (!j->first[j->depth])
		put_c(j, ',');
	j->first[j->depth] = false;
	put(j, text, n);
}

void json_raw_slow(struct json *j, const char *text, size_t n)
{
	put(j, text, n);
}

void json_raw_str(struct json *j, const char *s, size_t n)
{
	put_strn(j, s, n);
}

/* Decimal digits by hand: snprintf's per-call cost showed in the profile. */
void json_raw_int(struct json *j, long long v)
{
	char t[24], *p = t + sizeof t;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put(j, p, (size_t)(t + sizeof t - p));
}

static void open_(struct json *j, const char *key, char c)
{
	prefix(j, key);
	put_c(j, c);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty && j->pretty)
		newline(j);
	put_c(j, c);
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
		put_string(j, s);
	else
		PUT_LIT(j, "null");
}

void json_num(struct json *j, const char *key, double v)
{
	char t[32];
	int n;

	prefix(j, key);
	if (!isfinite(v)) {
		PUT_LIT(j, "null");
		return;
	}
	n = snprintf(t, sizeof t, "%.10g", v);
	put(j, t, (size_t)n);
}

void json_int(struct json *j, const char *key, long long v)
{
	prefix(j, key);
	json_raw_int(j, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	prefix(j, key);
	if (v)
		PUT_LIT(j, "true");
	else
		PUT_LIT(j, "false");
}

void json_null(struct json *j, const char *key)
{
	prefix(j, key);
	PUT_LIT(j, "null");
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
