/* Internal interfaces of the audit module (see audit.c, ctor.c). */
#ifndef LDPROF_SHIM_H
#define LDPROF_SHIM_H

#include <link.h>
#include <stdint.h>

#include "ldprof-record.h"
#include "shim-sys.h"

/* Append one record; does nothing when recording is off or not ours. */
SHIM_HIDDEN void shim_emit(uint64_t ts, uint16_t type, uint16_t obj, uint32_t u32, uint64_t a,
			   uint64_t b);

/* Set header flags (enum ldprof_shm_flags). */
SHIM_HIDDEN void shim_flag(uint32_t flags);

/*
 * Point an object's constructor and destructor entries in .dynamic at
 * trampoline idx. Returns enum ldprof_obj_flags.
 */
SHIM_HIDDEN unsigned shim_instrument(struct link_map *m, uint32_t idx);

#endif
