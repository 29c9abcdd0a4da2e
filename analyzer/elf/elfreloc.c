/*
 * Relocations, read from the dynamic segment as ld.so finds them: DT_RELA,
 * DT_JMPREL (the PLT) and DT_RELR. When the PLT range ends where DT_RELA
 * ends (linkers emit it inside), it is counted once, as ld.so's
 * ELF_DYNAMIC_DO_RELA splits the range. x86-64 ld.so ignores DT_REL
 * (ELF_MACHINE_NO_REL): those are counted but never bound.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfobj.h"

uint64_t reloc_counts_total(const struct reloc_counts *r)
{
	return r->relative + r->relr + r->glob_dat + r->jump_slot + r->symbolic + r->tls +
	       r->irelative + r->copy + r->other;
}

static void count_type(struct reloc_counts *c, uint32_t type, uint32_t sym)
{
	switch (type) {
	case R_X86_64_RELATIVE:
	case R_X86_64_RELATIVE64:
		c->relative++;
		break;
	case R_X86_64_GLOB_DAT:
		c->glob_dat++;
		break;
	case R_X86_64_JUMP_SLOT:
		c->jump_slot++;
		break;
	case R_X86_64_IRELATIVE:
		c->irelative++;
		break;
	case R_X86_64_COPY:
		c->copy++;
		break;
	case R_X86_64_DTPMOD64:
	case R_X86_64_DTPOFF64:
	case R_X86_64_TPOFF64:
	case R_X86_64_TLSDESC:
		c->tls++;
		break;
	case R_X86_64_NONE:
		c->other++;
		break;
	default:
		if (sym)
			c->symbolic++;
		else
			c->other++;
	}
}

/* ld.so's elf_machine_type_class for x86-64. */
static uint8_t type_class(uint32_t type)
{
	switch (type) {
	case R_X86_64_JUMP_SLOT:
	case R_X86_64_DTPMOD64:
	case R_X86_64_DTPOFF64:
	case R_X86_64_TPOFF64:
	case R_X86_64_TLSDESC:
		return RTYPE_CLASS_PLT;
	case R_X86_64_COPY:
		return RTYPE_CLASS_COPY;
	default:
		return 0;
	}
}

struct table {
	uint64_t vaddr, size;
	const void *p; /* entries, in the mapping */
	size_t n;
};

/* Distinct 4 KiB pages written; consecutive duplicates are dropped early. */
struct pageset {
	uint64_t *page;
	size_t n, cap;
};

