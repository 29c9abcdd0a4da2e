#include "ldso/symmemo.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

void memo_table_init(struct memo_table *t)
{
	pthread_mutex_init(&t->lock, NULL);
	t->map = (struct strmap){0};
	t->hits = t->built = 0;
}

static void free_memo(void *v)
{
	struct reloc_memo *m = v;

	if (m)
		free(m->slot);
	free(m);
}

void memo_table_free(struct memo_table *t)
{
	strmap_free(&t->map, free_memo);
	pthread_mutex_destroy(&t->lock);
}

char *memo_key(const void *lib, const void *const *scope_objs, size_t n)
{
	struct sbuf sb = {0};

	sbuf_printf(&sb, "%p:", lib);
	for (size_t i = 0; i < n; i++)
		sbuf_printf(&sb, "%p,", scope_objs[i]);
	return sb.buf;
}

const struct reloc_memo *memo_find(struct memo_table *t, const char *key)
{
	const struct reloc_memo *m;

	pthread_mutex_lock(&t->lock);
	m = strmap_get(&t->map, key);
	t->hits += m != NULL;
	pthread_mutex_unlock(&t->lock);
	return m;
}

void memo_publish(struct memo_table *t, const char *key, struct reloc_memo *m)
{
	pthread_mutex_lock(&t->lock);
	if (strmap_get(&t->map, key)) {
		free_memo(m);
	} else {
		strmap_put(&t->map, key, m);
		t->built++;
	}
	pthread_mutex_unlock(&t->lock);
}
