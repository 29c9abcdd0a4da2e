/*
 * Which members of the C and C++ runtime's static archives (libc.a,
 * libm.a, libstdc++.a, libgcc.a, libgcc_eh.a), and of the program's other
 * libraries' when installed (libgcrypt.a, ...), a static link of a program
 * would pull in, from the symbols the program's other objects leave
 * undefined, as ld resolves an archive group: a member for each symbol
 * one defines, then the symbols that member leaves undefined, until none
 * is left; a COMDAT group (an inline function, a template's instance) that
 * an earlier member brought in is dropped from a later one, FDEs and all. For the FDEs its first
 * unwind sorts (static-side.c): the C++ fixture's static build has 3237 FDEs, its own code 1511,
 * and this replay finds 1730 in the runtime's members.
 */
#ifndef LDPROF_STATIC_ARCHIVES_H
#define LDPROF_STATIC_ARCHIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Is path an archive with a symbol index, as a link would use it? */
bool static_archive_usable(const char *path);

/*
 * A shared library's static archive, as -lNAME finds it: "libNAME.a"
 * (NAME from soname) beside the shared object at path, or in the
 * toolchain's directories (its -dev package); allocated, or NULL when
 * there is none a link would use.
 */
char *library_archive_path(const char *path, const char *soname);

/*
 * The FDEs in .eh_frame of the members pulled in by names[0..n) and the
 * C start (__libc_start_main), from the archives libs[0..nlibs) (the
 * program's other libraries whose archives are installed, in link order)
 * and then the runtime's. 0, or -ENOENT when this machine has no libc.a
 * (libc6-dev): the caller then knows only bounds.
 */
int static_archive_fdes(const char *const *libs, size_t nlibs, const char *const *names, size_t n,
			uint64_t *fdes);

/*
 * The same replay over the archives paths[0..npaths) alone, as one group,
 * from names[0..n), or from every name their indexes define when names is
 * NULL. -ENOENT when none of them is an archive with a symbol index.
 */
int archive_group_fdes(const char *const *paths, size_t npaths, const char *const *names, size_t n,
		       uint64_t *fdes);

#endif