static void page_add(struct pageset *ps, uint64_t addr)
{
	uint64_t pg = addr >> 12;

	if (ps->n && ps->page[ps->n - 1] == pg)
		return;
	GROW(ps->page, ps->cap, ps->n);
	ps->page[ps->n++] = pg;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts the set and drops its duplicates; returns how many pages it holds. */
static uint64_t page_count(struct pageset *ps)
{
	size_t distinct = 0;

	if (!ps->n)
		return 0;
	qsort(ps->page, ps->n, sizeof *ps->page, cmp_u64);
	for (size_t i = 0; i < ps->n; i++)
		if (!i || ps->page[i] != ps->page[i - 1])
			ps->page[distinct++] = ps->page[i];
	ps->n = distinct;
	return distinct;
}

/* The pages of a sorted, distinct set that another sorted, distinct set
   lacks. */
static uint64_t page_count_except(const struct pageset *ps, const struct pageset *out)
{
	uint64_t n = 0;
	size_t j = 0;

	for (size_t i = 0; i < ps->n; i++) {
		while (j < out->n && out->page[j] < ps->page[i])
			j++;
		if (j == out->n || out->page[j] != ps->page[i])
			n++;
	}
	return n;
}

/* Whether ld.so adjusts a dynamic entry with this tag by the load address
   in place (glibc's elf_get_dynamic_info; DT_RELA and DT_REL only when
   non-zero). */
static bool dyn_adjusted(const GElf_Dyn *d)
{
	switch (d->d_tag) {
	case DT_HASH:
	case DT_PLTGOT:
	case DT_STRTAB:
	case DT_SYMTAB:
	case DT_RELR:
	case DT_JMPREL:
	case DT_VERSYM:
	case DT_GNU_HASH:
		return true;
	case DT_RELA:
	case DT_REL:
		return d->d_un.d_ptr != 0;
	default:
		return false;
	}
}

/*
 * The pages loading has written before relocation starts, where a
 * relocation's write takes no copy-on-write fault of its own (measured:
 * an object with nothing to relocate but its .init_array, .got and
 * __dso_handle takes none in _dl_relocate_object, by uprobe and the
 * page-fault tracepoint, though its relocations write two pages):
 * - the last file page of a segment with .bss after it, whose tail ld.so
 *   zeroes (the kernel, for the executable);
 * - in a loaded object (ET_DYN) whose dynamic segment is writable, the
 *   dynamic entries ld.so adjusts by the load address in place, and in
 *   the executable DT_DEBUG, which ld.so points at its r_debug.
 */
static void loading_writes(const struct elfobj *o, struct pageset *ps)
{
	bool is_exec = o->kind == ELF_KIND_DYN_EXEC || o->kind == ELF_KIND_PIE;
	bool relocated = o->ehdr.e_type == ET_DYN;

	for (size_t i = 0; i < o->nloads; i++) {
		const struct elf_load_seg *l = &o->loads[i];
		uint64_t dataend = l->vaddr + l->filesz;
		if (l->memsz > l->filesz && dataend % 4096)
			page_add(ps, dataend);
	}
	for (size_t i = 0; i < o->nphdr; i++) {
		const GElf_Phdr *p = &o->phdr[i];
		if (p->p_type != PT_DYNAMIC || !(p->p_flags & PF_W))
			continue;
		for (size_t k = 0; k < o->ndyn; k++) {
			const GElf_Dyn *d = &o->dyn[k];
			if ((relocated && dyn_adjusted(d)) || (is_exec && d->d_tag == DT_DEBUG))
				page_add(ps, p->p_vaddr + k * sizeof(Elf64_Dyn));
		}
		break;
	}
}

static int entsize_ok(const struct elfobj *o, int64_t tag, uint64_t want, struct errbuf *err)
{
	const GElf_Dyn *d = elfobj_dyn(o, tag);

	if (d && d->d_un.d_val != want)
		return set_err(err, -ENOEXEC, "%s: relocation entry size %llu, expected %llu",
			       o->path, (unsigned long long)d->d_un.d_val,
			       (unsigned long long)want);
	return 0;
}

static void map_table(const struct elfobj *o, int64_t addr_tag, int64_t size_tag, struct table *t)
{
	const GElf_Dyn *a = elfobj_dyn(o, addr_tag), *s = elfobj_dyn(o, size_tag);

	memset(t, 0, sizeof *t);
	if (!a || !s || !s->d_un.d_val)
		return;
	t->vaddr = a->d_un.d_ptr;
	t->size = s->d_un.d_val;
}

static int place_table(struct elfobj *o, struct table *t, size_t entsize, const char *what,
		       struct errbuf *err)
{
	t->n = t->size / entsize;
	if (!t->n)
		return 0;
	t->p = elfobj_table(o, t->vaddr, t->n, entsize, 8);
	if (!t->p)
		return set_err(err, -ENOEXEC, "%s: %s lies outside the file or is misaligned",
			       o->path, what);
	return 0;
}

struct reloc_scan {
	struct reloc_counts c;
	struct pageset pages;
	uint32_t max_sym;
	uint64_t *irel; /* IRELATIVE addends: the resolvers */
	size_t nirel, irel_cap;
};

static void scan_rela(const struct table *t, struct reloc_scan *s)
{
	const Elf64_Rela *r = t->p;

	for (size_t i = 0; i < t->n; i++) {
		uint32_t sym = (uint32_t)ELF64_R_SYM(r[i].r_info);
		count_type(&s->c, (uint32_t)ELF64_R_TYPE(r[i].r_info), sym);
		page_add(&s->pages, r[i].r_offset);
		if (ELF64_R_TYPE(r[i].r_info) == R_X86_64_IRELATIVE) {
			GROW(s->irel, s->irel_cap, s->nirel);
			s->irel[s->nirel++] = (uint64_t)r[i].r_addend;
		}
		if (sym > s->max_sym)
			s->max_sym = sym;
	}
}

static void scan_rel(const struct table *t, struct reloc_scan *s)
{
	const Elf64_Rel *r = t->p;

	for (size_t i = 0; i < t->n; i++) {
		count_type(&s->c, (uint32_t)ELF64_R_TYPE(r[i].r_info),
			   (uint32_t)ELF64_R_SYM(r[i].r_info));
		page_add(&s->pages, r[i].r_offset);
	}
}

/* DT_RELR: an even word is one address; an odd word is a 63-bit bitmap of
   the words that follow the last address. */
static void scan_relr(const struct table *t, struct reloc_scan *s)
{
	const uint64_t *w = t->p;
	uint64_t base = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (!(w[i] & 1)) {
			s->c.relr++;
			page_add(&s->pages, w[i]);
			base = w[i] + 8;
			continue;
		}
		for (unsigned bit = 1; bit < 64; bit++) {
			if (!((w[i] >> bit) & 1))
				continue;
			s->c.relr++;
			page_add(&s->pages, base + (bit - 1) * 8);
		}
		base += 63 * 8;
	}
}

