/*
 * The shim's state and its one writer of records. Every other file of the
 * audit module (audit.c, ctor.c, trampoline.c, hooks.c) calls down into
 * this one and it calls none of them, so the module's call graph has no
 * cycle (preload/check-shim-cycles proves it after each build).
 */
#include "shim.h"

struct shim_state shim;

void shim_flag(uint32_t flags)
{
	if (shim.shm)
		__atomic_fetch_or(&shim.shm->flags, flags, __ATOMIC_RELAXED);
}

void shim_emit(uint64_t ts, uint16_t type, uint16_t obj, uint32_t u32, uint64_t a, uint64_t b)
{
	struct ldprof_record *r;
	uint32_t i;

	if (!shim.shm)
		return;
	/*
	 * Before main nothing forks (short of a constructor that does), so
	 * the loader's events skip the system call. A child forked by the
	 * program shares this MAP_SHARED buffer: from main on, each record
	 * proves it comes from the launched pid.
	 */
	if (shim.in_main && !shim.pid_confirmed) {
		if (shim_getpid() != shim.shm->pid)
			return;
		/*
		 * Once this process is exiting, its destructors' records need
		 * no more system calls: a child forked from here on (by an
		 * exit handler) is the only case this lets through.
		 */
		if (type == LDPROF_REC_EXIT_CALL || type == LDPROF_REC_MAIN_RETURN)
			shim.pid_confirmed = 1;
	}
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

	off = __atomic_fetch_add(&shim.shm->strings_used, len, __ATOMIC_RELAXED);
	if (off + len > shim.shm->strings_cap || off + len < off) {
		shim_flag(LDPROF_SHM_F_STR_OVERFLOW);
		return UINT32_MAX;
	}
	for (uint32_t k = 0; k < len; k++)
		shim.strings[off + k] = s[k];
	return off;
}
