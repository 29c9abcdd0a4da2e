#include "run/shm.h"
#include "run/shm-records.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <unistd.h>

#include "base/tsc.h"

/*
 * Moved high so it never takes a number the program expects free: to
 * SHM_FD_MIN or above, or, when the open-file limit is lower, to the
 * highest free number under it.
 */
static int move_high(int fd, struct errbuf *err)
{
	struct rlimit rl;
	int hi;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > SHM_FD_MIN) {
		if ((hi = fcntl(fd, F_DUPFD_CLOEXEC, SHM_FD_MIN)) >= 0)
			return hi;
		return set_err(err, errno,
			       "cannot move the record buffer to fd %d or above: %s (the open-file "
			       "limit, ulimit -n, is %llu)",
			       SHM_FD_MIN, strerror(errno), (unsigned long long)rl.rlim_cur);
	}
	/* Above 0-2, which the launcher points at /dev/null in the child. */
	for (int want = (int)rl.rlim_cur - 1; want > 2; want--) {
		if ((hi = fcntl(fd, F_DUPFD_CLOEXEC, want)) >= 0)
			return hi;
		if (errno != EMFILE)
			return set_err(err, errno, "cannot move the record buffer to fd %d: %s", want,
				       strerror(errno));
	}
	return set_err(err, EMFILE,
		       "no fd free for the record buffer under the open-file limit of %llu; raise "
		       "it with ulimit -n",
		       (unsigned long long)rl.rlim_cur);
}

/* A new memfd of size bytes, mapped, moved high (move_high). */
static int new_buffer(size_t size, int *fdp, struct ldprof_shm_header **hdrp, struct errbuf *err)
{
	int fd = memfd_create("ldprof-records", MFD_CLOEXEC), high = -1, r;
	void *p;

	if (fd < 0)
		return set_err(err, errno, "memfd_create: %s", strerror(errno));
	if (ftruncate(fd, (off_t)size)) {
		r = set_err(err, errno, "memfd: %s", strerror(errno));
		goto out;
	}
	if ((high = move_high(fd, err)) < 0) {
		r = high;
		goto out;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, high, 0);
	if (p == MAP_FAILED) {
		r = set_err(err, errno, "mmap: %s", strerror(errno));
		goto out;
	}
	*hdrp = p;
	*fdp = high;
	high = -1;
	r = 0;
out:
	close(fd);
	if (high >= 0)
		close(high);
	return r;
}

int shm_create(struct shm_buf *s, size_t size, struct errbuf *err)
{
	int r;

	memset(s, 0, sizeof *s);
	s->fd = -1;
	if ((r = new_buffer(size, &s->fd, &s->hdr, err)))
		return r;
	s->size = size;
	shm_init_header(s->hdr, size);
	return 0;
}

/*
 * A System V segment of size bytes, attached, and marked for removal at
 * once: Linux still lets a process attach it by id while anyone is
 * attached, and it goes when the last one detaches, even if ldprof is
 * killed.
 */
static int new_segment(size_t size, int *idp, struct ldprof_shm_header **hdrp, struct errbuf *err)
{
	int id = shmget(IPC_PRIVATE, size, IPC_CREAT | SHM_NORESERVE | 0600), e;
	void *p;

	if (id < 0)
		return set_err(err, errno, "shmget: %s", strerror(errno));
	p = shmat(id, NULL, 0);
	e = errno;
	shmctl(id, IPC_RMID, NULL);
	if (p == (void *)-1)
		return set_err(err, e, "shmat: %s", strerror(e));
	*idp = id;
	*hdrp = p;
	return 0;
}

int shm_create_follow(struct shm_buf *s, size_t size, uint32_t chunk_size, struct errbuf *err)
{
	int r;

	struct ldprof_shm_header probe;

	size = size ? size : SHM_FOLLOW_BYTES;
	chunk_size = chunk_size ? chunk_size : SHM_CHUNK_BYTES;
	if (size > UINT32_MAX || size < 2 * sizeof probe || chunk_size % 8 || chunk_size > size ||
	    chunk_size < sizeof(struct ldprof_chunk) + sizeof(struct ldprof_record) ||
	    (shm_init_follow_header(&probe, size, chunk_size), !probe.chunks_cap))
		return set_err(err, EINVAL,
			       "record buffer: %zu bytes in chunks of %u bytes: no room for one",
			       size, chunk_size);
	memset(s, 0, sizeof *s);
	s->fd = -1;
	s->size = size;
	s->chunk_size = chunk_size;
	if (!new_segment(size, &s->shmid, &s->hdr, err)) {
		s->sysv = true;
		shm_init_follow_header(s->hdr, size, chunk_size);
		return 0;
	}
	if ((r = new_buffer(size, &s->fd, &s->hdr, err)))
		return r;
	shm_init_follow_header(s->hdr, size, chunk_size);
	/* What every shim will do: without /proc no process could record. */
	char *path = shm_follow_path(s);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		r = set_err(err, errno, "the record buffer cannot be reopened by %s: %s (-f needs /proc)",
			    path, strerror(errno));
		shm_destroy(s);
	} else {
		close(fd);
	}
	free(path);
	return r;
}

