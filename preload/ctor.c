/*
 * Timing each object's constructors and destructors.
 *
 * In la_objopen the object is mapped but neither relocated nor under RELRO,
 * so its .dynamic is still writable. We save the original DT_INIT /
 * DT_INIT_ARRAY (and DT_FINI / DT_FINI_ARRAY) and point them at trampoline
 * N (stubs.S), whose common code (trampoline.c) records the start, calls
 * the originals in the order ld.so would, and records the end. ld.so and
 * libc read these entries through l_info[], which points into .dynamic, so
 * both see the change.
 */
#include "shim.h"
#include "shim-elfsym.h"
#include "shim-limits.h"

extern char ldprof_init_stubs[] SHIM_HIDDEN, ldprof_fini_stubs[] SHIM_HIDDEN;

static uintptr_t stub(char *base, uint32_t idx)
{
	return (uintptr_t)(base + (uintptr_t)idx * LDPROF_STUB_SIZE);
}

/*
 * Redirect one side (init or fini). With a DT_INIT/DT_FINI entry we point
 * it at the stub and empty the array, which the stub then runs itself; with
 * only an array we swap in a one-entry array holding the stub.
 */
static int redirect(ElfW(Dyn) * single, ElfW(Dyn) * arr, ElfW(Dyn) * arrsz, uintptr_t l_addr,
		    uintptr_t stub_addr, void **slot, struct fn_list *out)
{
	uint32_t n = arr && arrsz ? (uint32_t)(arrsz->d_un.d_val / sizeof(void *)) : 0;

	if (!single && !n)
		return 0;
	out->single = single ? l_addr + single->d_un.d_ptr : 0;
	out->array = n ? l_addr + arr->d_un.d_ptr : 0;
	out->count = n;
	if (single) {
		single->d_un.d_ptr = stub_addr - l_addr;
		if (arrsz)
			arrsz->d_un.d_val = 0;
	} else {
		slot[0] = (void *)stub_addr;
		arr->d_un.d_ptr = (uintptr_t)slot - l_addr;
		arrsz->d_un.d_val = sizeof(void *);
	}
	return 1;
}

unsigned shim_instrument(struct link_map *m, uint32_t idx)
{
	ElfW(Dyn) *dyn = m->l_ld, *strtab;
	uintptr_t l_addr = m->l_addr;
	unsigned flags = 0;

	if (!dyn || !(strtab = shim_dyn_find(dyn, DT_STRTAB)))
		return 0;
	ElfW(Dyn) *init = shim_dyn_find(dyn, DT_INIT), *fini = shim_dyn_find(dyn, DT_FINI);
	ElfW(Dyn) *ia = shim_dyn_find(dyn, DT_INIT_ARRAY), *fa = shim_dyn_find(dyn, DT_FINI_ARRAY);
	ElfW(Dyn) *ias = shim_dyn_find(dyn, DT_INIT_ARRAYSZ);
	ElfW(Dyn) *fas = shim_dyn_find(dyn, DT_FINI_ARRAYSZ);
	if (init || (ia && ias && ias->d_un.d_val))
		flags |= LDPROF_OBJ_HAS_INIT;
	if (fini || (fa && fas && fas->d_un.d_val))
		flags |= LDPROF_OBJ_HAS_FINI;
	/* ld.so did not rebase it, so .dynamic is read-only (the vDSO). */
	if (l_addr && strtab->d_un.d_ptr < l_addr)
		return flags | LDPROF_OBJ_DYN_RO;
	if (idx >= LDPROF_MAX_OBJS) {
		if (flags)
			shim_flag(LDPROF_SHM_F_TOO_MANY_OBJS);
		return flags;
	}
	struct obj_state *o = shim_obj(idx);
	if (redirect(init, ia, ias, l_addr, stub(ldprof_init_stubs, idx), o->init_slot, &o->init))
		flags |= LDPROF_OBJ_INIT_TIMED;
	if (redirect(fini, fa, fas, l_addr, stub(ldprof_fini_stubs, idx), o->fini_slot, &o->fini))
		flags |= LDPROF_OBJ_FINI_TIMED;
	return flags;
}
