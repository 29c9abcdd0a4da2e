/* A private copy of a live record buffer, for the decoder (shm.h: shm_snapshot). */
#include "run/shm.h"

#include <string.h>
#include <sys/mman.h>

/*
 * A copy of the parts of a live buffer in use, at one moment: the header,
 * then, by the copy's own (already private) offsets and counts, the names
 * in use and the chunks claimed (follow mode) or the records reserved (a
 * run's buffer, whose shim state the decoder never reads). Every byte of the live buffer is read once, so that a
 * process still writing into it (a child of the program, or one started
 * outside the tree that found the buffer's path) cannot change what the
 * decoder checked before it uses it. The rest of the copy is zero and
 * untouched: the follow-mode buffer is large and sparse, and so is its
 * copy. NULL when no memory.
 */
void *shm_snapshot(const void *live, size_t size)
{
	struct ldprof_shm_header *h;
	char *copy;

	if (size < sizeof *h)
		return NULL;
	copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	if (copy == MAP_FAILED)
		return NULL;
	h = memcpy(copy, live, sizeof *h);
	if (!shm_header_valid(h, size)) {
		memcpy(copy + sizeof *h, (const char *)live + sizeof *h, size - sizeof *h);
		return copy;
	}
	uint32_t names = h->strings_used < h->strings_cap ? h->strings_used : h->strings_cap;
	memcpy(copy + h->strings_off, (const char *)live + h->strings_off, names);
	if (!(h->options & LDPROF_OPT_FOLLOW)) {
		uint32_t recs = h->nrecords < h->records_cap ? h->nrecords : h->records_cap;
		memcpy(copy + h->records_off, (const char *)live + h->records_off,
		       (size_t)recs * h->record_size);
		return copy;
	}
	uint32_t chunks = h->chunks_used < h->chunks_cap ? h->chunks_used : h->chunks_cap;
	memcpy(copy + h->chunks_off, (const char *)live + h->chunks_off,
	       (size_t)chunks * h->chunk_size);
	return copy;
}

void shm_snapshot_free(void *copy, size_t size)
{
	if (copy)
		munmap(copy, size);
}
