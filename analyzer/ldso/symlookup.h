/*
 * One symbol lookup as glibc 2.36's _dl_lookup_symbol_x does it: the
 * scopes in order, each object's GNU hash (Bloom filter, bucket, chain) or
 * SysV hash, check_match's version rules, weak/global/unique bindings and
 * the protected-symbol rule, counting the work in the loader's terms.
 */
#ifndef LDPROF_SYMLOOKUP_H
#define LDPROF_SYMLOOKUP_H

#include <stdbool.h>
#include <stdint.h>

#include "ldso/resolve.h"
#include "base/strmap.h"

/*
 * A probe this far into the global scope costs more: measured with the
 * depth-K programs run back to back, each filler object in the scope added
 * 4.0 ns a lookup up to 12 of them, 5.2 from 12 to 24, 5.7 from 24 to 48, as
 * the link maps and Bloom words of a long scope outgrow the first-level
 * caches and the TLB (docs/model.md).
 */
#define LOOKUP_DEEP_FROM 12

/* The lookup work of one object's relocations (or of ld.so's own lookups). */
struct lookup_work {
	uint64_t lookups;	/* _dl_lookup_symbol_x calls */
	uint64_t cached;	/* relocations the one-entry lookup cache answered */
	uint64_t probes;	/* objects whose tables were consulted */
	uint64_t deep_probes;	/* of them, past the first LOOKUP_DEEP_FROM of the scope */
	uint64_t bloom_rejects; /* probes the GNU Bloom filter ended */
	uint64_t chain;		/* hash chain entries examined */
	uint64_t strcmps;	/* symbol names compared in full */
	uint64_t hash_bytes;	/* bytes of the names looked up, each hashed once */
	uint64_t cmp_bytes;	/* bytes those full comparisons read */
	uint64_t cold_lines;	/* 64-byte lines of names and tables read first (see touch) */
	uint64_t read_fault_16ths; /* page faults those reads take, in 16ths (see touch) */
	uint64_t pages_read;	   /* 4 KiB pages those reads touch first (see touch) */
	uint64_t ver_entries;	   /* the version check's steps (symversion.c) */
};

/* A symbol ld.so found: object index and symbol index, or obj -1. */
struct sym_val {
	int obj;
	uint32_t sym;
};

struct lookup_req {
	const char *name;
	uint32_t namelen;     /* strlen(name), 0 when not known yet */
	uint32_t hash;	      /* GNU hash of name */
	uint32_t sysv;	      /* SysV hash, UINT32_MAX until needed */
	int undef;	      /* the object looking */
	const Elf64_Sym *ref; /* its symbol, or NULL (identity only: see ref_other) */
	uint32_t ref_idx;
	uint8_t ref_other;		   /* ref's st_other (protected?), from the symref */
	const struct elf_version *version; /* NULL: unversioned */
	bool version_hidden_req;	   /* the request's own "hidden" flag */
	int tclass;
};

/* The 64-byte lines of the objects' tables a process's lookups have read. */
struct line_set {
	uint64_t *slot; /* line address + 1; 0 is empty */
	size_t cap, n;
};

/* The lines read first that a prefetcher's streams still follow. */
#define STREAM_LINES 16

/*
 * What a process's lookups share: STB_GNU_UNIQUE's one definition per
 * process (the first one found), and the lines already read.
 */
struct unique_table {
	struct strmap map; /* name -> struct sym_val * */
	struct line_set lines;
	uint64_t stream[STREAM_LINES]; /* the last lines read first, a ring */
	unsigned nstream;
	struct line_set pages;	 /* 4 KiB pages of the objects' files read */
	struct line_set windows; /* fault-around windows mapped, under each alignment */
	bool count_lines; /* keep lines and count cold_lines (the cost model's) */
	bool everyones;	  /* relocating libc or ld.so: their lines are every process's */
};

struct lookup_result {
	struct sym_val val;
	bool protected_ref; /* the reference was protected ("protected symbol") */
	bool unique;
	int8_t ifunc; /* the definition is an IFUNC: 1, 0, or -1 unknown */
};

/*
 * Look req up in the scopes of req->undef (the global scope, after the
 * object itself for DT_SYMBOLIC). Returns false when nothing matches.
 */
/* One _dl_lookup_symbol_x call: counted, and its name hashed. */
void lookup_count(struct unique_table *u, struct lookup_work *w, const struct elfobj *from,
		  struct lookup_req *req);
/* strcmp, adding to *bytes the bytes it read (ld.so compares a byte at a
   time). */
int lookup_name_cmp(const char *a, const char *b, uint64_t *bytes);
/* libc, ld.so and the vDSO: every dynamic process on the machine reads them. */
bool lookup_read_by_all(const struct elfobj *o);
/* ld.so reads len bytes at p, in o's image: the cold lines and the page
   faults it costs. */
void lookup_touch(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
		  const void *p, size_t len);
/* ld.so reads len bytes at p, in o's image, in order (a table it walks):
   the page faults it costs, charged to w; with w NULL, read while loading,
   which costs the relocation none. */
void lookup_touch_pages(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
			const void *p, size_t len);

bool symbol_lookup(struct process *p, struct unique_table *u, struct lookup_req *req,
		   struct lookup_work *w, struct lookup_result *res);
/*
 * symbol_lookup in two steps, the program's own table, then the rest of
 * the global scope (the caller counts the lookup). Exactly symbol_lookup
 * when the requester is not DT_SYMBOLIC and its symbol not protected:
 * the binding simulation reuses the second step across programs.
 */
bool symbol_lookup_program(struct process *p, struct unique_table *u, struct lookup_req *req,
			   struct lookup_work *w, struct lookup_result *res);
bool symbol_lookup_rest(struct process *p, struct unique_table *u, struct lookup_req *req,
			struct lookup_work *w, struct lookup_result *res);
/* The same in one explicit list of objects (the vDSO's own scope). */
bool symbol_lookup_in(struct process *p, struct unique_table *u, const int *list, size_t n,
		      struct lookup_req *req, struct lookup_work *w, struct lookup_result *res);

void unique_table_free(struct unique_table *u);

#endif