static bool needs_lookup(const struct elfobj *o, uint32_t type, uint32_t sym)
{
	const Elf64_Sym *s;

	if (!sym || type == R_X86_64_RELATIVE || type == R_X86_64_RELATIVE64 ||
	    type == R_X86_64_NONE)
		return false;
	/* ld.so's RESOLVE_MAP binds local, hidden and internal symbols to the
	   object itself without a lookup. */
	s = &o->syms[sym];
	if (ELF64_ST_BIND(s->st_info) == STB_LOCAL)
		return false;
	return ELF64_ST_VISIBILITY(s->st_other) != STV_HIDDEN &&
	       ELF64_ST_VISIBILITY(s->st_other) != STV_INTERNAL;
}

static void add_symrefs(struct elfobj *o, const struct table *t, bool jmprel, size_t *cap)
{
	const Elf64_Rela *r = t->p;

	for (size_t i = 0; i < t->n; i++) {
		uint32_t type = (uint32_t)ELF64_R_TYPE(r[i].r_info);
		uint32_t sym = (uint32_t)ELF64_R_SYM(r[i].r_info);
		if (!needs_lookup(o, type, sym))
			continue;
		const char *name = elfobj_sym_name(o, sym);
		const struct elf_version *ver = elfobj_sym_version(o, sym);
		size_t len = strlen(name);
		GROW(o->symrefs, *cap, o->nsymrefs);
		o->symrefs[o->nsymrefs++] = (struct elf_symref){
			.offset = r[i].r_offset,
			.name = name,
			.version = ver->hash ? ver : NULL,
			.sym = sym,
			.type = type,
			.hash = ldso_gnu_hash(name),
			.namelen = len > UINT16_MAX ? UINT16_MAX : (uint16_t)len,
			.tclass = type_class(type),
			.info = o->syms[sym].st_info,
			.other = o->syms[sym].st_other,
			.in_jmprel = jmprel,
		};
	}
}

/* The symbolic relocations, with their symbols' facts, once per file and
   reused for every program that loads it. x86-64 ld.so binds RELA only. */
static void build_symrefs(struct elfobj *o, const struct table *rela, const struct table *plt,
			  bool plt_rela)
{
	size_t cap = 0;

	if (!o->nsyms)
		return;
	add_symrefs(o, rela, false, &cap);
	if (plt_rela)
		add_symrefs(o, plt, true, &cap);
}

static int read_tables(struct elfobj *o, struct table *rela, struct table *rel, struct table *plt,
		       struct table *relr, bool plt_rela, struct errbuf *err)
{
	int r;

	map_table(o, DT_RELA, DT_RELASZ, rela);
	map_table(o, DT_REL, DT_RELSZ, rel);
	map_table(o, DT_JMPREL, DT_PLTRELSZ, plt);
	map_table(o, DT_RELR, DT_RELRSZ, relr);
	/* Do not count the PLT twice when DT_RELASZ already covers it. */
	struct table *outer = plt_rela ? rela : rel;
	if (plt->size && outer->size && plt->vaddr >= outer->vaddr &&
	    plt->vaddr + plt->size == outer->vaddr + outer->size && plt->size <= outer->size)
		outer->size -= plt->size;
	if ((r = place_table(o, rela, sizeof(Elf64_Rela), "DT_RELA", err)) ||
	    (r = place_table(o, rel, sizeof(Elf64_Rel), "DT_REL", err)) ||
	    (r = place_table(o, plt, plt_rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel), "DT_JMPREL",
			     err)) ||
	    (r = place_table(o, relr, sizeof(uint64_t), "DT_RELR", err)))
		return r;
	return 0;
}

/*
 * A COPY relocation writes the whole object it copies, not only the page
 * of its first byte: ld.so copies the executable's symbol's st_size bytes
 * (each page of the executable's .bss a zero-fill fault; a 16000-byte
 * copy took five, by the kernel's page-fault tracepoint). Within the
 * segment that holds it, and at most COPY_PAGES_MAX pages: a hostile file
 * may claim any size, and no real copy comes near 256 MiB.
 */
#define COPY_PAGES_MAX 65536

