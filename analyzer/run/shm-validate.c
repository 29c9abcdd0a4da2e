/*
 * Checking a record buffer before anything in it is believed. The program
 * shares the buffer with the shim, so a stray memset or an overrun can leave
 * anything there; a run whose data fails any check here is kept as a run
 * (its wall time is real) but none of its records are used.
 */
#include "run/shm.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#define KNOWN_SHM_FLAGS                                                                      \
	(LDPROF_SHM_F_OVERFLOW | LDPROF_SHM_F_STR_OVERFLOW | LDPROF_SHM_F_TOO_MANY_OBJS |    \
	 LDPROF_SHM_F_NO_PRELOAD)
#define KNOWN_OBJ_FLAGS 0x7fu /* enum ldprof_obj_flags */

bool shm_header_valid(const struct ldprof_shm_header *h, size_t size)
{
	/* Records are read in place: they must be aligned as the struct is. */
	return size >= sizeof *h && !((uintptr_t)h % _Alignof(struct ldprof_record)) &&
	       !(h->records_off % _Alignof(struct ldprof_record)) &&
	       !memcmp(h->magic, LDPROF_SHM_MAGIC, sizeof h->magic) &&
	       h->version == LDPROF_SHM_VERSION && h->header_size == sizeof *h &&
	       h->record_size == sizeof(struct ldprof_record) && h->total_size == size &&
	       h->records_off >= sizeof *h && h->clock == LDPROF_CLOCK_TSC &&
	       (uint64_t)h->records_off + (uint64_t)h->records_cap * h->record_size <= size &&
	       h->strings_off >= sizeof *h && (uint64_t)h->strings_off + h->strings_cap <= size;
}

const char *shm_string_at(const struct ldprof_shm_header *h, uint32_t off)
{
	const char *base = (const char *)h + h->strings_off;

	if (off >= h->strings_cap || !memchr(base + off, '\0', h->strings_cap - off))
		return NULL;
	return base + off;
}

/* What the records seen so far allow the next one to be. */
struct walk {
	uint64_t lo, hi;   /* the run's window */
	uint64_t last;	   /* latest timestamp so far */
	uint32_t nobj;	   /* OBJOPEN records so far: valid indices are below */
	uint32_t seen;	   /* bit per type seen, for those allowed once */
	uint32_t nrecords; /* records read so far */
};

static bool once(struct walk *w, uint16_t type)
{
	uint32_t bit = 1u << type;

	if (w->seen & bit)
		return false;
	w->seen |= bit;
	return true;
}

static bool obj_ok(const struct walk *w, uint16_t obj)
{
	return obj < w->nobj || (obj == LDPROF_NO_OBJ && w->nobj >= LDPROF_NO_OBJ);
}

/* The type-specific fields; NULL when fine, else why not. */
static const char *fields_bad(const struct ldprof_shm_header *h, struct walk *w,
			      const struct ldprof_record *r)
{
	switch (r->type) {
	case LDPROF_REC_VERSION:
		return w->nrecords || r->a == 0 || r->a > 255 ? "misplaced or impossible" : NULL;
	case LDPROF_REC_OBJOPEN:
		if (r->obj != (w->nobj < LDPROF_NO_OBJ ? w->nobj : LDPROF_NO_OBJ))
			return "object index out of sequence";
		if (r->u32 != UINT32_MAX && !shm_string_at(h, r->u32))
			return "name outside the string area";
		if ((uint32_t)r->b & ~KNOWN_OBJ_FLAGS)
			return "unknown object flags";
		w->nobj++;
		return NULL;
	case LDPROF_REC_ACTIVITY:
		return r->u32 > 2 ? "unknown activity" : NULL;
	case LDPROF_REC_INIT_BEGIN:
	case LDPROF_REC_FINI_BEGIN:
	case LDPROF_REC_OBJCLOSE:
		return obj_ok(w, r->obj) ? NULL : "object never opened";
	case LDPROF_REC_INIT_END:
	case LDPROF_REC_FINI_END:
		if (!obj_ok(w, r->obj))
			return "object never opened";
		return (r->u32 ? r->a >= r->u32 : r->a != 0) || r->b > r->ts - w->lo
			       ? "impossible function count or duration"
			       : NULL;
	case LDPROF_REC_PREINIT:
	case LDPROF_REC_MAIN_ENTER:
	case LDPROF_REC_MAIN_RETURN:
		return once(w, r->type) ? NULL : "repeated milestone";
	case LDPROF_REC_EXIT_CALL:
		return r->u32 < LDPROF_EXIT_EXIT || r->u32 > LDPROF_EXIT__EXIT_C99 ||
				       !once(w, r->type)
			       ? "impossible or repeated exit call"
			       : NULL;
	case LDPROF_REC_SYMBIND:
		return !obj_ok(w, r->obj) || r->a > r->b || r->b != r->ts ? "impossible binding span"
									  : NULL;
	default:
		return "unknown record type";
	}
}

