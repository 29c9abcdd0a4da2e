/*
 * ldprof's own messages on stderr (error_msg, warn_msg, in util.h). Apart
 * from util.c because they escape for the terminal (textsafe.c), which
 * itself builds on util.c's buffers.
 */
#include <stdarg.h>
#include <stdio.h>

#include "base/out/textsafe.h"
#include "base/util.h"

/* One line on stderr; the names in it may hold anything, so it is escaped for the terminal. */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	struct sbuf msg = {0};

	sbuf_vprintf(&msg, fmt, ap);
	fflush(stdout);
	fputs(prefix, stderr);
	fputs(msg.buf ? term_clean(msg.buf) : "", stderr);
	fputc('\n', stderr);
	sbuf_free(&msg);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("ldprof: ", fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("ldprof: warning: ", fmt, ap);
	va_end(ap);
}
