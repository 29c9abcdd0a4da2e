#include "base/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>


static void oom(void)
{
	fputs("ldprof: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

const char *fd_limit_hint(int e)
{
	static char hint[96];
	struct rlimit rl;

	if (e != EMFILE || getrlimit(RLIMIT_NOFILE, &rl))
		return "";
	snprintf(hint, sizeof hint, " (under the open-file limit of %llu: raise it with ulimit -n)",
		 (unsigned long long)rl.rlim_cur);
	return hint;
}

char *sh_quote(const char *s)
{
	struct sbuf sb = {0};

	sbuf_putc(&sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_printf(&sb, "'\\''");
		else
			sbuf_putc(&sb, *s);
	}
	sbuf_putc(&sb, '\'');
	return sb.buf;
}

void grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;

	if (need < *cap)
		return;
	while (ncap <= need) {
		if (ncap > SIZE_MAX / 2 / elem)
			oom();
		ncap *= 2;
	}
	*arr = xrealloc(*arr, ncap * elem);
	memset((char *)*arr + *cap * elem, 0, (ncap - *cap) * elem);
	*cap = ncap;
}

int set_err(struct errbuf *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return err > 0 ? -err : err;
}

void sbuf_vprintf(struct sbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	GROW(sb->buf, sb->cap, sb->len + (size_t)n + 1);
	vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	sb->len += (size_t)n;
}

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sbuf_putc(struct sbuf *sb, char c)
{
	GROW(sb->buf, sb->cap, sb->len + 2);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	*sb = (struct sbuf){0};
}

int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || v > 1e6)
		return -EINVAL;
	*out = v;
	return 0;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool signal_name(int sig, char buf[SIGNAL_NAME_MAX])
{
	const char *abbrev = sigabbrev_np(sig);

	snprintf(buf, SIGNAL_NAME_MAX, "SIG%s", abbrev ? abbrev : "?");
	return abbrev != NULL;
}

int finish_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return 0;
		fprintf(stderr, "ldprof: write error on standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
