/*
 * A tiny serialisation for audit entries: our own processes on both ends
 * of a pipe, one version at a time, so no library format is worth it.
 */
#include "model/audit-wire.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NO_STRING UINT32_MAX

static void put(struct sbuf *b, const void *p, size_t n)
{
	GROW(b->buf, b->cap, b->len + n + 1);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static void put_u32(struct sbuf *b, uint32_t v)
{
	put(b, &v, sizeof v);
}

static void put_f64(struct sbuf *b, double v)
{
	put(b, &v, sizeof v);
}

static void put_str(struct sbuf *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : NO_STRING;

	put_u32(b, n);
	if (s)
		put(b, s, n);
}

int wire_send(int fd, const struct audit_entry *e)
{
	struct sbuf b = {0};
	uint32_t len;
	int r = 0;

	put_u32(&b, 0); /* the length, filled in below */
	put_str(&b, e->path);
	put_u32(&b, e->kind);
	put_str(&b, e->error);
	put_str(&b, e->elf_kind);
	put_u32(&b, e->libs);
	put_u32(&b, e->missing);
	put_f64(&b, e->relocations);
	put_f64(&b, e->lookups);
	put_f64(&b, e->pages);
	put_f64(&b, e->cost_us);
	put_f64(&b, e->share);
	put_str(&b, e->unused);
	put_str(&b, e->advice);
	put_f64(&b, e->advice_us);
	for (unsigned i = 0; i < e->libs; i++) {
		put_str(&b, e->lib_paths[i]);
		put_f64(&b, e->lib_us[i]);
	}
	len = (uint32_t)b.len;
	memcpy(b.buf, &len, sizeof len);
	for (size_t off = 0; off < b.len;) {
		ssize_t w = write(fd, b.buf + off, b.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r = -1;
			break;
		}
		off += (size_t)w;
	}
	sbuf_free(&b);
	return r;
}

static int read_all(int fd, void *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t r = read(fd, (char *)p + off, n - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return off ? -1 : 0;
		off += (size_t)r;
	}
	return 1;
}

struct cursor {
	const char *p, *end;
	bool bad;
};

static void get(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, c->p, n);
	c->p += n;
}

static uint32_t get_u32(struct cursor *c)
{
	uint32_t v;
	get(c, &v, sizeof v);
	return v;
}

static double get_f64(struct cursor *c)
{
	double v;
	get(c, &v, sizeof v);
	return v;
}

static char *get_str(struct cursor *c)
{
	uint32_t n = get_u32(c);
	char *s;

	if (n == NO_STRING || c->bad)
		return NULL;
	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	s = xmalloc(n + 1);
	memcpy(s, c->p, n);
	s[n] = '\0';
	c->p += n;
	return s;
}

int wire_recv(int fd, struct audit_entry *e)
{
	uint32_t len;
	int r = read_all(fd, &len, sizeof len);
	char *buf;

	if (r <= 0)
		return r;
	if (len < sizeof len || len > (64u << 20))
		return -1;
	buf = xmalloc(len);
	if (read_all(fd, buf, len - sizeof len) <= 0) {
		free(buf);
		return -1;
	}
	struct cursor c = {buf, buf + len - sizeof len, false};
	memset(e, 0, sizeof *e);
	e->path = get_str(&c);
	e->kind = (enum audit_kind)get_u32(&c);
	e->error = get_str(&c);
	e->elf_kind = get_str(&c);
	e->libs = get_u32(&c);
	e->missing = get_u32(&c);
	e->relocations = get_f64(&c);
	e->lookups = get_f64(&c);
	e->pages = get_f64(&c);
	e->cost_us = get_f64(&c);
	e->share = get_f64(&c);
	e->unused = get_str(&c);
	e->advice = get_str(&c);
	e->advice_us = get_f64(&c);
	e->measured_us = e->measured_loader_us = NAN;
	if (e->libs > 100000)
		c.bad = true;
	e->lib_paths = xcalloc((c.bad ? 0 : e->libs) + 1, sizeof *e->lib_paths);
	e->lib_us = xcalloc((c.bad ? 0 : e->libs) + 1, sizeof *e->lib_us);
	for (unsigned i = 0; !c.bad && i < e->libs; i++) {
		e->lib_paths[i] = get_str(&c);
		e->lib_us[i] = get_f64(&c);
	}
	free(buf);
	if (c.bad || !e->path) {
		e->libs = 0;
		return -1;
	}
	return 1;
}
