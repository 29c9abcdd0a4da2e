/*
 * Where an output path really writes, decided before anything is written
 * (and before any program runs), so that -o never destroys what it names:
 * a regular file or a new name is replaced atomically, a symbolic link's
 * target is (the link stays), and a device, FIFO or /dev/stdout is written
 * in place, as a shell's `>` would.
 */
#ifndef LDPROF_OUTPATH_H
#define LDPROF_OUTPATH_H

#include <stdbool.h>

#include "base/util.h"

enum outpath_kind {
	OUTPATH_STDOUT,	 /* NULL, "-", /dev/stdout, /dev/fd/1: standard output */
	OUTPATH_FD,	 /* /dev/stderr, /dev/fd/N, /proc/self/fd/N: that descriptor */
	OUTPATH_REPLACE, /* a regular file or a new name: temporary file, then rename */
	OUTPATH_DIRECT,	 /* a device, FIFO or /proc magic link: opened and written */
};

struct outpath {
	enum outpath_kind kind;
	char *path;  /* REPLACE, DIRECT: what to write (a symbolic link's target) */
	int fd;	     /* FD */
	bool exists; /* REPLACE: path is a regular file now */
};

enum {
	OUTPATH_MAKE_DIRS = 1 << 0, /* the writer creates missing directories (mkdir -p) */
};

/*
 * Decide where path writes, checking that it can: 0, or -errno with err
 * set to "PATH: WHY" ("no/such/dir/t: directory does not exist").
 */
int outpath_resolve(const char *path, unsigned flags, struct outpath *o, struct errbuf *err);
void outpath_free(struct outpath *o);

/* Whether writing o would write the file input names (same device and inode). */
bool outpath_is_file(const struct outpath *o, const char *input);

#endif
