/*
 * Unit tests for the --cold-cache evictor: its buffer is twice the largest
 * cache sysfs reports (at least 64 MiB, at most 1 GiB); after a sweep, a
 * buffer read just before is no longer cached, not even in the core's own
 * L2 (the probe's chase through it is several times slower than straight
 * after a read); the helper is not the caller's child (-f waits for every
 * child), answers each sweep, and ends when stopped.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <sys/wait.h>

#include "unit.h"
#include "base/cacheevict.h"
#include "base/cacheprobe.h"

/* The largest cache cpu0 has, as sysfs says; 0 when it says nothing. */
static size_t largest_cache(void)
{
	size_t largest = 0;

	for (int i = 0; i < 8; i++) {
		char path[96];
		unsigned long v;
		char unit = 0;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
			size_t s = unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
			largest = s > largest ? s : largest;
		}
		fclose(f);
	}
	return largest;
}

/* Within 5 s, pid is gone (init reaps it): kill(pid, 0) says ESRCH. */
static int gone(pid_t pid)
{
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 5000; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return 1;
		nanosleep(&ms, NULL);
	}
	return 0;
}

int main(void)
{
	struct cache_evictor ev;
	struct cache_probe p;
	struct errbuf err;
	size_t want = largest_cache();
	double hot = 0, after = 0;
	int slower = 0;

	size_t expect = 2 * want < ((size_t)64 << 20)	 ? (size_t)64 << 20
			: want > ((size_t)512 << 20) ? (size_t)1 << 30
						      : 2 * want;
	CHECK(cache_evict_bytes() == expect);
	CHECK(cache_evictor_start(&ev, cache_evict_bytes(), &err) == 0);
	CHECK(ev.pid > 0);
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD); /* no child of ours */
	/* A quarter of a MiB: hot, it stays in the core's own L2, which no tenant shares. */
	CHECK(cache_probe_init(&p, (size_t)256 << 10, &err) == 0);
	/* Three tries: a tenant's burst can slow one hot pass as much as a sweep. */
	for (int t = 0; t < 3 && !slower; t++) {
		(void)cache_probe_read(&p);
		hot = cache_probe_read(&p);
		CHECK(cache_evictor_sweep(&ev, &err) == 0);
		after = cache_probe_read(&p);
		slower = after > 3 * hot;
	}
	if (!slower)
		fprintf(stderr, "hot %.1f ns a line, after a sweep %.1f\n", hot, after);
	CHECK(slower);
	cache_probe_fini(&p);

	pid_t pid = ev.pid;
	cache_evictor_stop(&ev);
	CHECK(ev.pid == 0);
	CHECK(gone(pid)); /* it ended, and no zombie is left */
	cache_evictor_stop(&ev); /* twice is harmless */

	/* A helper that died: the next sweep is an error, not a hang or SIGPIPE. */
	CHECK(cache_evictor_start(&ev, (size_t)1 << 20, &err) == 0);
	kill(ev.pid, SIGKILL);
	CHECK(gone(ev.pid));
	CHECK(cache_evictor_sweep(&ev, &err) < 0);
	CHECK(err.msg[0] != '\0');
	cache_evictor_stop(&ev);
	return unit_done("cacheevict");
}
