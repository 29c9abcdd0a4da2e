/*
 * One ELF object read the way ld.so reads it: through the program headers
 * and the dynamic segment, not the section headers (which may be stripped).
 * libelf maps the file (ELF_C_READ_MMAP) and decodes the headers; the
 * tables ld.so walks (symbols, hash tables, versions, relocations) are used
 * in place inside that mapping, never copied. Every table is bounds- and
 * alignment-checked once when the object is opened, so the code that walks
 * them later (the binding simulation) needs no further checks and malformed
 * files give an error, never a crash or a hang.
 */
#ifndef LDPROF_ELFOBJ_H
#define LDPROF_ELFOBJ_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/util.h"

/* Relocations by what they cost the loader. */
struct reloc_counts {
	uint64_t relative;  /* R_X86_64_RELATIVE in DT_RELA/DT_REL */
	uint64_t relr;	    /* relative relocations packed in DT_RELR */
	uint64_t glob_dat;  /* symbol lookups for the GOT */
	uint64_t jump_slot; /* PLT slots: looked up at startup only if BIND_NOW */
	uint64_t symbolic;  /* other relocations naming a symbol (64, PC32...) */
	uint64_t tls;	    /* DTPMOD64, DTPOFF64, TPOFF64, TLSDESC */
	uint64_t irelative; /* IFUNC resolver calls */
	uint64_t copy;	    /* R_X86_64_COPY */
	uint64_t other;	    /* NONE and anything else */
};

uint64_t reloc_counts_total(const struct reloc_counts *r);

enum elf_kind {
	ELF_KIND_STATIC_EXEC, /* ET_EXEC without PT_INTERP */
	ELF_KIND_STATIC_PIE,  /* ET_DYN without PT_INTERP, but DF_1_PIE */
	ELF_KIND_DYN_EXEC,    /* ET_EXEC with PT_INTERP */
	ELF_KIND_PIE,	      /* ET_DYN with PT_INTERP */
	ELF_KIND_SHARED,      /* a shared library */
	ELF_KIND_OTHER,
};

/* The loader's relocation type classes (elf_machine_type_class on x86-64). */
enum {
	RTYPE_CLASS_PLT = 1,  /* JUMP_SLOT and the TLS types: skip SHN_UNDEF */
	RTYPE_CLASS_COPY = 2, /* R_X86_64_COPY: skip the executable */
};

/*
 * One relocation that makes ld.so look a symbol up: a non-zero symbol
 * index whose symbol is neither local nor hidden/internal. Kept in the
 * order ld.so processes them (DT_RELA without the PLT part, then DT_JMPREL),
 * with what every lookup needs about the symbol computed once per file
 * (its name, length, GNU hash and version), so that the binding simulation
 * walks this array instead of the symbol table.
 */
struct elf_version;
struct elf_symref {
	uint64_t offset;		   /* r_offset */
	const char *name;		   /* the symbol's name */
	const struct elf_version *version; /* requested version, NULL when none */
	uint32_t sym;			   /* index into the dynamic symbol table */
	uint32_t type;			   /* R_X86_64_* */
	uint32_t hash;			   /* GNU hash of name */
	uint16_t namelen;		   /* strlen(name), 65535 meaning at least that */
	uint8_t tclass;			   /* RTYPE_CLASS_* bits */
	uint8_t info;			   /* the symbol's st_info (its binding: weak?) */
	uint8_t other;			   /* and st_other (its visibility: protected?) */
	bool in_jmprel;			   /* deferred until first call when the object is lazy */
};

/*
 * A symbol version as ld.so's l_versions[] holds it, indexed by the
 * versym value & 0x7fff. Index 0 and 1 (local, global) have hash 0.
 */
struct elf_version {
	uint32_t hash;
	const char *name;
	const char *file; /* the needed file for a verneed entry, else NULL */
	uint16_t namelen; /* strlen(name), capped at 65535 */
	bool hidden;	  /* the index carries 0x8000 (vna_other / vd_ndx) */
	bool weak;	  /* VER_FLG_WEAK on a verneed entry */
	bool base;	  /* VER_FLG_BASE: the object's own name */
};

