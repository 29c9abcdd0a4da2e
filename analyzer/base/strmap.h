/*
 * A string-keyed hash map (open addressing, keys copied). The loader
 * simulation memoises file probes and parsed objects by path with it, so a
 * run over a thousand programs touches each file once.
 */
#ifndef LDPROF_STRMAP_H
#define LDPROF_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	char *key;
	uint32_t hash;
	void *value;
};

struct strmap {
	struct strmap_slot *slot;
	size_t cap, n; /* cap is a power of two, or 0 */
};

/* The value stored under key, or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Store value under key (replacing any); returns the old value or NULL. */
void *strmap_put(struct strmap *m, const char *key, void *value);
/* Call fn on every value, then free the map (not the values themselves). */
void strmap_free(struct strmap *m, void (*fn)(void *value));

#endif
