/*
 * A small streaming JSON writer: correct escaping, NaN as null, commas and
 * indentation handled by nesting state. Enough for our schemas; no library
 * on Debian 12 is both tiny and stream-oriented, hence hand-written.
 */
#ifndef LDPROF_JSON_H
#define LDPROF_JSON_H

#include <stdbool.h>
#include <stdio.h>

struct json {
	FILE *f;
	int depth;
	bool first[32]; /* per level: no comma needed yet */
	bool after_key;
};

void json_begin(struct json *j, FILE *f);
void json_end(struct json *j); /* newline at the end */
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
