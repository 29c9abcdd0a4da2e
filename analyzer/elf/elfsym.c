/*
 * The dynamic symbol table, its hash tables and the symbol versions, read
 * as ld.so's _dl_setup_hash and _dl_check_map_versions read them. ld.so
 * trusts these tables; we validate them once here (chains in range, no
 * cycles, lists that end), so that every later walk is safe and bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elfobj.h"

static int bad(const struct elfobj *o, struct errbuf *err, const char *why)
{
	return set_err(err, -ENOEXEC, "%s: %s", o->path, why);
}

uint32_t ldso_gnu_hash(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = h * 33 + *p;
	return h;
}

uint32_t ldso_sysv_hash(const char *name)
{
	uint32_t h = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h = (h << 4) + *p;
		h ^= (h >> 24) & 0xf0;
	}
	return h & 0x0fffffff;
}

/* How many 32-bit words follow vaddr inside its PT_LOAD's file image. */
static uint64_t words_available(const struct elfobj *o, uint64_t vaddr)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const struct elf_load_seg *p = &o->loads[i];
		if (vaddr < p->vaddr || vaddr - p->vaddr > p->filesz)
			continue;
		uint64_t end = p->offset + p->filesz;
		if (end > o->image_size)
			end = o->image_size;
		uint64_t off = p->offset + (vaddr - p->vaddr);
		return off < end ? (end - off) / 4 : 0;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Walk every GNU hash chain once. Chains are runs of entries ending at one
 * with bit 0 set; a bucket starting inside a run already walked ends where
 * that run ends, so sorting the starts bounds the work by the table size.
 */
static int gnu_walk_chains(struct elfobj *o, uint64_t avail, uint32_t *count, struct errbuf *err)
{
	struct elf_gnu_hash *g = &o->gnu;
	uint32_t *starts = xmalloc((g->nbuckets + 1) * sizeof *starts);
	uint32_t n = 0;
	uint64_t run_end = 0, total = 0;
	bool have_run = false;
	int r = 0;

	*count = g->symoffset;
	for (uint32_t b = 0; b < g->nbuckets; b++) {
		if (!g->buckets[b])
			continue;
		if (g->buckets[b] < g->symoffset) {
			r = bad(o, err, "GNU hash bucket points below the first hashed symbol");
			goto out;
		}
		starts[n++] = g->buckets[b];
	}
	qsort(starts, n, sizeof *starts, cmp_u32);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t s = starts[i] - g->symoffset, e = s;
		if (!have_run || starts[i] > run_end) {
			while (e < avail && !(g->chain[e] & 1))
				e++;
			if (e >= avail) {
				r = bad(o, err, "GNU hash chain runs past the end of the table");
				goto out;
			}
			run_end = e + g->symoffset;
			have_run = true;
			if (run_end >= UINT32_MAX) {
				r = bad(o, err, "GNU hash table has too many symbols");
				goto out;
			}
		}
		uint32_t len = (uint32_t)(run_end - starts[i] + 1);
		total += len;
		if (len > o->hash.max_chain)
			o->hash.max_chain = len;
		if (run_end + 1 > *count)
			*count = (uint32_t)(run_end + 1);
	}
	o->hash.used_buckets = n;
	o->hash.avg_chain = n ? (double)total / n : 0;
out:
	free(starts);
	return r;
}

static int read_gnu_hash(struct elfobj *o, uint64_t vaddr, uint32_t *count, struct errbuf *err)
{
	struct elf_gnu_hash *g = &o->gnu;
	const uint32_t *h = elfobj_table(o, vaddr, 4, 4, 8);
	uint64_t avail, nbloom;

	if (!h)
		return bad(o, err, "DT_GNU_HASH lies outside the file or is misaligned");
	g->nbuckets = h[0];
	g->symoffset = h[1];
	nbloom = h[2];
	g->shift = h[3];
	if (!nbloom || (nbloom & (nbloom - 1)))
		return bad(o, err, "GNU hash Bloom filter size is not a power of two");
	g->bloom_mask = (uint32_t)(nbloom - 1);
	avail = words_available(o, vaddr);
	if (avail < 4 || nbloom * 2 + g->nbuckets > avail - 4)
		return bad(o, err, "GNU hash table lies outside the file");
	g->bloom = (const uint64_t *)(h + 4);
	g->buckets = h + 4 + nbloom * 2;
	g->chain = g->buckets + g->nbuckets;
	avail -= nbloom * 2 + g->nbuckets;
	avail -= 4;
	o->hash.bloom_words = (uint32_t)nbloom;
	return gnu_walk_chains(o, avail, count, err);
}

/*
 * SysV chains end at index 0. mark[] remembers which bucket's walk first
 * reached each symbol: reaching one of our own again is a cycle (ld.so
 * would loop forever); reaching another bucket's means the rest of the
 * chain was checked already.
 */