/* One version a DT_VERNEED entry requires of a needed file. */
struct elf_vneed {
	const char *file, *name;
	const void *ent, *aux; /* its Elf64_Verneed and Elf64_Vernaux in the image */
	uint32_t hash;
	uint16_t ndx;
	bool weak;
};

/* One version a DT_VERDEF entry defines. */
struct elf_vdef {
	const char *name;
	const void *ent, *aux; /* its Elf64_Verdef and Elf64_Verdaux in the image */
	uint32_t hash;
	uint16_t ndx;
	bool base;
};

enum elf_hash_style { HASH_NONE, HASH_SYSV, HASH_GNU };

struct elf_hash_stats {
	enum elf_hash_style style; /* the one ld.so uses (GNU when both) */
	bool has_gnu, has_sysv;
	uint32_t nbuckets;     /* of the table ld.so uses */
	uint32_t used_buckets; /* non-empty buckets */
	uint32_t max_chain;    /* longest chain */
	double avg_chain;      /* symbols per non-empty bucket */
	uint32_t bloom_words;  /* GNU only */
};

/* A table inside the mapped image. */
struct elf_span {
	const void *p;
	size_t size;
};

struct elf_load_seg {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags; /* PF_R/PF_W/PF_X */
};

/* The GNU hash table, ready for lookups (pointers into the mapping). */
struct elf_gnu_hash {
	uint32_t nbuckets, symoffset, bloom_mask, shift;
	const uint64_t *bloom;
	const uint32_t *buckets;
	const uint32_t *chain; /* chain[0] is the entry of symbol symoffset */
};

struct elf_sysv_hash {
	uint32_t nbuckets, nchain;
	const uint32_t *buckets, *chain;
};

struct elfobj {
	char *path;
	off_t size;
	dev_t dev;
	ino_t ino;
	Elf *elf;
	const unsigned char *image; /* the whole file, mapped */
	size_t image_size;
	GElf_Ehdr ehdr;
	GElf_Phdr *phdr;
	size_t nphdr;
	enum elf_kind kind;
	char *interp; /* PT_INTERP, or NULL */

	struct elf_load_seg *loads;
	size_t nloads;
	uint64_t relro_size; /* PT_GNU_RELRO, 0 when absent */
	uint64_t relro_pages; /* the 4 KiB pages ld.so's mprotect of it covers */

	/* The dynamic segment; all NULL/0 for a static object. */
	GElf_Dyn *dyn;
	size_t ndyn;
	const char *dynstr; /* DT_STRTAB..+DT_STRSZ inside the file image */
	size_t dynstr_size;
	const char *soname;
	const char *rpath, *runpath;
	uint64_t dt_flags, dt_flags_1;
	bool bind_now; /* DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW */
	bool textrel;
	bool symbolic;			 /* DT_SYMBOLIC or DF_SYMBOLIC */
	uint32_t init_funcs, fini_funcs; /* DT_INIT + DT_INIT_ARRAY entries */
	/* Page faults its _init and _fini take in its own text, in 16ths
	   (elfobj.c): a static build has the executable's only. */
	uint32_t crt_faults16;
	struct reloc_counts relocs;
	uint64_t reloc_pages; /* distinct 4 KiB pages relocations write */
	/* Those of them loading has not written already: each is a
	   copy-on-write fault in the relocate phase (elfreloc.c). */
	uint64_t reloc_pages_faulted;
	/* The tables ld.so walks to relocate it: DT_RELA (its PLT part aside),
	   DT_REL, DT_JMPREL, DT_RELR. */
	struct elf_span reloc_tables[4];
	/* The IFUNC resolvers its R_X86_64_IRELATIVE relocations call (their
	   addends): relocation runs their code, whose pages it reads first. */
	uint64_t *irel_resolvers;
	size_t nirel_resolvers;