static void copy_pages(const struct elfobj *o, const struct table *t, struct pageset *ps)
{
	const Elf64_Rela *r = t->p;

	for (size_t i = 0; i < t->n; i++) {
		uint32_t sym = (uint32_t)ELF64_R_SYM(r[i].r_info);
		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_COPY || sym >= o->nsyms)
			continue;
		uint64_t at = r[i].r_offset, size = o->syms[sym].st_size, room = 0;
		for (size_t k = 0; k < o->nloads; k++)
			if (at >= o->loads[k].vaddr && at - o->loads[k].vaddr < o->loads[k].memsz)
				room = o->loads[k].memsz - (at - o->loads[k].vaddr);
		if (size > room)
			size = room;
		if (size > (uint64_t)COPY_PAGES_MAX * 4096)
			size = (uint64_t)COPY_PAGES_MAX * 4096;
		uint64_t pages = (at % 4096 + size + 4095) / 4096;
		for (uint64_t k = 1; k < pages; k++) /* the first page is in already */
			page_add(ps, (at & ~(uint64_t)4095) + k * 4096);
	}
}

static void scan_all(const struct table *rela, const struct table *rel, const struct table *plt,
		     const struct table *relr, bool plt_rela, struct reloc_scan *s)
{
	scan_rela(rela, s);
	scan_rel(rel, s);
	if (plt_rela)
		scan_rela(plt, s);
	else
		scan_rel(plt, s);
	scan_relr(relr, s);
}

/* reloc_pages and reloc_pages_faulted from the pages relocations write;
   frees the set. */
static void count_pages(struct elfobj *o, struct pageset *written)
{
	struct pageset loaded = {0};

	o->reloc_pages = page_count(written);
	loading_writes(o, &loaded);
	page_count(&loaded);
	o->reloc_pages_faulted = page_count_except(written, &loaded);
	free(written->page);
	free(loaded.page);
}

/* Whether the PLT relocations are RELA (DT_PLTREL; RELA when absent). */
static bool plt_is_rela(const struct elfobj *o)
{
	const GElf_Dyn *pltrel = elfobj_dyn(o, DT_PLTREL);

	return !pltrel || pltrel->d_un.d_val == DT_RELA;
}

int elfobj_read_relocs(struct elfobj *o, uint32_t *nsyms_named, struct errbuf *err)
{
	struct table rela, rel, plt, relr;
	struct reloc_scan s = {0};
	bool plt_rela = plt_is_rela(o);
	int r;

	*nsyms_named = 0;
	if (!o->dyn)
		return 0;
	if ((r = entsize_ok(o, DT_RELAENT, sizeof(Elf64_Rela), err)) ||
	    (r = entsize_ok(o, DT_RELENT, sizeof(Elf64_Rel), err)) ||
	    (r = entsize_ok(o, DT_RELRENT, sizeof(uint64_t), err)) ||
	    (r = read_tables(o, &rela, &rel, &plt, &relr, plt_rela, err)))
		return r;
	scan_all(&rela, &rel, &plt, &relr, plt_rela, &s);
	o->relocs = s.c;
	o->irel_resolvers = s.irel;
	o->nirel_resolvers = s.nirel;
	o->reloc_tables[0] = (struct elf_span){rela.p, rela.n * sizeof(Elf64_Rela)};
	o->reloc_tables[1] = (struct elf_span){rel.p, rel.n * sizeof(Elf64_Rel)};
	o->reloc_tables[2] =
		(struct elf_span){plt.p, plt.n * (plt_rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))};
	o->reloc_tables[3] = (struct elf_span){relr.p, relr.n * sizeof(uint64_t)};
	count_pages(o, &s.pages);
	/* A symbol table of 2^32 entries cannot be in any file. */
	if (s.max_sym == UINT32_MAX)
		return set_err(err, -ENOEXEC, "%s: a relocation names symbol %u", o->path,
			       s.max_sym);
	*nsyms_named = s.max_sym ? s.max_sym + 1 : 0;
	return 0;
}

int elfobj_read_symrefs(struct elfobj *o, struct errbuf *err)
{
	struct table rela, rel, plt, relr;
	bool plt_rela = plt_is_rela(o);
	int r;

	if (!o->dyn)
		return 0;
	/* The tables elfobj_read_relocs placed: this cannot fail then. */
	if ((r = read_tables(o, &rela, &rel, &plt, &relr, plt_rela, err)))
		return r;
	build_symrefs(o, &rela, &plt, plt_rela);
	if (o->relocs.copy) {
		/* Counted again with the copies' sizes, which the symbol
		   table gives only now. */
		struct reloc_scan s = {0};
		scan_all(&rela, &rel, &plt, &relr, plt_rela, &s);
		copy_pages(o, &rela, &s.pages);
		free(s.irel);
		count_pages(o, &s.pages);
	}
	return 0;
}
