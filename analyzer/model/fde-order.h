/*
 * The frame descriptions (FDEs) of an object's .eh_frame in file order,
 * and how many of them libgcc's unwinder finds out of order when a static
 * build registers them (crtbeginT.o) and sorts them at its first unwind:
 * its fde_split keeps the longest run it can of FDEs in increasing address
 * order and heap-sorts the rest (the erratic ones). Cold partitions
 * (.text.unlikely, laid out before .text) and .text.startup make most of
 * a real library's FDEs erratic: libstdc++ 4352 of 4867, libz none.
 */
#ifndef LDPROF_FDE_ORDER_H
#define LDPROF_FDE_ORDER_H

#include <stdint.h>

#include "elf/elfobj.h"

/*
 * A link lays every input's .text.unlikely out before all of .text, in
 * input order, as .eh_frame lists their FDEs: each cold FDE takes every
 * .text FDE before it off the chain, and the cold ones stay on it. The
 * chain as the last FDE to take others off leaves it holds those: an
 * object's cold FDEs, which a static link of its inputs keeps on the
 * chain while its .text ones go erratic (static-cxx: its 96 FDEs left on
 * the chain are the 96 of its .text.unlikely, by the link map).
 */
struct fde_order {
	uint32_t fdes;	  /* FDEs in .eh_frame */
	uint32_t erratic; /* of those, the ones the sort's split leaves out of order */
	uint32_t cold;	  /* on the chain as the last FDE to take others off leaves it */
};

/* Zero counts for an object without a readable .eh_frame. */
void fde_order(const struct elfobj *e, struct fde_order *out);

#endif