char *shm_env(const struct shm_buf *s)
{
	int fd = s->fd < 0 ? 0 : s->fd;

	if (!s->chunk_size)
		return xasprintf("%s=%d,%zu", LDPROF_SHM_ENV, fd, s->size);
	char *where = shm_follow_path(s), *e = xasprintf("%s=%d,%zu,%s", LDPROF_SHM_ENV, fd, s->size, where);
	free(where);
	return e;
}

char *shm_follow_path(const struct shm_buf *s)
{
	if (s->sysv)
		return xasprintf("sysv:%d", s->shmid);
	return xasprintf("/proc/%d/fd/%d", (int)getpid(), s->fd);
}

void shm_freeze(struct shm_buf *s)
{
	shm_snapshot_free(s->frozen, s->size);
	s->frozen = shm_snapshot(s->hdr, s->size);
}

void shm_destroy(struct shm_buf *s)
{
	shm_snapshot_free(s->frozen, s->size);
	if (s->hdr)
		munmap(s->hdr, s->size);
	if (s->fd >= 0)
		close(s->fd);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}

/* What every buffer's header says of itself: the format, its sizes, the clock. */
static void header_identity(struct ldprof_shm_header *h, size_t size)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, LDPROF_SHM_MAGIC, sizeof h->magic);
	h->version = LDPROF_SHM_VERSION;
	h->header_size = sizeof *h;
	h->record_size = sizeof(struct ldprof_record);
	h->total_size = (uint32_t)size;
	h->clock = LDPROF_CLOCK_TSC;
}

/*
 * A run buffer of LDPROF_SHM_RUN_BYTES keeps the shim's state in the
 * header's page, then the names, then the records, so that the pages a
 * run touches are the first five (ldprof-record.h says why);
 * any other size has no state area: records take three quarters, names
 * the rest.
 */
void shm_init_header(struct ldprof_shm_header *h, size_t size)
{
	size_t rec_bytes = (size - sizeof *h) / 4 * 3;

	header_identity(h, size);
	if (size == LDPROF_SHM_RUN_BYTES) {
		h->state_off = LDPROF_SHM_STATE_OFF;
		h->strings_off = LDPROF_SHM_STATE_OFF + LDPROF_SHM_STATE_BYTES;
		h->strings_cap = 12u * 1024;
		h->records_off = h->strings_off + h->strings_cap;
		h->records_cap = (uint32_t)((size - h->records_off) / sizeof(struct ldprof_record));
		return;
	}
	h->records_off = sizeof *h;
	h->records_cap = (uint32_t)(rec_bytes / sizeof(struct ldprof_record));
	h->strings_off = h->records_off + h->records_cap * (uint32_t)sizeof(struct ldprof_record);
	h->strings_cap = (uint32_t)size - h->strings_off;
}

void shm_init_follow_header(struct ldprof_shm_header *h, size_t size, uint32_t chunk_size)
{
	size_t strings = (size - sizeof *h) / 4 / 8 * 8;
	size_t chunks_off = (sizeof *h + strings + chunk_size - 1) / chunk_size * chunk_size;

	header_identity(h, size);
	h->records_off = sizeof *h; /* no record array: each process has its chunks */
	h->strings_off = sizeof *h;
	h->strings_cap = (uint32_t)strings;
	h->options = LDPROF_OPT_FOLLOW;
	h->chunk_size = chunk_size;
	/* Aligned to its size, a chunk never straddles two pages it could avoid. */
	h->chunks_off = (uint32_t)chunks_off;
	h->chunks_cap = chunks_off < size ? (uint32_t)((size - chunks_off) / chunk_size) : 0;
}

/*
 * A fresh buffer, so that a process of an earlier run that still maps the
 * old one (an orphan) writes only there, where nobody reads: a memfd under
 * the same fd number (the environment names it), or a new segment, whose
 * id the caller then puts in the environment (shm_follow_path).
 */
