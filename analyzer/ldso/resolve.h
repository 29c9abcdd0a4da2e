/*
 * Which objects ld.so loads for a program, in which order, found where and
 * why: glibc 2.36's _dl_map_object and _dl_map_object_deps replayed on the
 * files (breadth-first over DT_NEEDED, names matched against what is
 * loaded, RPATH/LD_LIBRARY_PATH/RUNPATH/ld.so.cache/default directories).
 * Missing libraries are kept as ld.so's trace mode (ldd) keeps them, so
 * one run reports everything that is missing.
 */
#ifndef LDPROF_RESOLVE_H
#define LDPROF_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "elf/elfobj.h"
#include "ldso/hwcaps.h"
#include "ldso/ldcache.h"
#include "ldso/ldfs.h"
#include "ldso/ldpath.h"
#include "ldso/symmemo.h"

/* The loader's environment, shared by every program of a run. */
struct ldenv {
	struct hwcaps hw;
	struct ldcache cache;
	struct ldfs fs;
	char *library_path; /* as LD_LIBRARY_PATH, or NULL */
	char **preload;	    /* as LD_PRELOAD, then /etc/ld.so.preload */
	const char **preload_from;
	size_t npreload;
	struct elfobj *vdso;	/* this kernel's vDSO, or NULL */
	struct memo_table memo; /* relocation results reused across programs */
	const char *default_interp;
};

struct ldenv_options {
	const char *library_path;
	const char *const *preload; /* each may hold several names, as LD_PRELOAD */
	size_t npreload;
	const char *cache_file;	  /* default /etc/ld.so.cache */
	const char *preload_file; /* default /etc/ld.so.preload */
	bool no_vdso;
};

int ldenv_init(struct ldenv *env, const struct ldenv_options *opt, struct errbuf *err);
void ldenv_free(struct ldenv *env);

enum found_via {
	VIA_MAIN,      /* the program itself */
	VIA_INTERP,    /* ld.so: PT_INTERP, already in memory */
	VIA_VDSO,      /* the kernel's vDSO */
	VIA_PATH,      /* the name has a '/': opened as is */
	VIA_RPATH,     /* DT_RPATH of via_owner (the loader or up its chain) */
	VIA_LIBPATH,   /* LD_LIBRARY_PATH (--library-path) */
	VIA_RUNPATH,   /* DT_RUNPATH of the loader */
	VIA_CACHE,     /* /etc/ld.so.cache */
	VIA_DEFAULT,   /* the default directories */
	VIA_NOT_FOUND, /* missing: ld.so would stop with "cannot open" */
};

/* How a DT_NEEDED (or preload) name was satisfied. */
enum dep_how {
	DEP_LOADED,    /* it loaded the object (see the object's via) */
	DEP_NAME,      /* matched the name an object was loaded under */
	DEP_SONAME,    /* matched an object's DT_SONAME */
	DEP_SAME_FILE, /* found a file already loaded under another name */
	DEP_MISSING,   /* not found */
	DEP_SKIPPED,   /* a token expanded to nothing: ld.so ignores the entry */
};

struct dso_dep {
	char *name; /* after token expansion */
	int obj;    /* index, -1 when skipped */
	enum dep_how how;
	bool filter, auxiliary;
};

struct dso {
	struct elfobj *elf; /* NULL when missing */
	char *name;	    /* the name it was loaded for */
	char *path;	    /* ld.so's l_name: where it was found */
	char **names;	    /* ld.so's l_libname: names that match it */
	size_t nnames, capnames;
	bool soname_added;
	int loader; /* the object whose DT_NEEDED loaded it, -1 */
	enum found_via via;
	const char *via_owner; /* RPATH/RUNPATH: the object it came from */
	char *via_dir;	       /* the directory and hwcaps subdirectory */
	struct tried *tried;   /* every path tried while searching for it */
	size_t ntried, captried;
	bool is_main, is_rtld, is_vdso, is_preload, faked, other_class;
	struct dso_dep *deps; /* DT_NEEDED, DT_FILTER, DT_AUXILIARY in order */
	size_t ndeps, capdeps;
	char *origin; /* $ORIGIN, NULL when unknown */
	struct spath *rpath, *runpath;
	bool rpath_done, runpath_done;
	int scope_pos; /* position in the global scope, or -1 */
};

struct preload_failure {
	char *name, *why;
	const char *from;
};

struct process {
	struct ldenv *env;
	struct dso **obj; /* by creation: main, ld.so, vDSO, then as loaded */
	size_t nobj, capobj;
	int main, rtld, vdso;
	int *order; /* creation order, filtees moved before their filter */
	int *chain; /* ld.so's list of loaded objects, as LD_TRACE_LOADED_OBJECTS prints it */
	size_t nchain;
	int *scope; /* the global scope: main, preloads, then breadth-first */
	size_t nscope;
	int *initorder; /* main's sorted l_initfini; relocation runs it backwards */
	size_t ninit;
	struct dirstate dirs;
	struct spath *libpath, *defaults;
	struct preload_failure *preload_failed;
	size_t npreload_failed, cappf;
	char *fatal; /* why ld.so would stop loading, or NULL */
	bool is_static;
};

/*
 * Simulate loading path. Returns 0, or -errno with err set when path
 * itself cannot be used (not an ELF object, ...). Missing libraries are
 * not errors: they are in the result.
 */
int process_load(struct ldenv *env, const char *path, struct process *p, struct errbuf *err);
/* The same for a program already parsed (the fuzzer's input), whose
   $ORIGIN is origin; elf must outlive p. */
int process_load_elf(struct ldenv *env, const char *name, struct elfobj *elf, const char *origin,
		     struct process *p, struct errbuf *err);
void process_free(struct process *p);

const char *found_via_name(enum found_via v);
const char *dep_how_name(enum dep_how h);

#endif
