/* Small helpers shared by the analyzer: memory, error text, buffers. */
#ifndef LDPROF_UTIL_H
#define LDPROF_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A timeval (getrusage's times) in microseconds. */
static inline double timeval_us(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e6 + (double)tv->tv_usec;
}

/* Allocation failures end the program: there is nothing sensible to do. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* The last component of path ("a/b" -> "b"), or path itself when it ends in '/'. */
const char *path_basename(const char *path);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * s as one word of a POSIX shell command: in single quotes, each ' in it
 * written '\'' (for system(): a $TMPDIR may hold any byte but NUL).
 */
char *sh_quote(const char *s);

/*
 * For a message after error e: " (under the open-file limit of N: raise
 * it with ulimit -n)" when e is EMFILE, else "". Not reentrant.
 */
const char *fd_limit_hint(int e);

/* Grow *arr (of *cap elements of size elem) so that index need is valid. */
void grow_array(void **arr, size_t *cap, size_t need, size_t elem);
#define GROW(arr, cap, need) grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/*
 * Library code reports "WHAT: WHY" here and returns -errno; only the command
 * layer prints it (as "ldprof: WHAT: WHY").
 */
struct errbuf {
	char msg[512];
};
int set_err(struct errbuf *e, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Print "ldprof: " and a message to stderr. */
void error_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable string. */
struct sbuf {
	char *buf;
	size_t len, cap;
};
void sbuf_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vprintf(struct sbuf *sb, const char *fmt, va_list ap);
void sbuf_putc(struct sbuf *sb, char c);
void sbuf_free(struct sbuf *sb);

/* Parse a whole string as an unsigned number in [min, max]; -EINVAL if not. */
int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* Parse a duration in seconds ("2", "0.5"); -EINVAL if not positive. */
int parse_seconds(const char *s, double *out);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mono_ns(void);

/*
 * A signal's name for the reports: "SIGSEGV" and true, or "SIG?" and
 * false for a number the C library has no name for.
 */
#define SIGNAL_NAME_MAX 32
bool signal_name(int sig, char buf[SIGNAL_NAME_MAX]);

/*
 * Write a file through fn without ever destroying what path names: a
 * regular file or a new name is written to a temporary name in the same
 * directory, flushed and synced, then renamed (keeping an existing file's
 * mode, else 0666 less the umask); a symbolic link's target is replaced, the
 * link stays; a device, FIFO or /dev/fd/N is written in place. A NULL or "-"
 * path writes to stdout, flushed and checked for errors.
 */
int write_atomic(const char *path, int (*fn)(FILE *f, void *arg, struct errbuf *err), void *arg,
		 struct errbuf *err);

/* Flush stdout and report write errors the way git does; returns 0 or 1. */
int finish_stdout(void);

#endif