static int sysv_walk_chains(struct elfobj *o, struct errbuf *err)
{
	const struct elf_sysv_hash *s = &o->sysv;
	uint32_t *mark = xcalloc(s->nchain + 1, sizeof *mark);
	uint64_t total = 0;
	int r = 0;

	for (uint32_t b = 0; b < s->nbuckets; b++) {
		uint32_t len = 0;
		for (uint32_t i = s->buckets[b]; i; i = s->chain[i]) {
			if (i >= s->nchain) {
				r = bad(o, err, "SysV hash chain points past the symbol table");
				goto out;
			}
			if (mark[i] == b + 1) {
				r = bad(o, err, "SysV hash chain has a cycle");
				goto out;
			}
			len++;
			if (mark[i])
				break;
			mark[i] = b + 1;
		}
		if (len)
			o->hash.used_buckets++;
		total += len;
		if (len > o->hash.max_chain)
			o->hash.max_chain = len;
	}
	o->hash.avg_chain = o->hash.used_buckets ? (double)total / o->hash.used_buckets : 0;
out:
	free(mark);
	return r;
}

static int read_sysv_hash(struct elfobj *o, uint64_t vaddr, bool walk, uint32_t *count,
			  struct errbuf *err)
{
	struct elf_sysv_hash *s = &o->sysv;
	const uint32_t *h = elfobj_table(o, vaddr, 2, 4, 4);

	if (!h)
		return bad(o, err, "DT_HASH lies outside the file or is misaligned");
	s->nbuckets = h[0];
	s->nchain = h[1];
	if ((uint64_t)s->nbuckets + s->nchain + 2 > words_available(o, vaddr))
		return bad(o, err, "DT_HASH table lies outside the file");
	s->buckets = h + 2;
	s->chain = s->buckets + s->nbuckets;
	if (!walk)
		return 0;
	*count = s->nchain;
	return sysv_walk_chains(o, err);
}

static int read_hash_tables(struct elfobj *o, uint32_t *count, struct errbuf *err)
{
	const GElf_Dyn *gnu = elfobj_dyn(o, DT_GNU_HASH), *sysv = elfobj_dyn(o, DT_HASH);
	int r;

	*count = 0;
	o->hash.has_gnu = gnu;
	o->hash.has_sysv = sysv;
	/* ld.so prefers the GNU table and ignores DT_HASH when both exist. */
	if (gnu) {
		o->hash.style = HASH_GNU;
		if ((r = read_gnu_hash(o, gnu->d_un.d_ptr, count, err)))
			return r;
		o->hash.nbuckets = o->gnu.nbuckets;
		if (sysv && read_sysv_hash(o, sysv->d_un.d_ptr, false, count, err))
			o->hash.has_sysv = false; /* unused by ld.so: not an error */
		return 0;
	}
	if (sysv) {
		o->hash.style = HASH_SYSV;
		if ((r = read_sysv_hash(o, sysv->d_un.d_ptr, true, count, err)))
			return r;
		o->hash.nbuckets = o->sysv.nbuckets;
	}
	return 0;
}

/* A verdef/verneed record of size sz at vaddr + off, or NULL. */
static const void *ver_record(const struct elfobj *o, uint64_t vaddr, uint64_t off, size_t sz)
{
	if (off > UINT64_MAX - vaddr)
		return NULL;
	return elfobj_table(o, vaddr + off, 1, sz, 4);
}

