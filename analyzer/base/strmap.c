#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* FNV-1a: short keys (paths, names), no need for anything stronger. */
static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct strmap_slot *find(const struct strmap *m, const char *key, uint32_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slot[i];
		if (!s->key || (s->hash == h && !strcmp(s->key, key)))
			return s;
	}
}

static void grow(struct strmap *m)
{
	struct strmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->slot = xcalloc(m->cap, sizeof *m->slot);
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].key)
			*find(m, old.slot[i].key, old.slot[i].hash) = old.slot[i];
	free(old.slot);
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_slot *s;

	if (!m->cap)
		return NULL;
	s = find(m, key, hash_str(key));
	return s->key ? s->value : NULL;
}

void *strmap_put(struct strmap *m, const char *key, void *value)
{
	uint32_t h = hash_str(key);
	struct strmap_slot *s;
	void *old;

	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	s = find(m, key, h);
	if (!s->key) {
		s->key = xstrdup(key);
		s->hash = h;
		s->value = NULL;
		m->n++;
	}
	old = s->value;
	s->value = value;
	return old;
}

void strmap_free(struct strmap *m, void (*fn)(void *value))
{
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slot[i].key)
			continue;
		if (fn)
			fn(m->slot[i].value);
		free(m->slot[i].key);
	}
	free(m->slot);
	memset(m, 0, sizeof *m);
}
