/*
 * One ELF object read the way ld.so reads it: through the program headers
 * and the dynamic segment, not the section headers (which may be stripped).
 * libelf (gelf) does the decoding; every offset is bounds-checked before
 * use, so malformed files give an error, never a crash.
 */
#ifndef LDPROF_ELFOBJ_H
#define LDPROF_ELFOBJ_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

/* Relocations by what they cost the loader. */
struct reloc_counts {
	uint64_t relative;  /* R_X86_64_RELATIVE in DT_RELA/DT_REL */
	uint64_t relr;      /* relative relocations packed in DT_RELR */
	uint64_t glob_dat;  /* symbol lookups for the GOT */
	uint64_t jump_slot; /* PLT slots: looked up at startup only if BIND_NOW */
	uint64_t symbolic;  /* other relocations naming a symbol (64, PC32...) */
	uint64_t tls;       /* DTPMOD64, DTPOFF64, TPOFF64, TLSDESC */
	uint64_t irelative; /* IFUNC resolver calls */
	uint64_t copy;      /* R_X86_64_COPY */
	uint64_t other;     /* NONE and anything else */
};

uint64_t reloc_counts_total(const struct reloc_counts *r);

enum elf_kind {
	ELF_KIND_STATIC_EXEC, /* ET_EXEC without PT_INTERP */
	ELF_KIND_STATIC_PIE,  /* ET_DYN without PT_INTERP, but DF_1_PIE */
	ELF_KIND_DYN_EXEC,    /* ET_EXEC with PT_INTERP */
	ELF_KIND_PIE,         /* ET_DYN with PT_INTERP */
	ELF_KIND_SHARED,      /* a shared library */
	ELF_KIND_OTHER,
};

struct elfobj {
	char *path;
	int fd;
	off_t size;
	Elf *elf;
	GElf_Ehdr ehdr;
	GElf_Phdr *phdr;
	size_t nphdr;
	enum elf_kind kind;
	char *interp; /* PT_INTERP, or NULL */

	/* The dynamic segment; all NULL/0 for a static object. */
	GElf_Dyn *dyn;
	size_t ndyn;
	const char *dynstr; /* DT_STRTAB..+DT_STRSZ inside the file image */
	size_t dynstr_size;
	const char *soname;
	const char **needed;
	size_t nneeded;
	const char *rpath, *runpath;
	uint64_t dt_flags, dt_flags_1;
	bool bind_now; /* DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW */
	bool textrel;
	uint32_t init_funcs, fini_funcs; /* DT_INIT + DT_INIT_ARRAY entries */
	struct reloc_counts relocs;
};

/*
 * Open and validate path as an x86-64 ELF64 object. Returns 0, or -errno
 * (-ENOEXEC for a file that is not a usable ELF object) with err set to
 * "PATH: WHY".
 */
int elfobj_open(const char *path, struct elfobj **out, struct errbuf *err);
void elfobj_close(struct elfobj *o);

/* The file offset of [vaddr, vaddr + size) inside one PT_LOAD; -ERANGE if none. */
int elfobj_vaddr_to_offset(const struct elfobj *o, uint64_t vaddr, uint64_t size, uint64_t *off);

/* A string of .dynstr, or NULL when off is out of range or unterminated. */
const char *elfobj_dynstr(const struct elfobj *o, uint64_t off);

/* The first .dynamic entry with this tag, or NULL. */
const GElf_Dyn *elfobj_dyn(const struct elfobj *o, int64_t tag);

/* Raw bytes of [off, off + size) in the file, or NULL if out of range. */
const void *elfobj_bytes(const struct elfobj *o, uint64_t off, uint64_t size);

bool elf_kind_is_static(enum elf_kind k);
const char *elf_kind_name(enum elf_kind k);

/* Count relocations by kind (elfreloc.c); fills o->relocs. */
int elfobj_count_relocs(struct elfobj *o, struct errbuf *err);

#endif
