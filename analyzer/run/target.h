/*
 * The program to profile: found on PATH like execvp, checked before the
 * first run so that bad input gets one clear message, never a half-run.
 */
#ifndef LDPROF_TARGET_H
#define LDPROF_TARGET_H

#include <stdbool.h>

#include "elf/elfobj.h"
#include "base/util.h"

struct target {
	char *path;	/* the file to execute */
	char *elf_path; /* the ELF that runs: path, or a script's interpreter */
	enum elf_kind kind;
	bool is_static;
};

/* 0, or -errno with err set to "NAME: WHY". */
int target_resolve(const char *name, struct target *t, struct errbuf *err);
void target_free(struct target *t);

#endif
