/*
 * A seed for fuzz-records: run PROG once under the real shim, set up as the
 * launcher sets up a profiled run (a fresh buffer, LD_AUDIT, LD_PRELOAD,
 * LDPROF_SHM), and write the buffer it filled to OUT, cut down to the
 * records and names in use so that the fuzzer's inputs stay small.
 *
 *	seed-records [-f] OUT AUDIT.so PRELOAD.so PROG [ARG...]
 *
 * -f: a follow-mode buffer (ldprof -f), which every process PROG starts
 * records into, cut down to the names and chunks in use.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/tsc.h"
#include "run/shm.h"

#define BYTES	     (64 * 1024)
#define FOLLOW_BYTES (1024 * 1024)
#define FOLLOW_CHUNK 512u /* small: a process's records span several chunks */

static bool follow;

static void die(const char *what)
{
	fprintf(stderr, "seed-records: %s\n", what);
	exit(1);
}

/* follow_env: follow mode's shm_env, taken in the parent (a memfd's path names its pid). */
static __attribute__((noreturn)) void child(struct shm_buf *s, char **argv, char *follow_env)
{
	char *audit = realpath(argv[2], NULL), *preload = realpath(argv[3], NULL), spec[96];
	/* Inherited, no close-on-exec; in follow mode every process attaches it by itself. */
	int fd = follow ? 0 : fcntl(s->fd, F_DUPFD, SHM_FD_MIN);

	if (!audit || !preload || fd < 0)
		_exit(126);
	setenv("LD_AUDIT", audit, 1);
	setenv("LD_PRELOAD", preload, 1);
	snprintf(spec, sizeof spec, "%d,%d", fd, BYTES);
	if (follow)
		putenv(follow_env);
	else
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

/* Follow mode: the header, the names in use, the chunks in use. */
static void write_compact_follow(const struct ldprof_shm_header *h, const char *out)
{
	struct ldprof_shm_header c = *h;
	uint32_t names = h->strings_used < h->strings_cap ? h->strings_used : h->strings_cap;
	uint32_t used = h->chunks_used < h->chunks_cap ? h->chunks_used : h->chunks_cap;
	static const char pad[8];
	FILE *f = fopen(out, "wb");

	if (!f)
		die("cannot write the seed");
	c.strings_cap = (names + 7) / 8 * 8;
	c.chunks_off = c.strings_off + c.strings_cap;
	c.chunks_cap = c.chunks_used = used;
	c.total_size = c.chunks_off + used * c.chunk_size;
	fwrite(&c, sizeof c, 1, f);
	fwrite((const char *)h + h->strings_off, 1, names, f);
	fwrite(pad, 1, c.strings_cap - names, f);
	fwrite((const char *)h + h->chunks_off, c.chunk_size, used, f);
	if (fclose(f))
		die("cannot write the seed");
}

int main(int argc, char **argv)
{
	struct shm_buf s;
	struct errbuf err;
	pid_t pid;
	int st;

	if (argc > 1 && !strcmp(argv[1], "-f")) {
		follow = true;
		argv++;
		argc--;
	}
	if (argc < 5)
		die("usage: seed-records [-f] OUT AUDIT.so PRELOAD.so PROG [ARG...]");
	if ((follow ? shm_create_follow(&s, FOLLOW_BYTES, FOLLOW_CHUNK, &err)
		    : shm_create(&s, BYTES, &err)) ||
	    shm_reset(&s, &err))
		die(err.msg);
	s.hdr->options |= LDPROF_OPT_PRELOAD;
	char *where = follow ? shm_env(&s) : NULL;
	if ((pid = fork()) < 0)
		die("fork failed");
	if (pid == 0)
		child(&s, argv, where);
	free(where);
	if (waitpid(pid, &st, 0) != pid || (WIFEXITED(st) && WEXITSTATUS(st) >= 126))
		die("the program did not run");
	if (follow) {
		if (!s.hdr->chunks_used)
			die("the shim recorded nothing");
		write_compact_follow(s.hdr, argv[1]);
		printf("%s: %u chunks\n", argv[1], s.hdr->chunks_used);
		shm_destroy(&s);
		return 0;
	}
	if (!s.hdr->claimed || !s.hdr->nrecords)
		die("the shim recorded nothing");
	write_compact(s.hdr, argv[1]);
	printf("%s: %u records\n", argv[1], s.hdr->nrecords);
	shm_destroy(&s);
	return 0;
}
