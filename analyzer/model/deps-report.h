/*
 * One program's deps report: the simulated process, its bindings, and what
 * the renderers need derived from them (unused dependencies, missing
 * symbols with the reason ld.so would not find them).
 */
#ifndef LDPROF_DEPS_REPORT_H
#define LDPROF_DEPS_REPORT_H

#include <stdio.h>

#include "ldso/resolve.h"
#include "ldso/symbind.h"

struct unused_dep {
	int obj, dep;	    /* requester and needed object (process indices) */
	const char *name;   /* the DT_NEEDED entry */
	bool unused_by_all; /* nothing in the process takes a symbol from it */
};

struct missing_symbol {
	int obj;
	const char *name, *version;
	uint32_t relocations; /* relocations naming it */
	bool untraced;	      /* only ld.so's own lookups, not made by ldd */
	char *why;
};

struct deps_report {
	const char *file;
	struct process p;
	struct bindset bs;
	int *pos; /* process index -> position in the load list (p.chain) */
	struct unused_dep *unused;
	size_t nunused;
	struct missing_symbol *missing;
	size_t nmissing;
	size_t missing_libs;
	size_t version_errors; /* non-weak versions not found */
};

struct deps_options {
	bool list, bindings, unused, missing, json, bind_now;
	bool cold_lines; /* count the lookups' cold lines (the cost model's; slower) */
};

int deps_report_build(struct ldenv *env, const char *file, const struct deps_options *opt,
		      struct deps_report *r, struct errbuf *err);
void deps_report_free(struct deps_report *r);
/* Anything that would stop the program from starting. */
bool deps_report_has_missing(const struct deps_report *r);

/* Short display names. */
const char *reloc_type_name(uint32_t type);
const char *dso_role(const struct dso *d);
/* The name ld.so prints for an object (l_name; the program as given). */
const char *dso_display(const struct dso *d);
/* Sum of PT_LOAD memory sizes. */
uint64_t dso_mapped_size(const struct dso *d);

/* Renderers. */
void deps_text_tree(FILE *f, const struct deps_report *r);
void deps_text_list(FILE *f, const struct deps_report *r, bool header);
void deps_text_bindings(FILE *f, const struct deps_report *r);
void deps_text_unused(FILE *f, const struct deps_report *r);
void deps_text_missing(FILE *f, const struct deps_report *r);

struct json;
void deps_json_loader(struct json *j, const struct ldenv *env, const struct deps_options *opt);
void deps_json_file(struct json *j, const struct deps_report *r, const struct deps_options *opt);

#endif
