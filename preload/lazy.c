/*
 * Lazy binding after startup, measured in the run: how many of each
 * object's PLT slots the program bound lazily, each a symbol lookup that
 * a static build never pays (docs/design.md, "lazy binding").
 *
 * x86-64 PLT entries are 16 bytes, and while a lazily bound slot is
 * unbound its GOT entry points back into the object's own PLT, at entry i
 * (+6 in the classic PLT, +0 in the IBT one), where i is the slot's place
 * in .got.plt after its three reserved words (not the relocation's place
 * in DT_JMPREL, which is sorted by address and mixes IRELATIVE slots in):
 * slot i holds V0 + 16 i for one V0. ld.so's lazy binding (_dl_fixup) overwrites it with the
 * function's address at the first call. So right after relocation, before
 * any constructor has called anything, we note V0 per lazily bound object
 * (two loads from its GOT, whose page relocation has just written); at
 * the exit we count the slots whose value is no longer V0 + 16 i (an
 * object dlopened later is noted at its la_objopen instead). Nothing
 * changes on the PLT path, and the count reads only the GOT.
 */
#include "shim-elfsym.h"
#include "shim.h"

/* An object's PLT relocations (DT_JMPREL, sorted by address) and its .got.plt. */
struct plt {
	const ElfW(Rela) * rel;
	size_t n;
	uintptr_t base;
	const uintptr_t *got; /* DT_PLTGOT: [1], [2] are set by ld.so for lazy binding only */
};

static int plt_find(const struct link_map *m, struct plt *p)
{
	ElfW(Dyn) *dyn = m->l_ld, *rel, *sz, *got;

	if (!dyn || !(rel = shim_dyn_find(dyn, DT_JMPREL)) || !(sz = shim_dyn_find(dyn, DT_PLTRELSZ)) ||
	    !(got = shim_dyn_find(dyn, DT_PLTGOT)))
		return -1;
	p->base = m->l_addr;
	p->rel = (const void *)shim_dyn_addr(p->base, rel->d_un.d_ptr);
	p->n = sz->d_un.d_val / sizeof(ElfW(Rela));
	p->got = (const void *)shim_dyn_addr(p->base, got->d_un.d_ptr);
	return p->n ? 0 : -1;
}

/* The same, once relocated: only if it is bound lazily (ld.so's resolver in GOT[2]). */
static int plt_of(const struct link_map *m, struct plt *p)
{
	return !plt_find(m, p) && p->got[2] ? 0 : -1;
}

static int is_jump_slot(const struct plt *p, size_t k)
{
	return ELF64_R_TYPE(p->rel[k].r_info) == R_X86_64_JUMP_SLOT;
}

static const uintptr_t *slot_of(const struct plt *p, size_t k)
{
	return (const uintptr_t *)(p->base + p->rel[k].r_offset);
}

/* Relocation k's value less 16 times its slot's place: V0 while unbound. */
static uintptr_t key(const struct plt *p, size_t k)
{
	const uintptr_t *s = slot_of(p, k);

	return *s - 16 * (uintptr_t)(s - (p->got + 3));
}

/*
 * V0: the key two of the first JUMP_SLOT relocations agree on (one bound
 * during relocation, by an IFUNC resolver say, cannot mislead it); with a
 * single slot, its own key. 0 if there is none.
 */
static uintptr_t unbound0(const struct plt *p)
{
	uintptr_t prev = 0;
	int seen = 0;

	for (size_t k = 0; k < p->n && seen < 16; k++) {
		if (!is_jump_slot(p, k))
			continue;
		if (seen++ && key(p, k) == prev)
			return prev;
		prev = key(p, k);
	}
	return seen == 1 ? prev : 0;
}

/*
 * Whether m is still loaded: in the executable's namespace, from which
 * dlclose unlinks an object before freeing its map and unmapping it.
 */
static int still_loaded(const struct link_map *m)
{
	for (const struct link_map *l = shim.main; l; l = l->l_next)
		if (l == m)
			return 1;
	return 0;
}

/* Bound lazily: neither unbound nor pointed at our wrappers by hooks.c. */
static int bound_lazily(const struct plt *p, size_t k, uintptr_t v0)
{
	return key(p, k) != v0 && !shim_is_wrapper(*slot_of(p, k));
}

void shim_lazy_note(void)
{
	struct plt p;

	for (; shim.lazy_seen < shim.nobj && shim.lazy_seen < LDPROF_MAX_OBJS; shim.lazy_seen++) {
		struct obj_state *o = shim_obj(shim.lazy_seen);
		if (o->map && o->map != shim.rtld && !plt_of(o->map, &p))
			o->plt_unbound0 = unbound0(&p);
	}
}

/*
 * An object opened after startup (dlopen) runs its constructors before the
 * next LA_ACT_CONSISTENT, so V0 is taken at its la_objopen, before its
 * relocation: from the link-time values, which ld.so's lazy relocation
 * only moves by the load address. (Reading the GOT's page now may cost a
 * fault, for objects opened during the run only.)
 */
void shim_lazy_note_opened(struct obj_state *o)
{
	struct plt p;
	uintptr_t v0;

	if (o->map && !plt_find(o->map, &p) && (v0 = unbound0(&p)))
		o->plt_unbound0 = v0 + p.base;
}

void shim_lazy_count(void)
{
	struct plt p;

	for (uint32_t k = 0; k < shim.nobj && k < LDPROF_MAX_OBJS; k++) {
		const struct obj_state *o = shim_obj(k);
		uint64_t t0 = shim_now();
		uint32_t bound = 0;
		if (!o->plt_unbound0 || !still_loaded(o->map) || plt_of(o->map, &p))
			continue;
		uint32_t slots = 0;
		for (size_t i = 0; i < p.n; i++)
			if (is_jump_slot(&p, i)) {
				slots++;
				bound += (uint32_t)bound_lazily(&p, i, o->plt_unbound0);
			}
		shim_emit(t0, LDPROF_REC_LAZY, (uint16_t)k, bound, slots, shim_now() - t0);
	}
}
