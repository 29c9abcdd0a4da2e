/*
 * The binding simulation: every symbolic relocation of every loaded object
 * resolved as ld.so would resolve it at startup (relocation order, the
 * one-entry lookup cache, lazy PLT slots), plus ld.so's own vDSO lookups
 * and its version checks. From the bindings: the imports matrix, unused
 * direct dependencies and missing symbols.
 */
#ifndef LDPROF_SYMBIND_H
#define LDPROF_SYMBIND_H

#include <stdbool.h>
#include <stdint.h>

#include "ldso/resolve.h"
#include "ldso/symlookup.h"

enum {
	BIND_CACHED = 1 << 0,	  /* answered by the one-entry lookup cache */
	BIND_DEFERRED = 1 << 1,	  /* a lazy PLT slot: looked up at first call */
	BIND_PROTECTED = 1 << 2,  /* the reference is protected */
	BIND_IFUNC = 1 << 3,	  /* bound to an IFUNC: ld.so calls its resolver */
	BIND_UNIQUE = 1 << 4,	  /* STB_GNU_UNIQUE: the process-wide definition */
	BIND_WEAK_UNDEF = 1 << 5, /* an undefined weak reference: 0 */
	BIND_MISSING = 1 << 6,	  /* no definition: "undefined symbol" */
	BIND_VDSO = 1 << 7,	  /* a lookup in the vDSO (ld.so's setup, an IFUNC resolver) */
	BIND_UNTRACED = 1 << 8,	  /* made at a real start, not under LD_TRACE_LOADED_OBJECTS */
	BIND_LDSO = 1 << 9,	  /* ld.so's own: its malloc switch or its second relocation */
	BIND_EARLY = 1 << 10,	  /* a lazy PLT slot libc's early init binds before main */
	BIND_NFLAGS = 11,
};

/* The name --bindings and --json give flag 1 << bit ("cached", "lazy", ...). */
const char *bind_flag_name(unsigned bit);

struct binding {
	int from, to;	    /* object indices; to is -1 when unresolved */
	uint32_t sym, tsym; /* symbol indices in from and to */
	uint32_t type;	    /* R_X86_64_*, 0 for ld.so's own lookups */
	const char *name, *version;
	uint16_t flags;
	uint16_t namelen, verlen; /* their lengths (65535: use strlen) */
};

/* Per object: the relocations it owns and what binding them costs. */
struct obj_binding {
	struct lookup_work work;     /* at startup */
	struct lookup_work deferred; /* lazy PLT slots, when first called */
	struct lookup_work versions; /* of work, the version check's (symversion.c) */
	uint64_t ifunc_calls;	     /* IRELATIVE and IFUNC-bound relocations */
	uint64_t missing, weak_undef;
	bool lazy;	/* its PLT is bound lazily */
	bool relocated; /* false for ld.so (self-relocated) and missing objects */
};

/* A version requirement ld.so's check (dl-version.c) fails or warns about. */
struct version_problem {
	int obj; /* the object requiring it */
	const char *file, *version;
	enum { VP_NOT_FOUND, VP_WEAK_NOT_FOUND, VP_NO_VERSION_INFO } kind;
};

struct bindset {
	struct binding *b;
	size_t n, cap;
	struct obj_binding *obj; /* by object index */
	size_t nobj;
	uint32_t *imports; /* imports[from * nobj + to]: distinct symbols */
	struct version_problem *vp;
	size_t nvp, capvp;
	struct lookup_work total;
};

struct bind_options {
	bool bind_now;	 /* as LD_BIND_NOW: no lazy PLT slots */
	bool cold_lines; /* count lookup_work.cold_lines (a set of every line read) */
};

void bind_process(struct process *p, const struct bind_options *opt, struct bindset *bs);
void bindset_free(struct bindset *bs);

/* The symbols obj takes from dep (distinct names). */
uint32_t bind_imports(const struct bindset *bs, int obj, int dep);

#endif
