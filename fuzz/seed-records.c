/*
 * A seed for fuzz-records: run PROG once under the real shim, set up as the
 * launcher sets up a profiled run (a fresh buffer, LD_AUDIT, LD_PRELOAD,
 * LDPROF_SHM), and write the buffer it filled to OUT, cut down to the
 * records and names in use so that the fuzzer's inputs stay small.
 *
 *	seed-records OUT AUDIT.so PRELOAD.so PROG [ARG...]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/tsc.h"
#include "run/shm.h"

#define BYTES (64 * 1024)

static void die(const char *what)
{
	fprintf(stderr, "seed-records: %s\n", what);
	exit(1);
}

static __attribute__((noreturn)) void child(struct shm_buf *s, char **argv)
{
	char *audit = realpath(argv[2], NULL), *preload = realpath(argv[3], NULL), spec[64];
	int fd = fcntl(s->fd, F_DUPFD, SHM_FD_MIN); /* inherited: no close-on-exec */

	if (!audit || !preload || fd < 0)
		_exit(126);
	snprintf(spec, sizeof spec, "%d,%d", fd, BYTES);
	setenv("LD_AUDIT", audit, 1);
	setenv("LD_PRELOAD", preload, 1);
	setenv(LDPROF_SHM_ENV, spec, 1);
	s->hdr->pid = getpid();
	s->hdr->exec_ts = tsc_now();
	execv(argv[4], argv + 4);
	_exit(127);
}

/* The header, the records in use, the names in use: a buffer the decoder accepts. */
static void write_compact(const struct ldprof_shm_header *h, const char *out)
{
	struct ldprof_shm_header c = *h;
	uint32_t n = h->nrecords < h->records_cap ? h->nrecords : h->records_cap;
	uint32_t names = h->strings_used < h->strings_cap ? h->strings_used : h->strings_cap;
	FILE *f = fopen(out, "wb");

	if (!f)
		die("cannot write the seed");
	c.records_cap = n;
	c.strings_off = c.records_off + n * (uint32_t)sizeof(struct ldprof_record);
	c.strings_cap = names;
	c.total_size = c.strings_off + names;
	fwrite(&c, sizeof c, 1, f);
	fwrite((const char *)h + h->records_off, sizeof(struct ldprof_record), n, f);
	fwrite((const char *)h + h->strings_off, 1, names, f);
	if (fclose(f))
		die("cannot write the seed");
}

int main(int argc, char **argv)
{
	struct shm_buf s;
	struct errbuf err;
	pid_t pid;
	int st;

	if (argc < 5)
		die("usage: seed-records OUT AUDIT.so PRELOAD.so PROG [ARG...]");
	if (shm_create(&s, BYTES, &err) || shm_reset(&s, &err))
		die(err.msg);
	s.hdr->options |= LDPROF_OPT_PRELOAD;
	if ((pid = fork()) < 0)
		die("fork failed");
	if (pid == 0)
		child(&s, argv);
	if (waitpid(pid, &st, 0) != pid || (WIFEXITED(st) && WEXITSTATUS(st) >= 126))
		die("the program did not run");
	if (!s.hdr->claimed || !s.hdr->nrecords)
		die("the shim recorded nothing");
	write_compact(s.hdr, argv[1]);
	printf("%s: %u records\n", argv[1], s.hdr->nrecords);
	shm_destroy(&s);
	return 0;
}
