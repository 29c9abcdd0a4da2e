/*
 * The shim's state and its one writer of records. Every other file of the
 * audit module (audit.c, ctor.c, trampoline.c, hooks.c) calls down into
 * this one and it calls none of them, so the module's call graph has no
 * cycle (tools/check-layers proves it in make check).
 */
#include "shim.h"

struct shim_state shim;

/*
 * A child forked by the program shares this MAP_SHARED buffer and a copy of
 * the shim's state, at every phase: a constructor may fork. So every record
 * proves which process writes it. fork stores the child's own tid in its
 * TCB, so the owner's main thread is recognised by one load; any other
 * thread, or a process whose TCB is unusable, asks the kernel. Nothing here
 * writes the shim's state: a vfork child shares it with the owner.
 */
static int is_owner(void)
{
	if (shim.tcb_tid_ok && shim_tcb_tid() == shim.pid)
		return 1;
	return shim_getpid() == shim.pid;
}

int shim_owner_strict(void)
{
	return shim.shm && shim_getpid() == shim.pid;
}

void shim_flag(uint32_t flags)
{
	if (shim.shm && is_owner())
		__atomic_fetch_or(&shim.shm->flags, flags, __ATOMIC_RELAXED);
}

void shim_emit(uint64_t ts, uint16_t type, uint16_t obj, uint32_t u32, uint64_t a, uint64_t b)
{
	struct ldprof_record *r;
	uint32_t i;

	if (!shim.shm || !is_owner())
		return;
	i = __atomic_fetch_add(&shim.shm->nrecords, 1, __ATOMIC_RELAXED);
	if (i >= shim.shm->records_cap) {
		shim_flag(LDPROF_SHM_F_OVERFLOW);
		return;
	}
	r = &shim.recs[i];
	r->ts = ts;
	r->type = type;
	r->obj = obj;
	r->u32 = u32;
	r->a = a;
	r->b = b;
}

uint32_t shim_copy_string(const char *s)
{
	uint32_t len = (uint32_t)shim_strlen(s) + 1, off;

	if (!is_owner())
		return UINT32_MAX;
	off = __atomic_fetch_add(&shim.shm->strings_used, len, __ATOMIC_RELAXED);
	if (off + len > shim.shm->strings_cap || off + len < off) {
		shim_flag(LDPROF_SHM_F_STR_OVERFLOW);
		return UINT32_MAX;
	}
	for (uint32_t k = 0; k < len; k++)
		shim.strings[off + k] = s[k];
	return off;
}