	/* Symbols, hash tables and versions (elfsym.c). */
	const Elf64_Sym *syms;
	uint32_t nsyms;
	const uint16_t *versym; /* nsyms entries, or NULL */
	struct elf_gnu_hash gnu;
	struct elf_sysv_hash sysv;
	struct elf_hash_stats hash;
	struct elf_version *versions; /* indexed by versym & 0x7fff */
	uint32_t nversions;
	struct elf_vneed *vneeds; /* version requirements, in file order */
	size_t nvneeds;
	struct elf_vdef *vdefs; /* version definitions, in file order */
	size_t nvdefs;

	/* Relocations that take a symbol lookup (elfreloc.c). */
	struct elf_symref *symrefs;
	size_t nsymrefs;
};

/*
 * Open and validate path as an x86-64 ELF64 object. Returns 0, or -errno
 * (-ENOEXEC for a file that is not a usable ELF object) with err set to
 * "PATH: WHY".
 */
int elfobj_open(const char *path, struct elfobj **out, struct errbuf *err);
/* The same for an image already in memory (the vDSO); name labels errors. */
int elfobj_open_memory(const char *name, const void *image, size_t size, struct elfobj **out,
		       struct errbuf *err);
void elfobj_close(struct elfobj *o);
/* Every Bloom word of PATH's GNU hash table set to all ones, in place (elfbloom.c). */
int elf_fill_bloom(const char *path, struct errbuf *err);

/* Access to the mapped image (elfmap.c). */

/* The file offset of [vaddr, vaddr + size) inside one PT_LOAD; -ERANGE if none. */
int elfobj_vaddr_to_offset(const struct elfobj *o, uint64_t vaddr, uint64_t size, uint64_t *off);

/* A string of .dynstr, or NULL when off is out of range. */
const char *elfobj_dynstr(const struct elfobj *o, uint64_t off);

/* The first .dynamic entry with this tag, or NULL. */
const GElf_Dyn *elfobj_dyn(const struct elfobj *o, int64_t tag);

/* Raw bytes of [off, off + size) in the file, or NULL if out of range. */
const void *elfobj_bytes(const struct elfobj *o, uint64_t off, uint64_t size);

/*
 * A table of count entries of entsize bytes at vaddr, inside the file and
 * aligned to align: a pointer into the mapping, or NULL.
 */
const void *elfobj_table(const struct elfobj *o, uint64_t vaddr, uint64_t count, size_t entsize,
			 size_t align);

/* The name of symbol i (i < nsyms); "" when its name is out of range.
   Inline: the binding simulation asks millions of times. */
static inline const char *elfobj_sym_name(const struct elfobj *o, uint32_t i)
{
	uint64_t off = o->syms[i].st_name;

	return off < o->dynstr_size ? o->dynstr + off : "";
}

bool elf_kind_is_static(enum elf_kind k);
/* Is this glibc's libc (libc.so.6)? NULL is not. */
bool elf_soname_is_libc(const char *soname);
const char *elf_kind_name(enum elf_kind k);
const char *elf_hash_style_name(enum elf_hash_style s);

/*
 * The steps of opening, in the order elfobj.c's parse() drives them:
 * hash tables and versions (elfsym.c); the relocation counts, which say
 * how many symbols the relocations name (elfreloc.c); the symbol table,
 * sized to cover both (elfsym.c); the relocations that take a symbol
 * lookup (elfreloc.c).
 */
int elfobj_read_symbols(struct elfobj *o, struct errbuf *err);
int elfobj_read_relocs(struct elfobj *o, uint32_t *nsyms_named, struct errbuf *err);
int elfobj_finish_symtab(struct elfobj *o, uint32_t min_count, struct errbuf *err);
int elfobj_read_symrefs(struct elfobj *o, struct errbuf *err);

/* The version of symbol i as ld.so sees it (a zero entry when unversioned). */
extern const struct elf_version elfobj_no_version;
static inline const struct elf_version *elfobj_sym_version(const struct elfobj *o, uint32_t i)
{
	uint16_t ndx;

	if (!o->versym)
		return &elfobj_no_version;
	ndx = o->versym[i] & 0x7fff;
	return ndx < o->nversions ? &o->versions[ndx] : &elfobj_no_version;
}

/* The loader's name hashes. */
uint32_t ldso_gnu_hash(const char *name);
uint32_t ldso_sysv_hash(const char *name);

#endif
