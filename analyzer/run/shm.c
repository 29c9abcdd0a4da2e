#include "run/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int shm_create(struct shm_buf *s, size_t size, struct errbuf *err)
{
	int fd = memfd_create("ldprof-records", MFD_CLOEXEC), r;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if (fd < 0)
		return set_err(err, errno, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)size)) {
		r = set_err(err, errno, "memfd: %s", strerror(errno));
		goto out;
	}
	/* Moved high so it never takes a number the program expects free. */
	s->fd = fcntl(fd, F_DUPFD_CLOEXEC, SHM_FD_MIN);
	if (s->fd < 0) {
		r = set_err(err, errno, "cannot move the record buffer above fd %d: %s", SHM_FD_MIN,
			    strerror(errno));
		goto out;
	}
	s->hdr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->hdr == MAP_FAILED) {
		s->hdr = NULL;
		r = set_err(err, errno, "mmap: %s", strerror(errno));
		goto out;
	}
	s->size = size;
	r = 0;
out:
	close(fd);
	if (r && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
	return r;
}

void shm_destroy(struct shm_buf *s)
{
	if (s->hdr)
		munmap(s->hdr, s->size);
	if (s->fd >= 0)
		close(s->fd);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

void shm_init_header(struct ldprof_shm_header *h, size_t size)
{
	/* Records take three quarters, names the rest. */
	size_t rec_bytes = (size - sizeof *h) / 4 * 3;

	memset(h, 0, sizeof *h);
	memcpy(h->magic, LDPROF_SHM_MAGIC, sizeof h->magic);
	h->version = LDPROF_SHM_VERSION;
	h->header_size = sizeof *h;
	h->record_size = sizeof(struct ldprof_record);
	h->total_size = (uint32_t)size;
	h->records_off = sizeof *h;
	h->records_cap = (uint32_t)(rec_bytes / sizeof(struct ldprof_record));
	h->strings_off = h->records_off + h->records_cap * (uint32_t)sizeof(struct ldprof_record);
	h->strings_cap = (uint32_t)size - h->strings_off;
	h->clock = LDPROF_CLOCK_TSC;
}

void shm_reset(struct shm_buf *s)
{
	shm_init_header(s->hdr, s->size);
}

static int header_valid(const struct ldprof_shm_header *h, size_t size)
{
	return !memcmp(h->magic, LDPROF_SHM_MAGIC, sizeof h->magic) &&
	       h->version == LDPROF_SHM_VERSION && h->header_size == sizeof *h &&
	       h->record_size == sizeof(struct ldprof_record) && h->total_size == size &&
	       h->records_off >= sizeof *h && h->clock == LDPROF_CLOCK_TSC &&
	       h->records_off % _Alignof(struct ldprof_record) == 0 &&
	       (uint64_t)h->records_off + (uint64_t)h->records_cap * h->record_size <= size &&
	       (uint64_t)h->strings_off + h->strings_cap <= size;
}

static const char *string_at(const struct ldprof_shm_header *h, uint32_t off)
{
	const char *base = (const char *)h + h->strings_off;

	if (off >= h->strings_cap || !memchr(base + off, '\0', h->strings_cap - off))
		return NULL;
	return base + off;
}

/* Shim object index -> trace object + 1 for this run; 0 = unknown. */
struct objmap {
	uint32_t *to_trace;
	size_t cap;
};

static uint32_t objmap_get(const struct objmap *m, uint16_t idx)
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

static uint32_t note_objopen(struct trace *t, struct objmap *m, const struct ldprof_shm_header *h,
			     const struct ldprof_record *rec, bool after_startup)
{
	const char *name = rec->u32 == UINT32_MAX ? NULL : string_at(h, rec->u32);
	uint32_t flags = (uint32_t)rec->b;

	if (!name)
		name = "(name lost: string area full)";
	enum obj_role role = role_of(flags, name, rec->obj);
	uint32_t id = trace_intern(t, role == ROLE_EXECUTABLE ? t->program : name);
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

int shm_decode(const void *buf, size_t size, struct trace *t, struct trace_run *r,
	       struct errbuf *err)
{
	const struct ldprof_shm_header *h = buf;
	struct objmap m = {0};
	bool after_startup = false;

	if (size < sizeof *h || !header_valid(h, size))
		return set_err(err, EPROTO, "record buffer: bad header (not an ldprof v%u buffer)",
			       LDPROF_SHM_VERSION);
	r->exec_ts = h->exec_ts;
	r->shm_flags = h->flags;
	r->shim_attached = h->claimed != 0;
	if (h->nrecords > h->records_cap)
		r->shm_flags |= LDPROF_SHM_F_OVERFLOW;
	uint32_t n = h->nrecords < h->records_cap ? h->nrecords : h->records_cap;
	const struct ldprof_record *recs =
		(const struct ldprof_record *)((const char *)h + h->records_off);
	for (uint32_t i = 0; i < n; i++) {
		const struct ldprof_record *rec = &recs[i];
		struct trace_event ev = {.ts = rec->ts,
					 .type = rec->type,
					 .obj = TRACE_NO_OBJ,
					 .u32 = rec->u32,
					 .a = rec->a,
					 .b = rec->b};
		if (rec->type < LDPROF_REC_VERSION || rec->type > LDPROF_REC_SYMBIND)
			continue; /* unknown types: skipped, as the format allows */
		if (rec->type == LDPROF_REC_OBJOPEN)
			ev.obj = note_objopen(t, &m, h, rec, after_startup);
		else if (rec->obj != LDPROF_NO_OBJ)
			ev.obj = objmap_get(&m, rec->obj);
		if (rec->type == LDPROF_REC_ACTIVITY && rec->u32 == 0 /* LA_ACT_CONSISTENT */)
			after_startup = true;
		trace_add_event(r, &ev);
	}
	free(m.to_trace);
	return 0;
}
