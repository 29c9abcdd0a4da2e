/*
 * The stack layer's inside: one cached object (its file image, load
 * segments, unwind table and symbols) and the unwinder that holds them.
 * Only the files of analyzer/stack include this; the interface is stack.h.
 */
#ifndef LDPROF_STACK_INT_H
#define LDPROF_STACK_INT_H

#include <gelf.h>
#include <libunwind.h>

#include "base/strmap.h"
#include "stack/stack.h"

/* A PT_LOAD segment: where its bytes are in the file and in memory. */
struct stack_seg {
	uint64_t vaddr, memsz, offset, filesz;
	bool exec;
};

/* One function (or object) symbol: [start, end) in the object's ELF addresses. */
struct stack_symbol {
	uint64_t start, end;
	const char *name;
};

/* An object file, read once and kept for every sample that runs in it. */
struct stack_obj {
	char *path;
	const char *base; /* basename of path */
	int open_err;	  /* -errno when the file could not be used; then nothing below is set */
	char *open_msg;	  /* and why */

	int fd;
	Elf *elf;
	const uint8_t *image; /* the whole file, mapped by libelf */
	size_t size;

	struct stack_seg *segs;
	size_t nsegs;
	uint64_t text_lo, text_hi; /* the executable segments' span */

	/* .eh_frame_hdr's binary search table, for dwarf_search_unwind_table */
	bool has_table;
	uint64_t hdr_vaddr;   /* the header's address: the table's data-relative base */
	uint64_t table_vaddr; /* the first entry */
	uint64_t fde_count;

	/* Symbols, loaded at the first stack_symbolize */
	bool syms_loaded;
	enum stack_sym_source sym_source;
	struct stack_symbol *syms; /* sorted by start, no overlaps */
	size_t nsyms;
	int debug_fd; /* the separate debug file, -1 when none */
	Elf *debug_elf;
};

/* A loaded object's address range in the sampled process. */
struct stack_span {
	uint64_t lo, hi; /* [lo, hi) */
	uint64_t bias;	 /* address - ELF address */
	struct stack_obj *obj;
	int map; /* the first of the mappings it was found from */
};

struct stack_unwinder {
	unw_addr_space_t as;
	struct strmap objs; /* path -> struct stack_obj */
	struct stack_obj *vdso;

	/* The mappings of the last stack_unwind, copied to see when they change */
	struct stack_map *maps; /* with their own copies of the paths */
	size_t nmaps, maps_cap;
	struct stack_span *spans; /* sorted by lo */
	size_t nspans, spans_cap;
};

/* Open path read-only if it is a regular file: an fd, or -errno (-ENODEV for any other kind). */
int stack_open_file(const char *path);
/* The object at path, opened and cached on first use; never NULL (see open_err). */
struct stack_obj *stack_obj_get(struct stack_unwinder *u, const char *path);
void stack_obj_free(void *obj);
/* This process's own vDSO image, standing for a sample's "[vdso]". */
struct stack_obj *stack_obj_vdso(struct stack_unwinder *u);

/* File offset <-> ELF address through the load segments; false if in none. */
bool stack_obj_offset_to_vaddr(const struct stack_obj *o, uint64_t offset, uint64_t *vaddr);
bool stack_obj_vaddr_to_offset(const struct stack_obj *o, uint64_t vaddr, uint64_t *offset);
/* Copy n bytes at ELF address vaddr from the file; false if not all in the file. */
bool stack_obj_read(const struct stack_obj *o, uint64_t vaddr, void *buf, size_t n);
/*
 * The 8 bytes at ELF address vaddr, as far as the segment's file bytes go
 * (the rest zero): libunwind reads aligned words around the bytes it
 * wants, which may run past the end of a segment. False if not in one.
 */
bool stack_obj_word(const struct stack_obj *o, uint64_t vaddr, uint64_t *val);

/* Load o's symbols from the best source (stack-syms.c). */
void stack_syms_load(struct stack_obj *o);
/* The symbol covering ELF address vaddr, or NULL. */
const struct stack_symbol *stack_syms_find(const struct stack_obj *o, uint64_t vaddr);
/* Open o's separate debug file (build-id, then .gnu_debuglink): an fd and its Elf, or -1. */
int stack_debug_open(const struct stack_obj *o, Elf **elf);

/* The libunwind accessors (stack-access.c). */
extern unw_accessors_t stack_accessors;

/* What the accessors serve during one stack_unwind. */
struct stack_ctx {
	struct stack_unwinder *u;
	const struct stack_sample *sample;
	const struct stack_span *last; /* the span the last lookup hit */
};
const struct stack_span *stack_span_find(struct stack_ctx *c, uint64_t addr);

#endif
