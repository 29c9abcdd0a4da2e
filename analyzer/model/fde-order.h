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

struct fde_order {
	uint32_t fdes;	  /* FDEs in .eh_frame */
	uint32_t erratic; /* of those, the ones the sort's split leaves out of order */
};

/* Zero counts for an object without a readable .eh_frame. */
void fde_order(const struct elfobj *e, struct fde_order *out);

#endif
