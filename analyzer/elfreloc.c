/*
 * Relocation counts by kind, read from the dynamic segment as ld.so finds
 * them: DT_RELA/DT_REL, DT_JMPREL (PLT) and DT_RELR. When the PLT range lies
 * inside the DT_RELA range (some linkers emit it so), it is counted once.
 */
#include <errno.h>

#include "elfobj.h"

uint64_t reloc_counts_total(const struct reloc_counts *r)
{
	return r->relative + r->relr + r->glob_dat + r->jump_slot + r->symbolic + r->tls +
	       r->irelative + r->copy + r->other;
}

static void count_type(struct reloc_counts *c, uint32_t type, uint32_t sym)
{
	switch (type) {
	case R_X86_64_RELATIVE:
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

struct range {
	uint64_t vaddr, size;
};

static int table_range(const struct elfobj *o, int64_t addr_tag, int64_t size_tag,
		       struct range *r)
{
	const GElf_Dyn *a = elfobj_dyn(o, addr_tag), *s = elfobj_dyn(o, size_tag);

	*r = (struct range){0, 0};
	if (!a || !s || !s->d_un.d_val)
		return 0;
	r->vaddr = a->d_un.d_ptr;
	r->size = s->d_un.d_val;
	return 1;
}

static int count_table(struct elfobj *o, struct range r, bool rela, struct reloc_counts *c,
		       struct errbuf *err)
{
	size_t entsize = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
	uint64_t off;
	Elf_Data *d;

	if (!r.size)
		return 0;
	if (elfobj_vaddr_to_offset(o, r.vaddr, r.size, &off) ||
	    !(d = elf_getdata_rawchunk(o->elf, (int64_t)off, r.size, rela ? ELF_T_RELA : ELF_T_REL)))
		return set_err(err, ENOEXEC, "%s: relocation table lies outside the file", o->path);
	for (size_t i = 0; i < r.size / entsize; i++) {
		GElf_Rela ra;
		GElf_Rel rl;
		uint64_t info;
		if (rela ? !gelf_getrela(d, (int)i, &ra) : !gelf_getrel(d, (int)i, &rl))
			return set_err(err, ENOEXEC, "%s: corrupt relocation entry", o->path);
		info = rela ? ra.r_info : rl.r_info;
		count_type(c, (uint32_t)GELF_R_TYPE(info), (uint32_t)GELF_R_SYM(info));
	}
	return 0;
}

/* DT_RELR: an even word is one address; an odd word is a 63-bit bitmap. */
static int count_relr(struct elfobj *o, struct reloc_counts *c, struct errbuf *err)
{
	struct range r;
	const uint64_t *w;
	uint64_t off;

	if (!table_range(o, DT_RELR, DT_RELRSZ, &r))
		return 0;
	if (elfobj_vaddr_to_offset(o, r.vaddr, r.size, &off) ||
	    !(w = elfobj_bytes(o, off, r.size)))
		return set_err(err, ENOEXEC, "%s: DT_RELR lies outside the file", o->path);
	for (size_t i = 0; i < r.size / sizeof(uint64_t); i++) {
		uint64_t v;
		__builtin_memcpy(&v, &w[i], sizeof v); /* the image may be unaligned */
		c->relr += v & 1 ? (uint64_t)__builtin_popcountll(v >> 1) : 1;
	}
	return 0;
}

int elfobj_count_relocs(struct elfobj *o, struct errbuf *err)
{
	struct reloc_counts c = {0};
	struct range rela, rel, plt;
	const GElf_Dyn *pltrel = elfobj_dyn(o, DT_PLTREL);
	bool plt_rela = !pltrel || pltrel->d_un.d_val == DT_RELA;
	int r;

	if (!o->dyn)
		return 0;
	table_range(o, DT_RELA, DT_RELASZ, &rela);
	table_range(o, DT_REL, DT_RELSZ, &rel);
	table_range(o, DT_JMPREL, DT_PLTRELSZ, &plt);
	/* Do not count the PLT twice when DT_RELASZ already covers it. */
	struct range *outer = plt_rela ? &rela : &rel;
	if (plt.size && outer->size && plt.vaddr >= outer->vaddr &&
	    plt.vaddr + plt.size == outer->vaddr + outer->size && plt.size <= outer->size)
		outer->size -= plt.size;
	if ((r = count_table(o, rela, true, &c, err)) || (r = count_table(o, rel, false, &c, err)) ||
	    (r = count_table(o, plt, plt_rela, &c, err)) || (r = count_relr(o, &c, err)))
		return r;
	o->relocs = c;
	return 0;
}
