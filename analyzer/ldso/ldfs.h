/*
 * The file system as ld.so sees it while searching, memoised: whether a
 * candidate file opens and passes ld.so's open_verify checks, whether a
 * directory exists, and each object parsed once (keyed by device and
 * inode, as ld.so recognises a file it already loaded). One ldfs serves
 * every program of a run, so libc is read once for a thousand programs.
 */
#ifndef LDPROF_LDFS_H
#define LDPROF_LDFS_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "elf/elfobj.h"
#include "base/strmap.h"

enum probe_kind {
	PROBE_NONE,  /* open failed (err) */
	PROBE_OK,    /* a loadable x86-64 ELF64 object */
	PROBE_SKIP,  /* ld.so passes over it: other class, machine or OS ABI note */
	PROBE_FATAL, /* ld.so stops loading with this error */
};

struct probe {
	enum probe_kind kind;
	int err;	  /* errno for PROBE_NONE */
	bool other_class; /* PROBE_SKIP because it is ELFCLASS32 */
	bool special;	  /* not a regular file (directory, FIFO, device) */
	char *fatal;	  /* ld.so's message for PROBE_FATAL */
	dev_t dev;
	ino_t ino;
};

/* Shared by the threads analysing programs: every call takes the lock. */
struct ldfs {
	pthread_mutex_t lock;
	struct strmap probes;  /* path -> struct probe */
	struct strmap dirs;    /* path -> stat outcome (ldfs_is_dir) */
	struct strmap objects; /* "dev:ino" -> struct fsobj */
	unsigned osversion;    /* the kernel's version as ld.so reads it */
};

void ldfs_init(struct ldfs *fs);
void ldfs_free(struct ldfs *fs);

/* open_verify, memoised. */
const struct probe *ldfs_probe(struct ldfs *fs, const char *path);
/* Whether path is an existing directory (ld.so's stat after a failed
   open); *stat_errno is stat's errno, or 0 when stat succeeded. */
bool ldfs_is_dir(struct ldfs *fs, const char *path, int *stat_errno);
/*
 * The parsed object for a file that probed PROBE_OK, or NULL with *error
 * set to why it cannot be used (a message kept by the cache).
 */
struct elfobj *ldfs_object(struct ldfs *fs, const char *path, const struct probe *p,
			   const char **error);

#endif
