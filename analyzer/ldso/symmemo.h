/*
 * Relocation results reused across programs. A library's lookups depend on
 * the global scope; past the program itself (always first), the scopes of
 * many programs are the same list of libraries. So for each library and
 * each such list, the result of every lookup in the rest of the scope, and
 * its work, is kept; another program with the same list only probes its
 * own table, then reuses the answer. Lookups whose answer depends on more
 * (STB_GNU_UNIQUE, protected symbols, DT_SYMBOLIC objects) are never kept.
 */
#ifndef LDPROF_SYMMEMO_H
#define LDPROF_SYMMEMO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/strmap.h"

/* One lookup past the program: where, and what it cost. */
struct memo_slot {
	int32_t pos;  /* position in the global scope, -1: nothing */
	uint32_t sym; /* symbol index there */
	uint32_t probes, deep_probes, bloom_rejects, chain, strcmps, cmp_bytes;
	uint32_t cold_lines; /* as the program that built the memo read them first */
	uint32_t read_fault_16ths; /* likewise */
	uint32_t pages_read;	   /* likewise */
	bool ok;	     /* a reusable answer */
	bool ifunc;	     /* the definition is an IFUNC */
};

struct reloc_memo {
	struct memo_slot *slot; /* by symref index of the library */
	size_t n;
};

struct memo_table {
	pthread_mutex_t lock;
	struct strmap map; /* "library:scope" -> struct reloc_memo */
	uint64_t hits, built;
};

void memo_table_init(struct memo_table *t);
void memo_table_free(struct memo_table *t);

/* The key of a library in a scope (its objects' identities past the program). */
char *memo_key(const void *lib, const void *const *scope_objs, size_t n);
/* A published memo for key, or NULL. */
const struct reloc_memo *memo_find(struct memo_table *t, const char *key);
/* Publish m under key (the table owns it; a concurrent twin is dropped). */
void memo_publish(struct memo_table *t, const char *key, struct reloc_memo *m);

#endif
