/* The string map: puts, gets, replacement and growth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strmap.h"
#include "unit.h"

static int freed;

static void count_free(void *v)
{
	freed += v != NULL;
}

int main(void)
{
	struct strmap m = {0};
	char key[32];

	CHECK(strmap_get(&m, "nothing") == NULL);
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "key%d", i);
		CHECK(strmap_put(&m, key, (void *)(intptr_t)(i + 1)) == NULL);
	}
	CHECK(m.n == 1000);
	CHECK(strmap_get(&m, "key0") == (void *)1);
	CHECK(strmap_get(&m, "key999") == (void *)1000);
	CHECK(strmap_put(&m, "key5", (void *)7) == (void *)6);
	CHECK(strmap_get(&m, "key5") == (void *)7 && m.n == 1000);
	CHECK(strmap_get(&m, "key1000") == NULL);
	strmap_free(&m, count_free);
	CHECK(freed == 1000 && m.n == 0);
	return unit_done("strmap");
}
