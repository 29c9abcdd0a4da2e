/*
 * A small streaming JSON writer: correct escaping, NaN as null, commas and
 * indentation handled by nesting state, pretty (one value a line, indented)
 * or compact (no whitespace at all). Enough for our schemas; no library on
 * Debian 12 is both tiny and stream-oriented, hence hand-written. It
 * assembles its output in a buffer of its own and hands the FILE whole
 * blocks: `deps --bindings --json` writes gigabytes, and one stdio call per
 * comma and digit cost 15 times the text output's time (docs/json.md).
 */
#ifndef LDPROF_JSON_H
#define LDPROF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define JSON_MAX_DEPTH 32
#define JSON_BUFSIZE   16384

struct json {
	FILE *f;
	size_t n; /* bytes waiting in buf */
	int depth;
	bool pretty;
	bool first[JSON_MAX_DEPTH]; /* per level: no comma needed yet */
	char buf[JSON_BUFSIZE];
};

/* Pretty-printed, as every document but `deps`'s is (docs/json.md). */
void json_begin(struct json *j, FILE *f);
void json_begin_style(struct json *j, FILE *f, bool pretty);
/*
 * A writer of one member of parent's current array, into f (a buffer of
 * its own, written out later with json_raw_member): indented as it would
 * be there, without the comma, which json_raw_member adds.
 */
void json_begin_member(struct json *j, FILE *f, const struct json *parent);
/* The newline at the end, then everything buffered out to the FILE. */
void json_end(struct json *j);
/* Everything buffered out to the FILE (its errors stay in ferror). */
void json_flush(struct json *j);
/*
 * Values assembled by the caller from known pieces, for the few arrays of
 * millions of members (deps' bindings), where the calls below cost more
 * than the bytes. json_raw_member starts the next member of j's current
 * array with n bytes of JSON (the comma first when one is needed: from a
 * json_begin_member writer, or the start of a value); json_raw,
 * json_raw_str (s escaped as json_str does; n is strlen(s)) and
 * json_raw_int continue it. Nothing is indented: for compact documents,
 * or whole members made by another writer.
 */
void json_raw_member(struct json *j, const char *text, size_t n);
void json_raw_slow(struct json *j, const char *text, size_t n);
/* Inline, so that a literal's copy is a few moves: it is called per binding. */
static inline void json_raw(struct json *j, const char *text, size_t n)
{
	if (n > sizeof j->buf - j->n) {
		json_raw_slow(j, text, n);
		return;
	}
	memcpy(j->buf + j->n, text, n);
	j->n += n;
}
void json_raw_str(struct json *j, const char *s, size_t n);
void json_raw_int(struct json *j, long long v);
#define JSON_RAW_LIT(j, lit) json_raw(j, lit, sizeof lit - 1)

void json_obj_open(struct json *j, const char *key);
void json_obj_close(struct json *j);
void json_arr_open(struct json *j, const char *key);
void json_arr_close(struct json *j);
void json_str(struct json *j, const char *key, const char *s); /* NULL -> null */
void json_num(struct json *j, const char *key, double v);      /* NaN -> null */
void json_int(struct json *j, const char *key, long long v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* A JSON string literal, escaped, for writers that do not use struct json. */
void json_put_string(FILE *f, const char *s);
/* "key": [a, b], e.g. a confidence interval. */
void json_pair(struct json *j, const char *key, double a, double b); /* both NaN -> null */

#endif
