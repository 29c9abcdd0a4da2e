/*
 * What a trace file keeps besides the runs: the machine it was recorded on,
 * the environment that changes ld.so's work, and each object's identity
 * (build-id, size, mtime), so that report can tell when the files on disk
 * are no longer the ones that ran.
 */
#ifndef LDPROF_MACHINE_H
#define LDPROF_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/trace.h"
#include "base/util.h"

/* The value of /proc/cpuinfo's first "model name" line (allocated), or NULL. */
char *cpu_model(void);

/* Fill t's machine, env, cwd, recorded_at and ldprof_version from here and now. */
void trace_record_context(struct trace *t, char **environ_);

/* Whether a variable changes what ld.so does: LD_*, GLIBC_TUNABLES. */
bool env_matters(const char *name_value);

/* The build-id of an ELF file in lower-case hex: 0, -ENOENT if it has none, or -errno. */
int elf_build_id(const char *path, char **hex, struct errbuf *err);

/* Record every object's build-id, size and mtime (not the vDSO's). */
void trace_record_identities(struct trace *t);

/* The path of object o as a file on this machine (relative ones against t->cwd). */
char *object_file_path(const struct trace *t, const struct trace_object *o);

/*
 * Objects whose file exists here but is not the one recorded: a different
 * build-id, or without one a different size or mtime. Returns how many, with
 * a sentence naming them in *note (allocated; NULL when none).
 */
size_t trace_changed_objects(const struct trace *t, char **note);

/* A sentence when t was recorded on another machine than this one, else NULL. */
char *trace_other_machine_note(const struct trace *t);

#endif
