/*
 * Inside the record decoder: the pieces that shm.c (one run's records),
 * shm-validate.c (the checks) and shm-procs.c (follow mode, one set of
 * chunks per process) share. Not for use outside analyzer/run/shm*.c.
 */
#ifndef LDPROF_SHM_RECORDS_H
#define LDPROF_SHM_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "run/shm.h"

/* Every flag a shim may set, in the header or in a first chunk. */
#define SHM_KNOWN_SHIM_FLAGS                                                                 \
	(LDPROF_SHM_F_OVERFLOW | LDPROF_SHM_F_STR_OVERFLOW | LDPROF_SHM_F_TOO_MANY_OBJS |    \
	 LDPROF_SHM_F_NO_PRELOAD)
#define SHM_KNOWN_CHUNK_FLAGS                                                                \
	(SHM_KNOWN_SHIM_FLAGS | LDPROF_CHUNK_F_FORKED | LDPROF_CHUNK_F_RUSAGE |              \
	 LDPROF_CHUNK_F_ARGV | LDPROF_CHUNK_F_ARGV_TRUNC)

/* The follow-mode chunk area is inside the buffer, aligned, after the names. */
bool shm_chunks_valid(const struct ldprof_shm_header *h, size_t size);

/* The header's shim-written fields against x (may be NULL); NULL or why not. */
const char *shm_header_bad(const struct ldprof_shm_header *h, const struct shm_expect *x);

/*
 * n records in the order they were reserved, as shm_validate checks one
 * run's: timestamps in [lo, hi], VERSION first (FORKED for a forked
 * child's, whose object indices below FORKED's count are inherited).
 */
int shm_check_records(const struct ldprof_shm_header *h, const struct ldprof_record *recs,
		      uint32_t n, uint64_t lo, uint64_t hi, bool forked, struct errbuf *err);

/* Follow mode: every process's chunks, as shm_validate. */
int shm_validate_chunks(const struct ldprof_shm_header *h, const struct shm_expect *x,
			struct errbuf *err);

/* Shim object index -> trace object + 1; 0 = unknown. */
struct shm_objmap {
	uint32_t *to_trace;
	size_t cap;
};

/*
 * Append checked records to r as events, interning their objects in t
 * (the executable under exe when not NULL, else under the name the shim
 * recorded); indices already in m (a forked child's inherited objects)
 * keep their objects. FORKED, a marker, becomes no event.
 */
void shm_decode_records(const struct ldprof_shm_header *h, const struct ldprof_record *recs,
			uint32_t n, const char *exe, bool after_startup, struct trace *t,
			struct shm_objmap *m, struct trace_run *r);

/* Follow mode: the launched process's first exec, decoded into r as shm_decode says. */
int shm_decode_top(const struct ldprof_shm_header *h, size_t size, const struct shm_expect *x,
		   struct trace *t, struct trace_run *r, struct errbuf *err);

#endif
