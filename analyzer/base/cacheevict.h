/*
 * --cold-cache: before each run, a helper process reads through a buffer
 * twice the size of the shared cache on every CPU the runs may use, so no
 * line the previous run read is still cached when the next one starts.
 * The page cache is left alone: files stay in memory, only the CPU caches
 * are emptied of the program's lines.
 *
 * Why: back to back, a small program's loader tables survive in the shared
 * cache from one run to the next (ninja --version relocated in 396 us back
 * to back and 673 us after 32 MiB were read in between; docs/model.md, "The
 * cache state"). A first start finds its tables in memory; this measures
 * that state, in the runs and in calibrate --cold-cache alike.
 *
 * A helper process, not the launcher: the kernel counts the launcher's
 * memory in each program's max RSS (run/spawn.h). Forked twice, so that it
 * is not ldprof's child: -f waits until ldprof has none left.
 */
#ifndef LDPROF_CACHEEVICT_H
#define LDPROF_CACHEEVICT_H

#include <stddef.h>
#include <sys/types.h>

#include "base/util.h"

struct cache_evictor {
	pid_t pid;     /* the helper (not ldprof's child: init's); 0: none */
	int sock;      /* a request is one byte; the helper answers one when done */
	size_t bytes;  /* its buffer */
	bool lost;	   /* a sweep failed: the helper is gone (why says how) */
	struct errbuf why;
};

/* The second-level cache of CPU 0, bytes (sysfs), 0 when unknown. */
size_t cache_l2_bytes(void);

/* Twice the largest CPU cache sysfs reports, at least 64 MiB, at most 1 GiB. */
size_t cache_evict_bytes(void);

/* Start the helper with a buffer of BYTES, touched once: 0, or -errno with err set. */
int cache_evictor_start(struct cache_evictor *ev, size_t bytes, struct errbuf *err);

/* Read the buffer through on each CPU and wait until done: 0, or -errno with err set. */
int cache_evictor_sweep(struct cache_evictor *ev, struct errbuf *err);

/* Stop the helper (it exits on its own, at once); safe on one never started. */
void cache_evictor_stop(struct cache_evictor *ev);

#endif
