/*
 * Checked records become a run's events: the shim's object indices become
 * the trace's objects, each interned by its name (shm.c decodes one run's
 * records with it, shm-procs.c each process's in follow mode).
 */
#include "run/shm.h"
#include "run/shm-records.h"

#include <unistd.h>

static uint32_t objmap_get(const struct shm_objmap *m, uint16_t idx)
{
	return idx < m->cap && m->to_trace[idx] ? m->to_trace[idx] - 1 : TRACE_NO_OBJ;
}

static enum obj_role role_of(uint32_t flags, const char *name, uint16_t idx)
{
	if (flags & LDPROF_OBJ_PRELOAD_SHIM)
		return ROLE_SHIM;
	if (flags & LDPROF_OBJ_LOADER)
		return ROLE_LOADER;
	if (idx == 0 && !*name)
		return ROLE_EXECUTABLE;
	/* A read-only .dynamic and no file behind the name: the vDSO. */
	if ((flags & LDPROF_OBJ_DYN_RO) && access(name, F_OK))
		return ROLE_VDSO;
	return ROLE_LIBRARY;
}

static uint32_t note_objopen(struct trace *t, struct shm_objmap *m,
			     const struct ldprof_shm_header *h, const struct ldprof_record *rec,
			     const char *exe, bool after_startup)
{
	const char *name = rec->u32 == UINT32_MAX ? NULL : shm_string_at(h, rec->u32);
	uint32_t flags = (uint32_t)rec->b;

	if (!name)
		name = "(name lost: string area full)";
	enum obj_role role = role_of(flags, name, rec->obj);
	uint32_t id = trace_intern(t, role == ROLE_EXECUTABLE && exe ? exe : name);
	struct trace_object *o = &t->obj[id];
	o->role = role;
	o->dlopened = o->dlopened || after_startup;
	/* Timed: its constructors/destructors were trampolined, or it has none. */
	if ((flags & (LDPROF_OBJ_HAS_INIT | LDPROF_OBJ_HAS_FINI)) &&
	    !(flags & (LDPROF_OBJ_INIT_TIMED | LDPROF_OBJ_FINI_TIMED)))
		o->untimed_seen = true;
	if (rec->obj != LDPROF_NO_OBJ) {
		GROW(m->to_trace, m->cap, rec->obj);
		m->to_trace[rec->obj] = id + 1;
	}
	return id;
}

void shm_decode_records(const struct ldprof_shm_header *h, const struct ldprof_record *recs,
			uint32_t n, const char *exe, bool after_startup, struct trace *t,
			struct shm_objmap *m, struct trace_run *r)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct ldprof_record *rec = &recs[i];
		struct trace_event ev = {.ts = rec->ts,
					 .type = rec->type,
					 .obj = TRACE_NO_OBJ,
					 .u32 = rec->u32,
					 .a = rec->a,
					 .b = rec->b};
		if (rec->type == LDPROF_REC_FORKED)
			continue;
		if (rec->type == LDPROF_REC_OBJOPEN)
			ev.obj = note_objopen(t, m, h, rec, exe, after_startup);
		else if (rec->obj != LDPROF_NO_OBJ)
			ev.obj = objmap_get(m, rec->obj);
		if (rec->type == LDPROF_REC_ACTIVITY && rec->u32 == 0 /* LA_ACT_CONSISTENT */)
			after_startup = true;
		trace_add_event(r, &ev);
	}
}

