#include "base/out/textsafe.h"

#include <stdbool.h>
#include <stdlib.h>

#include "base/util.h"

static bool cont(unsigned char c)
{
	return c >= 0x80 && c <= 0xbf;
}

size_t utf8_seq_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;

	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc2) /* a continuation byte, or an overlong 2-byte form */
		return 0;
	if (p[0] < 0xe0)
		return cont(p[1]) ? 2 : 0;
	if (p[0] < 0xf0) {
		lo = p[0] == 0xe0 ? 0xa0 : lo; /* overlong */
		hi = p[0] == 0xed ? 0x9f : hi; /* U+D800-DFFF */
		return p[1] >= lo && p[1] <= hi && cont(p[2]) ? 3 : 0;
	}
	if (p[0] < 0xf5) {
		lo = p[0] == 0xf0 ? 0x90 : lo; /* overlong */
		hi = p[0] == 0xf4 ? 0x8f : hi; /* above U+10FFFF */
		return p[1] >= lo && p[1] <= hi && cont(p[2]) && cont(p[3]) ? 4 : 0;
	}
	return 0;
}

/* Bytes of the printable character at s, or 0 when it must be escaped. */
static size_t printable_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = utf8_seq_len(s);

	if (n == 1 && (p[0] < 0x20 || p[0] == 0x7f))
		return 0;
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) /* C1 controls: U+0080-009F */
		return 0;
	return n;
}

static void escape_byte(struct sbuf *b, unsigned char c)
{
	static const char from[] = "\n\t\r\"\\", to[] = "ntr\"\\";

	for (size_t i = 0; from[i]; i++)
		if (c == (unsigned char)from[i]) {
			sbuf_printf(b, "\\%c", to[i]);
			return;
		}
	sbuf_printf(b, "\\%03o", c);
}

static const char *escaped(const char *s, bool quoted)
{
	static char *ring[8];
	static unsigned next;
	struct sbuf b = {0};
	const char *p = s;
	size_t n;

	while (p && *p && (n = printable_len(p)))
		p += n;
	if (!p || !*p)
		return s;
	if (quoted)
		sbuf_putc(&b, '"');
	for (p = s; *p; p += n) {
		n = printable_len(p);
		if (n && (!quoted || (*p != '"' && *p != '\\'))) {
			for (size_t i = 0; i < n; i++)
				sbuf_putc(&b, p[i]);
		} else {
			escape_byte(&b, (unsigned char)*p);
			n = 1;
		}
	}
	if (quoted)
		sbuf_putc(&b, '"');
	free(ring[next % 8]);
	ring[next++ % 8] = b.buf;
	return b.buf;
}

const char *term_safe(const char *s)
{
	return escaped(s, true);
}

const char *term_clean(const char *s)
{
	return escaped(s, false);
}
