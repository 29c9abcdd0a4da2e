/*
 * What the analyzer's replay says about a static build of a dynamic
 * program (model/static-side.c): the IFUNC resolvers its own start would
 * call that the minimal static program's does not, and the frame
 * descriptions (FDEs) its first unwind would sort. Kept apart from the
 * model so that the trace can carry it without knowing the analyzer.
 */
#ifndef LDPROF_STATIC_FACTS_H
#define LDPROF_STATIC_FACTS_H

#include <stdbool.h>
#include <stdint.h>

struct static_facts {
	bool known;		/* the replay gave them */
	uint32_t ifunc_bound;	/* distinct IFUNCs of libc the program binds (lazy ones too) */
	uint32_t ifunc_extra;	/* of those, the ones libc itself never resolves */
	uint32_t nss_calls;	/* distinct NSS functions of libc it binds (getpwuid, ...) */
	char nss_example[32];	/* one of them, for the note */
	char spawn_example[16]; /* a libc function it binds that forks (fork, system), or "" */
	/*
	 * It binds fork through a lazy PLT slot (no BIND_NOW, no LD_BIND_NOW):
	 * a child looks its first calls (execvp, _exit, ...) up itself, through
	 * the libraries whose tables fork left unmapped in it. Also carried by
	 * a trace file, beside the fork counts.
	 */
	bool fork_lazy;
	/*
	 * A static build registers its whole .eh_frame (crtbeginT.o), and its
	 * first unwind (a C++ throw, backtrace) sorts every FDE in it; a
	 * dynamic one binary-searches each object's .eh_frame_hdr instead.
	 */
	uint32_t fdes;		    /* FDEs of the executable and its libraries (not ld.so's) */
	uint32_t fdes_erratic;	    /* of those, the ones out of order: the sort's work */
	uint32_t fdes_erratic_own;  /* ...in objects other than the C and C++ runtime */
	bool have_kept;		    /* the replay of a static link's archive resolution ran: */
	uint32_t fdes_runtime_kept; /* the runtime archives' FDEs it pulls in */
	uint32_t fdes_erratic_kept; /* the erratic FDEs it keeps in all, estimated */
	bool have_unwinder;	    /* a library defines _Unwind_Find_FDE (libgcc_s)... */
	uint32_t unwinder;	    /* ...this trace object: its lazy binds say it unwound */
};

#endif