static uint16_t name_length(const char *s)
{
	size_t n = strlen(s);

	return n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

static void grow_versions(struct elfobj *o, uint32_t ndx)
{
	if (ndx < o->nversions)
		return;
	o->versions = xrealloc(o->versions, (ndx + 1) * sizeof *o->versions);
	memset(o->versions + o->nversions, 0, (ndx + 1 - o->nversions) * sizeof *o->versions);
	o->nversions = ndx + 1;
}

/* Records in a version list: its size bounds any well-formed list. */
static uint64_t ver_budget(const struct elfobj *o)
{
	return o->image_size / sizeof(Elf64_Verdaux) + 1;
}

static int read_verneed_aux(struct elfobj *o, uint64_t at, const Elf64_Verneed *vn, size_t *cap,
			    struct errbuf *err)
{
	const char *file = elfobj_dynstr(o, vn->vn_file);

	for (uint32_t k = 0; k < vn->vn_cnt; k++) {
		const Elf64_Vernaux *a = ver_record(o, at, 0, sizeof *a);
		const char *name = a ? elfobj_dynstr(o, a->vna_name) : NULL;
		if (!a || !name || !file)
			return bad(o, err, "corrupt DT_VERNEED entry");
		uint16_t ndx = a->vna_other & 0x7fff;
		GROW(o->vneeds, *cap, o->nvneeds);
		o->vneeds[o->nvneeds++] = (struct elf_vneed){
			file, name, vn, a, a->vna_hash, ndx, (a->vna_flags & VER_FLG_WEAK) != 0};
		grow_versions(o, ndx);
		o->versions[ndx] = (struct elf_version){.hash = a->vna_hash,
							.name = name,
							.file = file,
							.namelen = name_length(name),
							.hidden = (a->vna_other & 0x8000) != 0,
							.weak = (a->vna_flags & VER_FLG_WEAK) != 0};
		if (!a->vna_next)
			break;
		at += a->vna_next;
	}
	return 0;
}

static int read_verneed(struct elfobj *o, struct errbuf *err)
{
	const GElf_Dyn *d = elfobj_dyn(o, DT_VERNEED);
	uint64_t at, budget = ver_budget(o);
	size_t cap = 0;
	int r;

	if (!d)
		return 0;
	at = d->d_un.d_ptr;
	for (;;) {
		const Elf64_Verneed *vn = ver_record(o, at, 0, sizeof *vn);
		if (!vn || !budget--)
			return bad(o, err, "corrupt or endless DT_VERNEED list");
		if (vn->vn_cnt && (r = read_verneed_aux(o, at + vn->vn_aux, vn, &cap, err)))
			return r;
		if (!vn->vn_next)
			return 0;
		at += vn->vn_next;
	}
}

static int read_verdef(struct elfobj *o, struct errbuf *err)
{
	const GElf_Dyn *d = elfobj_dyn(o, DT_VERDEF);
	uint64_t at, budget = ver_budget(o);
	size_t cap = 0;

	if (!d)
		return 0;
	at = d->d_un.d_ptr;
	for (;;) {
		const Elf64_Verdef *vd = ver_record(o, at, 0, sizeof *vd);
		const Elf64_Verdaux *a = vd ? ver_record(o, at, vd->vd_aux, sizeof *a) : NULL;
		const char *name = a ? elfobj_dynstr(o, a->vda_name) : NULL;
		if (!vd || !a || !name || !budget--)
			return bad(o, err, "corrupt or endless DT_VERDEF list");
		uint16_t ndx = vd->vd_ndx & 0x7fff;
		bool base = vd->vd_flags & VER_FLG_BASE;
		GROW(o->vdefs, cap, o->nvdefs);
		o->vdefs[o->nvdefs++] = (struct elf_vdef){name, vd, a, vd->vd_hash, ndx, base};
		grow_versions(o, ndx);
		/* As ld.so: the base version (the object's own name) is not
		   available for matching a versioned symbol. */
		if (!base)
			o->versions[ndx] = (struct elf_version){
				.hash = vd->vd_hash, .name = name, .namelen = name_length(name)};
		else
			o->versions[ndx].base = true;
		if (!vd->vd_next)
			return 0;
		at += vd->vd_next;
	}
}

const struct elf_version elfobj_no_version;

int elfobj_read_symbols(struct elfobj *o, struct errbuf *err)
{
	uint32_t count;
	int r;

	if (!o->dyn)
		return 0;
	if ((r = read_hash_tables(o, &count, err)) || (r = read_verneed(o, err)) ||
	    (r = read_verdef(o, err)))
		return r;
	o->nsyms = count;
	return 0;
}

/*
 * Fix the symbol table's size now that the relocations are known (they may
 * name symbols the hash table does not cover) and check it and DT_VERSYM.
 */
int elfobj_finish_symtab(struct elfobj *o, uint32_t min_count, struct errbuf *err)
{
	const GElf_Dyn *symtab = elfobj_dyn(o, DT_SYMTAB), *versym = elfobj_dyn(o, DT_VERSYM);
	const GElf_Dyn *syment = elfobj_dyn(o, DT_SYMENT);

	if (min_count > o->nsyms)
		o->nsyms = min_count;
	if (!o->nsyms)
		return 0;
	if (!symtab)
		return bad(o, err, "symbols are used but there is no DT_SYMTAB");
	if (syment && syment->d_un.d_val != sizeof(Elf64_Sym))
		return bad(o, err, "DT_SYMENT is not the size of an ELF64 symbol");
	if (!o->dynstr)
		return bad(o, err, "symbols are used but there is no DT_STRTAB");
	o->syms = elfobj_table(o, symtab->d_un.d_ptr, o->nsyms, sizeof(Elf64_Sym), 8);
	if (!o->syms)
		return bad(o, err, "DT_SYMTAB lies outside the file or is misaligned");
	if (versym) {
		o->versym = elfobj_table(o, versym->d_un.d_ptr, o->nsyms, 2, 2);
		if (!o->versym)
			return bad(o, err, "DT_VERSYM lies outside the file or is misaligned");
	}
	return 0;
}
