/*
 * Symbol lookup in an object that ld.so has already mapped, for the
 * freestanding shim (no libc, no dlsym). Used to find __libc_stack_end in
 * ld.so, the preload's hook object, and the functions the preload wraps.
 */
#ifndef LDPROF_SHIM_ELFSYM_H
#define LDPROF_SHIM_ELFSYM_H

#include <elf.h>
#include <link.h>
#include <stdint.h>

#include "shim-sys.h"

struct shim_dynobj {
	uintptr_t base;
	const ElfW(Sym) * symtab;
	const char *strtab;
	const uint32_t *gnu_hash;
	const uint32_t *sysv_hash;
	const ElfW(Half) * versym;
};

/* Find a tag in a .dynamic array; NULL when absent. */
SHIM_HIDDEN ElfW(Dyn) * shim_dyn_find(ElfW(Dyn) * dyn, ElfW(Sxword) tag);

/* An address-valued .dynamic entry as a run-time address. */
SHIM_HIDDEN uintptr_t shim_dyn_addr(uintptr_t base, uintptr_t value);

/* Fill o from a loaded object's link_map; returns 0 or -1 (no symbols). */
SHIM_HIDDEN int shim_dynobj_init(struct shim_dynobj *o, const struct link_map *m);

/*
 * The run-time address of a defined, default-version, non-IFUNC symbol, or 0.
 * IFUNCs are refused: calling a resolver from inside ld.so is not safe.
 */
SHIM_HIDDEN uintptr_t shim_dynobj_lookup(const struct shim_dynobj *o, const char *name);

/* The same, by link_map. */
SHIM_HIDDEN uintptr_t shim_lookup(const struct link_map *m, const char *name);

#endif
