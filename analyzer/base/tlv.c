#include "base/tlv.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void bb_put(struct bbuf *b, const void *data, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void bb_le32(struct bbuf *b, uint32_t v)
{
	uint8_t x[4];

	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	bb_put(b, x, sizeof x);
}

void bb_le64(struct bbuf *b, uint64_t v)
{
	uint8_t x[8];

	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	bb_put(b, x, sizeof x);
}

void bb_varint(struct bbuf *b, uint64_t v)
{
	uint8_t x[10];
	size_t n = 0;

	do {
		x[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		x[n++] |= v ? 0x80 : 0;
	} while (v);
	bb_put(b, x, n);
}

void bb_free(struct bbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

uint32_t get_le32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void varint_len(struct bbuf *b, unsigned tag, size_t n)
{
	bb_varint(b, tag);
	bb_varint(b, n);
}

void tlv_uint(struct bbuf *b, unsigned tag, uint64_t v)
{
	struct bbuf val = {0};

	bb_varint(&val, v);
	tlv_nested(b, tag, &val);
}

void tlv_sint(struct bbuf *b, unsigned tag, int64_t v)
{
	tlv_uint(b, tag, zigzag(v));
}

void tlv_f64(struct bbuf *b, unsigned tag, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	varint_len(b, tag, 8);
	bb_le64(b, bits);
}

void tlv_str(struct bbuf *b, unsigned tag, const char *s)
{
	if (s)
		tlv_bytes(b, tag, s, strlen(s));
}

void tlv_bytes(struct bbuf *b, unsigned tag, const void *p, size_t n)
{
	varint_len(b, tag, n);
	bb_put(b, p, n);
}

void tlv_nested(struct bbuf *b, unsigned tag, struct bbuf *child)
{
	tlv_bytes(b, tag, child->p, child->len);
	bb_free(child);
}

struct cursor cursor_of(const void *p, size_t n)
{
	return (struct cursor){(const uint8_t *)p, (const uint8_t *)p + n, false};
}

bool cur_varint(struct cursor *c, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end)
			break;
		uint8_t byte = *c->p++;
		*v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return true;
	}
	c->bad = true;
	return false;
}

bool tlv_next(struct cursor *c, unsigned *tag, struct cursor *val)
{
	uint64_t t, n;

	if (c->bad || c->p >= c->end)
		return false;
	if (!cur_varint(c, &t) || !cur_varint(c, &n) || t > UINT32_MAX ||
	    n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return false;
	}
	*tag = (unsigned)t;
	*val = cursor_of(c->p, (size_t)n);
	c->p += n;
	return true;
}

uint64_t val_uint(struct cursor *v)
{
	uint64_t x;

	if (!cur_varint(v, &x) || v->p != v->end) {
		v->bad = true;
		return 0;
	}
	return x;
}

int64_t val_sint(struct cursor *v)
{
	return unzigzag(val_uint(v));
}

double val_f64(struct cursor *v)
{
	uint64_t bits;
	double d;

	if (v->end - v->p != 8) {
		v->bad = true;
		return 0;
	}
	bits = get_le64(v->p);
	memcpy(&d, &bits, sizeof d);
	return d;
}

char *val_str(struct cursor *v)
{
	size_t n = (size_t)(v->end - v->p);
	char *s;

	if (memchr(v->p, 0, n)) {
		v->bad = true;
		return NULL;
	}
	s = xmalloc(n + 1);
	memcpy(s, v->p, n);
	s[n] = 0;
	return s;
}
