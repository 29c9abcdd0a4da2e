/*
 * Search paths as ld.so builds and walks them (glibc 2.36 elf/dl-load.c):
 * dynamic string tokens, DT_RPATH/DT_RUNPATH/LD_LIBRARY_PATH lists, and
 * open_path's walk over each directory and hwcaps subdirectory, with the
 * per-process memory of subdirectories that do not exist.
 */
#ifndef LDPROF_LDPATH_H
#define LDPROF_LDPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ldso/hwcaps.h"
#include "ldso/ldfs.h"
#include "base/strmap.h"

/* $LIB on Debian's multiarch glibc. */
#define DST_LIB "lib/x86_64-linux-gnu"

/*
 * Expand $ORIGIN, $PLATFORM and $LIB (also as ${...}) in s. origin NULL
 * means unknown: a path using it is discarded, as ld.so does, and "" is
 * returned. The result is malloc'd.
 */
char *dst_expand(const char *s, const char *origin, const char *platform);
bool dst_present(const char *s);

/* A directory as ld.so's r_search_path_elem: one status per subdirectory. */
enum dir_status { DIR_UNKNOWN, DIR_MISSING, DIR_EXISTS };
struct sdir {
	char *name; /* with a trailing '/', or "" for the current directory */
	uint8_t *status;
};

/* One search list (r_search_path_struct): an RPATH, RUNPATH, LD_LIBRARY_PATH
   or the default directories. */
struct spath {
	struct sdir **dir;
	size_t n;
	const char *what;  /* "RPATH", "RUNPATH", "LD_LIBRARY_PATH", "system search path" */
	const char *where; /* the object it comes from, or NULL */
	bool dead;	   /* ld.so dropped it: none of its directories exists */
	bool permanent;	   /* LD_LIBRARY_PATH and the defaults are never dropped */
};

/* What one search tried: each candidate path, tagged with its list. */
struct tried {
	char *path;
	const char *what, *where;
};

/* Per-process directory state: every directory known, by name. */
struct dirstate {
	struct strmap dirs;
	const struct hwcaps *hw;
};

void dirstate_init(struct dirstate *ds, const struct hwcaps *hw);
void dirstate_free(struct dirstate *ds);

/*
 * Split list at any of seps, expand tokens, drop empty expansions and
 * duplicates, as fillin_rpath does. Returns NULL when nothing is left
 * (ld.so then has no such list).
 */
struct spath *spath_new(struct dirstate *ds, const char *list, const char *seps, const char *what,
			const char *where, const char *origin, const char *platform);
void spath_free(struct spath *sp);

struct search_result {
	char *path;		/* the file found (malloc'd), or NULL */
	const struct sdir *dir; /* where, and which subdirectory */
	size_t subdir;
	bool other_class; /* a candidate was an ELF of the other class */
	char *fatal;	  /* a candidate made ld.so stop loading */
};

/*
 * open_path: try name in every directory of sp and every hwcaps
 * subdirectory, skipping those known not to exist; append each candidate
 * to *tried. Marks sp dead when none of its directories exists.
 */
void spath_search(struct dirstate *ds, struct ldfs *fs, struct spath *sp, const char *name,
		  struct tried **tried, size_t *ntried, size_t *tcap, struct search_result *res);

void tried_add(struct tried **t, size_t *n, size_t *cap, const char *path, const char *what,
	       const char *where);

#endif
