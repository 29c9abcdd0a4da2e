/*
 * The launcher's side of the shared-memory record buffer (format in
 * preload/ldprof-record.h and docs/record-format.md): create it, reset it
 * before each run, and decode it into a trace run afterwards.
 */
#ifndef LDPROF_SHM_H
#define LDPROF_SHM_H

#include <stddef.h>

#include "ldprof-record.h"
#include "run/trace.h"
#include "base/util.h"

/*
 * Lowest fd number for the buffer in the child: out of the program's way.
 * Under an open-file limit at or below it, the highest free fd instead.
 */
#define SHM_FD_MIN 1000

struct shm_buf {
	int fd; /* >= SHM_FD_MIN (or near the limit), close-on-exec in the launcher */
	size_t size;
	struct ldprof_shm_header *hdr;
};

/* A buffer of size bytes (a memfd mapped MAP_SHARED). */
int shm_create(struct shm_buf *s, size_t size, struct errbuf *err);
void shm_destroy(struct shm_buf *s);
/* Write a fresh header; records and strings are left as they are. */
void shm_reset(struct shm_buf *s);
void shm_init_header(struct ldprof_shm_header *h, size_t size);

/*
 * Decode a buffer into run r of trace t: validates the header, bounds every
 * record and string, interns objects. -EPROTO with err set when the buffer
 * is not a valid record of this version.
 */
int shm_decode(const void *buf, size_t size, struct trace *t, struct trace_run *r,
	       struct errbuf *err);

#endif
