/*
 * The smallest audit module: it only answers la_version. The benchmark
 * compares ldprof's shim with it to separate what auditing itself costs
 * from what ldprof adds.
 */
#include <link.h>

unsigned int la_version(unsigned int version);
__attribute__((visibility("default"))) unsigned int la_version(unsigned int version)
{
	return version;
}
