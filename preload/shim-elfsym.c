/*
 * Symbol lookup for the freestanding shim. This is a deliberately small
 * subset of what ld.so does (see analyzer/ for the full simulation): one
 * object at a time, default versions only, no IFUNC. A library cannot be
 * used here because the shim runs before libc exists.
 */
#include "shim-elfsym.h"

ElfW(Dyn) * shim_dyn_find(ElfW(Dyn) * dyn, ElfW(Sxword) tag)
{
	for (; dyn->d_tag != DT_NULL; dyn++)
		if (dyn->d_tag == tag)
			return dyn;
	return 0;
}

/*
 * ld.so rebases the address-valued entries of a writable .dynamic in place
 * before la_objopen (elf_get_dynamic_info), but leaves a read-only one (the
 * vDSO's) at link-time values. A link-time value is an offset inside the
 * object, far below any real load address, so the two cannot be confused.
 */
uintptr_t shim_dyn_addr(uintptr_t base, uintptr_t value)
{
	return base && value < base ? value + base : value;
}

int shim_dynobj_init(struct shim_dynobj *o, const struct link_map *m)
{
	ElfW(Dyn) *dyn = m->l_ld, *d;

	*o = (struct shim_dynobj){.base = m->l_addr};
	if (!dyn)
		return -1;
	if ((d = shim_dyn_find(dyn, DT_SYMTAB)))
		o->symtab = (const void *)shim_dyn_addr(o->base, d->d_un.d_ptr);
	if ((d = shim_dyn_find(dyn, DT_STRTAB)))
		o->strtab = (const void *)shim_dyn_addr(o->base, d->d_un.d_ptr);
	if ((d = shim_dyn_find(dyn, DT_GNU_HASH)))
		o->gnu_hash = (const void *)shim_dyn_addr(o->base, d->d_un.d_ptr);
	if ((d = shim_dyn_find(dyn, DT_HASH)))
		o->sysv_hash = (const void *)shim_dyn_addr(o->base, d->d_un.d_ptr);
	if ((d = shim_dyn_find(dyn, DT_VERSYM)))
		o->versym = (const void *)shim_dyn_addr(o->base, d->d_un.d_ptr);
	if (!o->symtab || !o->strtab || (!o->gnu_hash && !o->sysv_hash))
		return -1;
	return 0;
}

static uintptr_t match(const struct shim_dynobj *o, uint32_t ix, const char *name)
{
	const ElfW(Sym) *s = &o->symtab[ix];
	int type = ELF64_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || type == STT_GNU_IFUNC || type == STT_TLS)
		return 0;
	/* Index 0 is local; bit 15 marks a hidden (non-default) version. */
	if (o->versym && (o->versym[ix] == 0 || (o->versym[ix] & 0x8000)))
		return 0;
	if (!shim_streq(o->strtab + s->st_name, name))
		return 0;
	return o->base + s->st_value;
}

static uintptr_t lookup_gnu(const struct shim_dynobj *o, const char *name)
{
	const uint32_t *gh = o->gnu_hash;
	uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2], shift = gh[3];
	const uint64_t *bloom = (const uint64_t *)&gh[4];
	const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
	const uint32_t *chain = &buckets[nbuckets];
	uint32_t h = 5381;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = h * 33 + *p;
	if (!nbuckets || !bloom_size)
		return 0;
	uint64_t word = bloom[(h / 64) % bloom_size];
	uint64_t mask = 1ull << (h % 64) | 1ull << ((h >> shift) % 64);
	if ((word & mask) != mask)
		return 0;
	for (uint32_t ix = buckets[h % nbuckets]; ix >= symoffset; ix++) {
		uint32_t h2 = chain[ix - symoffset];
		uintptr_t addr;
		if ((h | 1) == (h2 | 1) && (addr = match(o, ix, name)))
			return addr;
		if (h2 & 1)
			break;
	}
	return 0;
}

static uintptr_t lookup_sysv(const struct shim_dynobj *o, const char *name)
{
	const uint32_t *hs = o->sysv_hash;
	uint32_t nbucket = hs[0], nchain = hs[1], h = 0, g;
	const uint32_t *bucket = &hs[2], *chain = &bucket[nbucket];

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h = (h << 4) + *p;
		g = h & 0xf0000000u;
		h ^= g >> 24;
		h &= ~g;
	}
	if (!nbucket)
		return 0;
	/* Bounded by nchain so that a damaged table cannot loop forever. */
	uint32_t steps = 0;
	for (uint32_t ix = bucket[h % nbucket]; ix && ix < nchain && steps < nchain;
	     ix = chain[ix], steps++) {
		uintptr_t addr = match(o, ix, name);
		if (addr)
			return addr;
	}
	return 0;
}

uintptr_t shim_dynobj_lookup(const struct shim_dynobj *o, const char *name)
{
	return o->gnu_hash ? lookup_gnu(o, name) : lookup_sysv(o, name);
}

uintptr_t shim_lookup(const struct link_map *m, const char *name)
{
	struct shim_dynobj o;

	if (shim_dynobj_init(&o, m))
		return 0;
	return shim_dynobj_lookup(&o, name);
}
