/*
 * Hand-rolled: a pointer chase is the standard way to time a cache miss
 * (lmbench's lat_mem_rd), and no library we use offers one.
 */
#include "base/cacheprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "base/stats.h"

enum { LINE = 64 };

const int cache_decay_ms[CACHE_DECAY_POINTS] = {2, 4, 8};

/* xorshift64: a fixed shuffle, the same in every run, needs no libc state. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int cache_probe_init(struct cache_probe *p, size_t bytes, struct errbuf *err)
{
	size_t n = bytes / LINE, *order;
	uint64_t seed = 0x9e3779b97f4a7c15u;

	memset(p, 0, sizeof *p);
	if (n < 2)
		return set_err(err, -EINVAL, "cache probe: %zu bytes is too small", bytes);
	void *m = mmap(NULL, n * LINE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return set_err(err, -errno, "cache probe: mmap %zu bytes: %s", bytes,
				  strerror(errno));
	order = xmalloc(n * sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates: one cycle through every line */
		size_t j = next_random(&seed) % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	p->lines = m;
	p->nlines = n;
	for (size_t i = 0; i < n; i++)
		p->lines[order[i] * (LINE / sizeof(void *))] =
			&p->lines[order[(i + 1) % n] * (LINE / sizeof(void *))];
	free(order);
	return 0;
}

void cache_probe_fini(struct cache_probe *p)
{
	if (p->lines)
		munmap(p->lines, p->nlines * LINE);
	memset(p, 0, sizeof *p);
}

double cache_probe_read(struct cache_probe *p)
{
	void **q = p->lines;
	uint64_t t0 = mono_ns();

	for (size_t i = 0; i < p->nlines; i++)
		q = *q;
	uint64_t t1 = mono_ns();
	/* The chase must not be optimised away: the last pointer is kept. */
	__asm__ volatile("" : : "r"(q) : "memory");
	return (double)(t1 - t0) / (double)p->nlines;
}

struct cache_reading cache_probe_state(struct cache_probe *p, int decay_reps)
{
	struct timespec idle = {0, CACHE_PROBE_IDLE_MS * 1000000L};
	struct cache_reading r;

	(void)cache_probe_read(p);
	r.hot_ns = cache_probe_read(p);
	double again = cache_probe_read(p); /* the faster of two: a tenant slows one pass too */
	if (again < r.hot_ns)
		r.hot_ns = again;
	nanosleep(&idle, NULL); /* a signal cuts it short: the reading is then just lower */
	r.idle_ns = cache_probe_read(p);
	memset(r.decay_ns, 0, sizeof r.decay_ns);
	if (decay_reps > 8)
		decay_reps = 8;
	for (int i = 0; i < CACHE_DECAY_POINTS && decay_reps > 0; i++) {
		struct timespec t = {0, cache_decay_ms[i] * 1000000L};
		double v[8];
		for (int k = 0; k < decay_reps; k++) {
			(void)cache_probe_read(p); /* in again, hot */
			nanosleep(&t, NULL);
			v[k] = cache_probe_read(p);
		}
		r.decay_ns[i] = median_picked(v, NULL, (size_t)decay_reps, v);
	}
	return r;
}

int cache_probe_isolated(size_t bytes, int decay_reps, struct cache_reading *r, struct errbuf *err)
{
	int fd[2], status, ret = 0;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		return set_err(err, -errno, "cache probe: pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		ret = set_err(err, -errno, "cache probe: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) { /* the child: measure, write the reading, leave without atexit */
		struct cache_probe p;
		struct errbuf e;
		struct cache_reading c = {0};
		if (!cache_probe_init(&p, bytes, &e))
			c = cache_probe_state(&p, decay_reps);
		_exit(write(fd[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 1);
	}
	close(fd[1]);
	fd[1] = -1;
	ssize_t n;
	do
		n = read(fd[0], r, sizeof *r);
	while (n < 0 && errno == EINTR);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof *r || !(r->idle_ns > 0))
		ret = set_err(err, -EIO, "cache probe: the child gave no reading");
out:
	close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	return ret;
}