/* A new memfd, mapped, under s's fd number. */
static int new_memfd_here(struct shm_buf *s, struct ldprof_shm_header **hdrp, struct errbuf *err)
{
	int fd, r;

	if ((r = new_buffer(s->size, &fd, hdrp, err)))
		return r;
	if (dup3(fd, s->fd, O_CLOEXEC) < 0) {
		r = set_err(err, errno, "record buffer: dup3: %s", strerror(errno));
		munmap(*hdrp, s->size);
	}
	close(fd);
	return r;
}

int shm_reset(struct shm_buf *s, struct errbuf *err)
{
	struct ldprof_shm_header *hdr;
	int r = s->sysv ? new_segment(s->size, &s->shmid, &hdr, err) : new_memfd_here(s, &hdr, err);

	if (r)
		return r;
	munmap(s->hdr, s->size); /* a segment's attachment too */
	s->hdr = hdr;
	shm_snapshot_free(s->frozen, s->size);
	s->frozen = NULL;
	if (s->chunk_size) {
		shm_init_follow_header(hdr, s->size, s->chunk_size);
		/* The top process's chunk, like the names' first page: allocated now. */
		((volatile char *)hdr)[hdr->chunks_off] = 0;
	} else {
		shm_init_header(hdr, s->size);
	}
	/*
	 * The pages the shim writes first (its state, its first name and
	 * record): allocated now, not in the child, where one fault then maps
	 * them all (the kernel maps the cached pages around a fault).
	 */
	((volatile char *)hdr)[hdr->strings_off] = 0;
	((volatile char *)hdr)[hdr->records_off] = 0;
	if (hdr->state_off)
		((volatile char *)hdr)[hdr->state_off] = 0;
	s->reset_ts = tsc_now();
	return 0;
}

int shm_validate(const void *buf, size_t size, const struct shm_expect *x, struct errbuf *err)
{
	const struct ldprof_shm_header *h = buf;
	const char *why;

	if (!buf || !shm_header_valid(h, size))
		return set_err(err, EPROTO, "record buffer: bad header (not an ldprof v%u buffer)",
			       LDPROF_SHM_VERSION);
	if ((why = shm_header_bad(h, x)))
		return set_err(err, EBADMSG, "record buffer: header: %s", why);
	if (h->options & LDPROF_OPT_FOLLOW)
		return shm_validate_chunks(h, x, err);
	uint32_t n = h->nrecords < h->records_cap ? h->nrecords : h->records_cap;
	const struct ldprof_record *recs =
		(const struct ldprof_record *)((const char *)h + h->records_off);
	return shm_check_records(h, recs, n, h->exec_ts, x ? x->end_ts : UINT64_MAX, false, err);
}

int shm_decode(const void *buf, size_t size, const struct shm_expect *x, struct trace *t,
	       struct trace_run *r, struct errbuf *err)
{
	const struct ldprof_shm_header *h = buf;
	struct shm_objmap m = {0};
	int ret = shm_header_valid(h, size) && (h->options & LDPROF_OPT_FOLLOW)
			  ? shm_decode_top(h, size, x, t, r, err)
			  : shm_validate(buf, size, x, err);

	if (ret) {
		r->shm_flags = TRACE_SHM_CORRUPT;
		r->shim_attached = false;
		/* The run's window is real; the header's start only if it lies in it. */
		r->exec_ts = x ? x->start_ts : 0;
		if (x && size >= sizeof *h && h->exec_ts >= x->start_ts && h->exec_ts <= x->end_ts)
			r->exec_ts = h->exec_ts;
		return ret;
	}
	if (h->options & LDPROF_OPT_FOLLOW)
		return 0;
	r->exec_ts = h->exec_ts;
	r->shm_flags = h->flags;
	r->shim_attached = h->claimed != 0;
	if (h->nrecords > h->records_cap)
		r->shm_flags |= LDPROF_SHM_F_OVERFLOW;
	uint32_t n = h->nrecords < h->records_cap ? h->nrecords : h->records_cap;
	const struct ldprof_record *recs =
		(const struct ldprof_record *)((const char *)h + h->records_off);
	shm_decode_records(h, recs, n, t->program, false, t, &m, r);
	free(m.to_trace);
	return 0;
}

void shm_collect(const struct shm_buf *s, pid_t pid, struct trace *t, struct trace_run *r)
{
	struct shm_expect x = {.start_ts = s->reset_ts, .end_ts = r->reap_ts, .pid = pid};
	struct errbuf err;
	void *own = s->frozen ? NULL : shm_snapshot(s->hdr, s->size);
	const void *copy = s->frozen ? s->frozen : own;

	/* Without memory for the copy, the run's records are lost, never misread. */
	shm_decode(copy, copy ? s->size : 0, &x, t, r, &err);
	shm_snapshot_free(own, s->size);
}
