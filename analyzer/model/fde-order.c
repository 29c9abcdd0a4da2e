/*
 * .eh_frame read by hand: libelf gives the section's bytes but does not
 * parse call frame information, and only each FDE's initial location is
 * needed here (its CIE's pointer encoding, then one encoded address).
 * The format: the LSB's "Linux Standard Base Core", .eh_frame.
 */
#include "model/fde-order.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned sh = 0; c->p < c->end; sh += 7) {
		unsigned char b = *c->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static void skip(struct cur *c, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		c->bad = true, c->p = c->end;
	else
		c->p += n;
}

/* A DW_EH_PE-encoded value's size; 0 for LEB128 and omitted ones. */
static size_t pe_size(unsigned enc)
{
	static const unsigned char size[16] = {
		[0x0] = 8, [0x2] = 2, [0x3] = 4, [0x4] = 8, [0xa] = 2, [0xb] = 4, [0xc] = 8};

	return size[enc & 0x0f];
}

/* An address encoded at c (vaddr: where c is); pc-relative ones made absolute. */
static uint64_t read_pe(struct cur *c, unsigned enc, uint64_t vaddr)
{
	size_t n = pe_size(enc);
	uint64_t v = 0;

	if (enc == 0xff || !n || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, n); /* little-endian: x86-64 only */
	if ((enc & 0x08) && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n); /* sdata2, sdata4: sign-extended */
	c->p += n;
	return (enc & 0x70) == 0x10 ? v + vaddr : v; /* DW_EH_PE_pcrel */
}

/* A CIE's FDE pointer encoding ('R' in its augmentation); absptr without one. */
static unsigned cie_encoding(struct cur c)
{
	const char *aug;
	unsigned version, enc = 0;

	skip(&c, 4); /* CIE id */
	if (c.bad || c.p >= c.end)
		return 0xff;
	version = *c.p++;
	aug = (const char *)c.p;
	if (!memchr(aug, 0, (size_t)(c.end - c.p)) || aug[0] != 'z')
		return aug[0] ? 0xff : 0; /* no augmentation: absptr; unknown: unusable */
	skip(&c, strlen(aug) + 1);
	uleb(&c), uleb(&c);			     /* code and data alignment factors */
	version == 1 ? skip(&c, 1) : (void)uleb(&c); /* the return address register */
	uleb(&c);				     /* augmentation data length */
	for (const char *a = aug + 1; *a && !c.bad; a++) {
		if (*a == 'R' && c.p < c.end)
			return *c.p;
		if (*a == 'P' && c.p < c.end) {
			unsigned penc = *c.p++;
			skip(&c, pe_size(penc));
		} else if (*a == 'L')
			skip(&c, 1);
		else if (*a != 'S' && *a != 'B' && *a != 'G')
			return 0xff;
	}
	return c.bad ? 0xff : enc;
}

static bool eh_frame(const struct elfobj *e, const unsigned char **p, size_t *n, uint64_t *vaddr)
{
	size_t shstrndx;
	GElf_Shdr sh;

	if (!e->elf || elf_getshdrstrndx(e->elf, &shstrndx))
		return false;
	for (Elf_Scn *scn = elf_nextscn(e->elf, NULL); scn; scn = elf_nextscn(e->elf, scn)) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e->elf, shstrndx, sh.sh_name)) || strcmp(name, ".eh_frame"))
			continue;
		*p = elfobj_bytes(e, sh.sh_offset, sh.sh_size);
		*n = sh.sh_size, *vaddr = sh.sh_addr;
		return *p != NULL;
	}
	return false;
}

/*
 * libgcc's fde_split: a chain of FDEs in increasing order; an FDE below
 * the chain's end takes those above it off the chain (erratic) and joins.
 */
struct split {
	uint64_t *chain;
	size_t n, cap;
	uint32_t erratic, cold;
};

static void split_add(struct split *s, uint64_t pc)
{
	bool took = false;

	while (s->n && pc < s->chain[s->n - 1])
		s->n--, s->erratic++, took = true;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->chain = xrealloc(s->chain, s->cap * sizeof *s->chain);
	}
	s->chain[s->n++] = pc;
	if (took)
		s->cold = (uint32_t)s->n;
}

/* The encoding of the CIE at off (FDEs share a few CIEs: the last one is kept). */
static unsigned encoding_at(const unsigned char *base, size_t size, size_t off, size_t *last_off,
			    unsigned *last_enc)
{
	uint32_t len;

	if (off == *last_off)
		return *last_enc;
	if (off + 4 > size || (memcpy(&len, base + off, 4), len == 0xffffffff) ||
	    len > size - off - 4)
		return 0xff;
	*last_off = off;
	return *last_enc = cie_encoding((struct cur){base + off + 4, base + off + 4 + len, false});
}

void fde_order(const struct elfobj *e, struct fde_order *out)
{
	const unsigned char *base;
	size_t size, off = 0, last_off = SIZE_MAX;
	unsigned last_enc = 0xff;
	uint64_t vaddr;
	struct split s = {0};

	memset(out, 0, sizeof *out);
	if (!e || !eh_frame(e, &base, &size, &vaddr))
		return;
	while (off + 8 <= size) {
		uint32_t len, id;
		memcpy(&len, base + off, 4);
		if (len < 4 || len == 0xffffffff || len > size - off - 4)
			break; /* the terminator, a broken entry, or 64-bit DWARF (never here) */
		memcpy(&id, base + off + 4, 4);
		if (id && id <= off + 4) {
			unsigned enc = encoding_at(base, size, off + 4 - id, &last_off, &last_enc);
			struct cur c = {base + off + 8, base + off + 4 + len, false};
			uint64_t pc = read_pe(&c, enc, vaddr + off + 8);
			if (!c.bad && pc) { /* libgcc skips an FDE at 0: its code was discarded */
				out->fdes++;
				split_add(&s, pc);
			}
		}
		off += 4 + (size_t)len;
	}
	out->erratic = s.erratic;
	out->cold = s.cold;
	free(s.chain);
}
