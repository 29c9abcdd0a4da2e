/*
 * Checking a record buffer before anything in it is believed. The program
 * shares the buffer with the shim, so a stray memset or an overrun can leave
 * anything there; a run whose data fails any check here is kept as a run
 * (its wall time is real) but none of its records are used.
 */
#include "run/shm.h"
#include "run/shm-records.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#define KNOWN_OBJ_FLAGS 0x7fu /* enum ldprof_obj_flags */

bool shm_chunks_valid(const struct ldprof_shm_header *h, size_t size)
{
	return h->chunk_size >= sizeof(struct ldprof_chunk) + sizeof(struct ldprof_record) &&
	       !(h->chunk_size % 8) && !(h->chunks_off % 8) && !h->records_cap &&
	       h->chunks_off >= (uint64_t)h->strings_off + h->strings_cap &&
	       (uint64_t)h->chunks_off + (uint64_t)h->chunks_cap * h->chunk_size <= size;
}

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
	       h->strings_off >= sizeof *h && (uint64_t)h->strings_off + h->strings_cap <= size &&
	       (h->options & LDPROF_OPT_FOLLOW ? shm_chunks_valid(h, size)
					       : !(h->chunk_size | h->chunks_off | h->chunks_cap));
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
	bool forked;	   /* a forked child's: FORKED first, not VERSION */
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
	case LDPROF_REC_CPU: /* at the start's end, main's, or each LA_ACT_DELETE before it */
		return r->obj != LDPROF_NO_OBJ || r->u32 ? "impossible CPU time" : NULL;
	case LDPROF_REC_EXIT_CALL:
		return r->u32 < LDPROF_EXIT_EXIT || r->u32 > LDPROF_EXIT__EXIT_C99 ||
				       !once(w, r->type)
			       ? "impossible or repeated exit call"
			       : NULL;
	case LDPROF_REC_SYMBIND:
		return !obj_ok(w, r->obj) || r->a > r->b || r->b != r->ts ? "impossible binding span"
									  : NULL;
	case LDPROF_REC_LAZY:
		return !obj_ok(w, r->obj) || r->u32 > r->a || r->b > w->hi - r->ts
			       ? "impossible lazy-binding count"
			       : NULL;
	case LDPROF_REC_FORKED:
		if (!w->forked || w->nrecords || r->ts != w->lo || r->u32 > LDPROF_NO_OBJ ||
		    r->a > INT32_MAX || r->b < r->ts || r->b > w->hi)
			return "misplaced or impossible";
		w->nobj = r->u32;
		return NULL;
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
	else if (!w->nrecords &&
		 r->type != (w->forked ? LDPROF_REC_FORKED : LDPROF_REC_VERSION) &&
		 (w->forked || r->type != LDPROF_REC_SYMBIND))
		why = w->forked ? "the first record is not FORKED" : "the first record is not VERSION";
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

int shm_check_records(const struct ldprof_shm_header *h, const struct ldprof_record *recs,
		      uint32_t n, uint64_t lo, uint64_t hi, bool forked, struct errbuf *err)
{
	struct walk w = {.lo = lo, .hi = hi, .last = lo, .forked = forked};

	for (uint32_t i = 0; i < n; i++)
		if (record_bad(h, &w, &recs[i], err))
			return -EBADMSG;
	return 0;
}

/* Follow mode: the chunk area, and the counts the shims keep in the header. */
static const char *follow_header_bad(const struct ldprof_shm_header *h)
{
	uint32_t over = h->chunks_used > h->chunks_cap ? h->chunks_used - h->chunks_cap : 0;

	/* Every process's records and flags are in its chunks. */
	if (h->claimed || h->nrecords || h->records_cap || h->flags)
		return "records outside the chunks";
	/* Each lost process made one claim that found the area full. */
	if ((uint64_t)h->lost_execs + h->lost_forks > over)
		return "more lost processes than failed claims";
	return NULL;
}

/* The shim's state area, when there is one: where it must be, apart from the rest. */
static bool state_area_ok(const struct ldprof_shm_header *h)
{
	uint64_t end = (uint64_t)LDPROF_SHM_STATE_OFF + LDPROF_SHM_STATE_BYTES;
	uint64_t rec_end = (uint64_t)h->records_off + (uint64_t)h->records_cap * h->record_size;

	return h->state_off == LDPROF_SHM_STATE_OFF && h->total_size == LDPROF_SHM_RUN_BYTES &&
	       !(h->options & LDPROF_OPT_FOLLOW) && (h->records_off >= end || rec_end <= h->state_off) &&
	       (h->strings_off >= end || (uint64_t)h->strings_off + h->strings_cap <= h->state_off);
}

/* The header's shim-written fields, and what the launcher knows of the run. */
const char *shm_header_bad(const struct ldprof_shm_header *h, const struct shm_expect *x)
{
	bool follow = h->options & LDPROF_OPT_FOLLOW;

	if (h->claimed > 1 || (h->shim_version && h->shim_version != LDPROF_SHM_VERSION))
		return "impossible claim";
	if (h->flags & ~SHM_KNOWN_SHIM_FLAGS)
		return "unknown flags";
	if (follow && follow_header_bad(h))
		return follow_header_bad(h);
	if (!follow && (h->chunks_used || h->lost_execs || h->lost_forks))
		return "chunks claimed outside follow mode";
	if (h->reserved[0] || h->reserved[1])
		return "reserved fields set";
	if (h->state_off && !state_area_ok(h))
		return "a state area where the records or names are";
	if (!h->claimed && h->nrecords)
		return "records from no shim";
	/* The shim reserves, then flags what did not fit. */
	if ((h->nrecords > h->records_cap && !(h->flags & LDPROF_SHM_F_OVERFLOW)) ||
	    (h->strings_used > h->strings_cap && !(h->flags & LDPROF_SHM_F_STR_OVERFLOW)))
		return "counts beyond the buffer without the overflow flag";
	if (h->options & ~(uint32_t)(LDPROF_OPT_PRELOAD | LDPROF_OPT_FOLLOW))
		return "unknown options";
	if (h->exec_errno)
		return "an exec error from a program that ran";
	if (x && (h->pid != x->pid || h->exec_ts < x->start_ts || h->exec_ts > x->end_ts))
		return "not the launched process or its start";
	return NULL;
}

int shm_exec_errno(const void *buf, size_t size, int wait_status)
{
	const struct ldprof_shm_header *h = buf;

	/* The launcher's child exits 127 right after a failed execve. */
	if (!shm_header_valid(h, size) || !WIFEXITED(wait_status) ||
	    WEXITSTATUS(wait_status) != 127 || h->claimed || h->nrecords || h->chunks_used)
		return 0;
	return h->exec_errno > 0 && h->exec_errno < 4096 ? h->exec_errno : 0;
}
