/* Limits shared by the shim's C and assembly sources. */
#ifndef LDPROF_SHIM_LIMITS_H
#define LDPROF_SHIM_LIMITS_H

/*
 * Objects whose constructors and destructors can be timed: one init and one
 * fini trampoline each, 16 bytes apiece. Programs with more objects than this
 * at startup are rare; the extra ones are recorded but not timed.
 */
#define LDPROF_MAX_OBJS	 256
#define LDPROF_STUB_SIZE 16

#endif
