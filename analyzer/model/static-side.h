/*
 * A static build's own start, predicted from the dynamic program's replay:
 * the IFUNC resolvers its IRELATIVE relocations would call beyond the
 * minimal static program's, and the library code it would carry. The
 * verdict (verdict.c) prices them with the calibration.
 */
#ifndef LDPROF_STATIC_SIDE_H
#define LDPROF_STATIC_SIDE_H

#include "model/deps-report.h"
#include "trace/model-coefs.h"
#include "trace/static-facts.h"

/* From a replay (model_features calls it). */
void static_side_facts(const struct deps_report *r, struct static_facts *sf);

/*
 * What the static build's start costs beyond the minimal static program's,
 * in microseconds, at fault_us per page fault: each IFUNC resolver libc
 * never calls on its own lies in code the minimal start does not touch,
 * so it costs an instruction-fetch fault as well as its call.
 */
double static_side_us(const struct model_coefs *m, const struct static_facts *sf,
		      double fault_us);

#endif