static int record_bad(const struct ldprof_shm_header *h, struct walk *w,
		      const struct ldprof_record *r, struct errbuf *err)
{
	const char *why = NULL;

	if (r->ts < w->lo || r->ts > w->hi)
		why = "timestamp outside the run";
	/* Reserved in time order, except a binding summary (its last call's time). */
	else if (r->type != LDPROF_REC_SYMBIND && r->ts < w->last)
		why = "timestamp earlier than the record before";
	else if (r->type != LDPROF_REC_SYMBIND && r->type != LDPROF_REC_VERSION &&
		 !w->nrecords)
		why = "the first record is not VERSION";
	else
		why = fields_bad(h, w, r);
	if (why)
		return set_err(err, EBADMSG, "record buffer: record %u (type %u): %s",
			       w->nrecords, r->type, why);
	if (r->type != LDPROF_REC_SYMBIND)
		w->last = r->ts;
	w->nrecords++;
	return 0;
}

/* The header's shim-written fields, and what the launcher knows of the run. */
static const char *header_bad(const struct ldprof_shm_header *h, const struct shm_expect *x)
{
	if (h->claimed > 1 || (h->shim_version && h->shim_version != LDPROF_SHM_VERSION))
		return "impossible claim";
	if (h->flags & ~KNOWN_SHM_FLAGS)
		return "unknown flags";
	if (!h->claimed && h->nrecords)
		return "records from no shim";
	/* The shim reserves, then flags what did not fit. */
	if ((h->nrecords > h->records_cap && !(h->flags & LDPROF_SHM_F_OVERFLOW)) ||
	    (h->strings_used > h->strings_cap && !(h->flags & LDPROF_SHM_F_STR_OVERFLOW)))
		return "counts beyond the buffer without the overflow flag";
	if (h->options & ~(uint32_t)LDPROF_OPT_PRELOAD)
		return "unknown options";
	if (h->exec_errno)
		return "an exec error from a program that ran";
	if (x && (h->pid != x->pid || h->exec_ts < x->start_ts || h->exec_ts > x->end_ts))
		return "not the launched process or its start";
	return NULL;
}

int shm_validate(const void *buf, size_t size, const struct shm_expect *x, struct errbuf *err)
{
	const struct ldprof_shm_header *h = buf;
	const char *why;

	if (!buf || !shm_header_valid(h, size))
		return set_err(err, EPROTO, "record buffer: bad header (not an ldprof v%u buffer)",
			       LDPROF_SHM_VERSION);
	if ((why = header_bad(h, x)))
		return set_err(err, EBADMSG, "record buffer: header: %s", why);
	struct walk w = {.lo = h->exec_ts, .hi = x ? x->end_ts : UINT64_MAX, .last = h->exec_ts};
	uint32_t n = h->nrecords < h->records_cap ? h->nrecords : h->records_cap;
	const struct ldprof_record *recs =
		(const struct ldprof_record *)((const char *)h + h->records_off);
	for (uint32_t i = 0; i < n; i++)
		if (record_bad(h, &w, &recs[i], err))
			return -EBADMSG;
	return 0;
}

int shm_exec_errno(const void *buf, size_t size, int wait_status)
{
	const struct ldprof_shm_header *h = buf;

	/* The launcher's child exits 127 right after a failed execve. */
	if (!shm_header_valid(h, size) || !WIFEXITED(wait_status) ||
	    WEXITSTATUS(wait_status) != 127 || h->claimed || h->nrecords)
		return 0;
	return h->exec_errno > 0 && h->exec_errno < 4096 ? h->exec_errno : 0;
}
