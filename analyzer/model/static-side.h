/*
 * A static build's own start, predicted from the dynamic program's replay:
 * the IFUNC resolvers its IRELATIVE relocations would call beyond the
 * minimal static program's, and the FDEs its first unwind would sort. The
 * verdict (verdict.c) prices them with the calibration.
 */
#ifndef LDPROF_STATIC_SIDE_H
#define LDPROF_STATIC_SIDE_H

#include "model/deps-report.h"
#include "trace/model-coefs.h"
#include "trace/static-facts.h"

/*
 * From a replay (model_features calls it). *unwinder: the replay's object
 * that defines _Unwind_Find_FDE, or -1; the caller names its trace object.
 */
void static_side_facts(const struct deps_report *r, struct static_facts *sf, int *unwinder);

/*
 * What the static build's start costs beyond the minimal static program's,
 * in microseconds: a call of each IFUNC resolver libc never calls on its
 * own. Not a page fault each: a static program with 28 more IRELATIVE
 * relocations than the minimal one started -4.9 us [-13.1, +5.1] slower
 * (2000 interleaved runs), one with 420 KiB more code and 250 KiB more
 * data +5.9 us [-0.3, +12.9]: the resolvers lie together, and code never
 * run costs nothing.
 */
double static_side_us(const struct model_coefs *m, const struct static_facts *sf);

/*
 * What a static build's first unwind (a C++ throw, backtrace()) costs, in
 * microseconds: crtbeginT.o registers the whole .eh_frame with libgcc's
 * unwinder, which at the first unwind sorts the FDEs in it (a heap sort
 * of those out of order, model/fde-order.h: n log n comparisons, each
 * decoding two addresses), where a dynamic build binary-searches each
 * object's .eh_frame_hdr. How many a static link keeps lies between
 * bounds: at most all the objects' erratic FDEs, at least those outside
 * the C and C++ runtime and the runtime's floor (what the calibration's
 * static program carries beyond its own). The estimate replays the
 * static link's resolution in the runtime's archives (static-archives.h)
 * and is known to +-25%; without the archives it is the cost of the
 * bounds' geometric mean (the runtime's share kept ranges over a factor of
 * three: a small C++ program keeps 22% of it, dar 69%) and only the
 * bounds bound it. *lo, *hi: the interval. The caller knows whether the
 * program unwinds at all.
 */
double static_unwind_us(const struct model_coefs *m, const struct static_facts *sf, double *lo,
			double *hi);

/* The erratic FDEs that estimate counts, and its bounds. */
uint32_t static_unwind_fdes(const struct model_coefs *m, const struct static_facts *sf,
			    uint32_t *fewest, uint32_t *most);

/*
 * Did the dynamic program unwind in its runs? Its unwinder library
 * (libgcc_s) bound slots after startup; false when it binds at startup.
 */
struct trace;
bool static_side_unwound(const struct trace *t);

/* That sort for this many erratic FDEs: fde_sort_us per n log2 n. */
double fde_sort_cost(const struct model_coefs *m, uint32_t erratic);

#endif
