/*
 * The byte encoding inside a trace file's sections (docs/trace-format.md):
 * LEB128 varints, and fields as tag-length-value so that a reader skips the
 * tags it does not know. Little-endian throughout, whatever the host.
 */
#ifndef LDPROF_TLV_H
#define LDPROF_TLV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer. */
struct bbuf {
	uint8_t *p;
	size_t len, cap;
};

void bb_put(struct bbuf *b, const void *data, size_t n);
void bb_le32(struct bbuf *b, uint32_t v);
void bb_le64(struct bbuf *b, uint64_t v);
void bb_varint(struct bbuf *b, uint64_t v);
void bb_free(struct bbuf *b);

uint32_t get_le32(const uint8_t *p);
uint64_t get_le64(const uint8_t *p);

/* Signed values as varints: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ... */
uint64_t zigzag(int64_t v);
int64_t unzigzag(uint64_t v);

/* One field: varint tag, varint length, value. */
void tlv_uint(struct bbuf *b, unsigned tag, uint64_t v);
void tlv_sint(struct bbuf *b, unsigned tag, int64_t v);
void tlv_f64(struct bbuf *b, unsigned tag, double v);
void tlv_str(struct bbuf *b, unsigned tag, const char *s); /* NULL: no field */
void tlv_bytes(struct bbuf *b, unsigned tag, const void *p, size_t n);
/* A nested field: its value is the fields in child (which is freed). */
void tlv_nested(struct bbuf *b, unsigned tag, struct bbuf *child);

/* A read position in a buffer; bad once anything did not fit. */
struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

struct cursor cursor_of(const void *p, size_t n);
bool cur_varint(struct cursor *c, uint64_t *v);
/* The next field, or false at the end (c->bad if it was malformed). */
bool tlv_next(struct cursor *c, unsigned *tag, struct cursor *val);

/* A field's value as a type; v->bad is set when it is not one. */
uint64_t val_uint(struct cursor *v);
int64_t val_sint(struct cursor *v);
double val_f64(struct cursor *v);
char *val_str(struct cursor *v); /* allocated; NULL if it holds a NUL byte */

#endif
