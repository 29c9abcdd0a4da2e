/*
 * Analysing many programs: worker threads take the FILEs in turn and render
 * each report into a buffer of their own, reused from one FILE to the next;
 * a worker writes its buffer out when the FILEs before it are written, so
 * the output is in FILE order. The loader environment, and so every parsed
 * library, is shared: libc is read once for a thousand programs (struct
 * ldfs locks its caches; everything else the threads share is read-only
 * once ldenv_init has returned).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/deps-run.h"
#include "base/out/json.h"

struct pool {
	struct ldenv *env;
	const struct deps_options *opt;
	char **files;
	int nfiles;
	int next;    /* the next FILE to take */
	int written; /* FILEs written so far */
	FILE *out;   /* where the reports go, in FILE order */
	struct json *j;
	int status;
	bool missing;
	pthread_mutex_t lock;
	pthread_cond_t turn;
};

/* A worker's reusable output buffers. */
struct sink {
	FILE *out, *err;
	char *outbuf, *errbuf;
	size_t outsize, errsize;
};

static void render(FILE *f, const struct deps_report *r, const struct pool *pool)
{
	const struct deps_options *opt = pool->opt;
	struct json j;

	if (opt->json) {
		/* A member of the "files" array: write_in_order adds the comma. */
		json_begin_member(&j, f, pool->j);
		deps_json_file(&j, r, opt);
		json_flush(&j);
	} else if (opt->list) {
		deps_text_list(f, r, pool->nfiles > 1);
	} else if (opt->bindings) {
		deps_text_bindings(f, r);
	} else if (opt->unused) {
		deps_text_unused(f, r);
	} else if (opt->missing) {
		deps_text_missing(f, r);
	} else {
		deps_text_tree(f, r);
	}
}

/* Analyse FILE i into the sink; returns its status. */
static int run_file(struct pool *pool, int i, struct sink *s, bool *missing)
{
	struct deps_report r;
	struct errbuf eb;
	int status = EXIT_OK;

	if (deps_report_build(pool->env, pool->files[i], pool->opt, &r, &eb)) {
		fprintf(s->err, "ldprof: %s\n", eb.msg);
		return EXIT_USAGE;
	}
	*missing = deps_report_has_missing(&r);
	/* A library ld.so cannot load is bad input too (ld.so stops). */
	if (r.p.fatal) {
		fprintf(s->err, "ldprof: %s (needed by %s)\n", r.p.fatal, pool->files[i]);
		status = EXIT_USAGE;
	}
	render(s->out, &r, pool);
	deps_report_free(&r);
	return status;
}

/* Wait for FILE i's turn, write the sink out, and pass the turn on. */
static void write_in_order(struct pool *pool, int i, struct sink *s, int status, bool missing)
{
	long outlen, errlen;

	fflush(s->out);
	fflush(s->err);
	outlen = ftell(s->out);
	errlen = ftell(s->err);
	pthread_mutex_lock(&pool->lock);
	while (pool->written != i)
		pthread_cond_wait(&pool->turn, &pool->lock);
	if (pool->j)
		json_flush(pool->j); /* what precedes goes out before the message */
	fflush(pool->out);
	fwrite(s->errbuf, 1, (size_t)errlen, stderr);
	if (outlen > 0 && pool->j)
		json_raw_member(pool->j, s->outbuf, (size_t)outlen);
	else
		fwrite(s->outbuf, 1, (size_t)outlen, pool->out);
	if (status > pool->status)
		pool->status = status;
	pool->missing |= missing;
	pool->written++;
	pthread_cond_broadcast(&pool->turn);
	pthread_mutex_unlock(&pool->lock);
	rewind(s->out);
	rewind(s->err);
}

static void *worker(void *arg)
{
	struct pool *pool = arg;
	struct sink s = {0};

	s.out = open_memstream(&s.outbuf, &s.outsize);
	s.err = open_memstream(&s.errbuf, &s.errsize);
	if (!s.out || !s.err)
		abort(); /* out of memory, as xmalloc would */
	for (;;) {
		bool missing = false;
		pthread_mutex_lock(&pool->lock);
		int i = pool->next < pool->nfiles ? pool->next++ : -1;
		pthread_mutex_unlock(&pool->lock);
		if (i < 0)
			break;
		int status = run_file(pool, i, &s, &missing);
		write_in_order(pool, i, &s, status, missing);
	}
	fclose(s.out);
	fclose(s.err);
	free(s.outbuf);
	free(s.errbuf);
	return NULL;
}

int deps_run(struct ldenv *env, const struct deps_options *opt, char **files, int nfiles,
	     int threads, FILE *out, struct json *j)
{
	struct pool pool = {env,
			    opt,
			    files,
			    nfiles,
			    0,
			    0,
			    out,
			    opt->json ? j : NULL,
			    EXIT_OK,
			    false,
			    PTHREAD_MUTEX_INITIALIZER,
			    PTHREAD_COND_INITIALIZER};
	pthread_t *tid = xcalloc((size_t)threads + 1, sizeof *tid);
	int started = 0;

	/* The last worker is this thread. */
	for (; started < threads - 1 && started < nfiles - 1; started++)
		if (pthread_create(&tid[started], NULL, worker, &pool))
			break;
	worker(&pool);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	free(tid);
	if (pool.status == EXIT_OK && opt->missing && pool.missing)
		return EXIT_FAIL;
	return pool.status;
}
