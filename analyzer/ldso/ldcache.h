/*
 * /etc/ld.so.cache, read as glibc 2.36's ld.so reads it (elf/dl-cache.c).
 * There is no library API for this file: glibc only exposes it through
 * ld.so itself and `ldconfig -p`, so the format is parsed here.
 *
 * Current ldconfig writes the "new" format (magic "glibc-ld.so.cache1.1")
 * with an extension section naming the glibc-hwcaps subdirectories; the
 * old "ld.so-1.7.0" format with the new one embedded is read too.
 */
#ifndef LDPROF_LDCACHE_H
#define LDPROF_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ldso/hwcaps.h"
#include "base/util.h"

struct ldcache {
	char *path;
	bool absent; /* no usable cache: ld.so then skips this step */
	unsigned char *map;
	size_t size;
	const unsigned char *entries; /* nlibs records of entsize bytes */
	uint32_t nlibs;
	size_t entsize;	    /* 12 (old format) or 24 (new, with hwcap) */
	const char *strtab; /* base of key/value offsets */
	size_t strsize;	    /* bytes from strtab to the end of the file */
	/* The glibc-hwcaps extension: string offsets (from the file start),
	   and the priority ld.so gives each (0 = not usable here). */
	const uint32_t *hwcaps_names;
	uint32_t nhwcaps_names;
	uint32_t *priority;
	const struct hwcaps *hw;
};

/*
 * Map and check path. A missing or unusable file is not an error (ld.so
 * then searches without it): c->absent is set. -errno only for a file
 * that exists but cannot be read.
 */
int ldcache_open(const char *path, const struct hwcaps *hw, struct ldcache *c, struct errbuf *err);
void ldcache_close(struct ldcache *c);

/* The path ld.so takes from the cache for name, or NULL. */
const char *ldcache_lookup(const struct ldcache *c, const char *name);

/* ld.so's name order: digits compare as numbers (so libfoo.so.10 > .9). */
int ldcache_libcmp(const char *a, const char *b);

/* Call fn for every entry (name, path, flags, hwcap); for tests. */
void ldcache_foreach(const struct ldcache *c,
		     void (*fn)(const char *name, const char *path, int32_t flags, uint64_t hwcap,
				void *arg),
		     void *arg);

#endif
