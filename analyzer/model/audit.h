/*
 * `ldprof audit`: the loader's cost across a whole system, from the files
 * alone (the analyzer's replay and the calibrated model), optionally
 * measured.
 */
#ifndef LDPROF_AUDIT_H
#define LDPROF_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "trace/model-coefs.h"
#include "base/util.h"

enum audit_kind { AK_DYNAMIC, AK_STATIC, AK_ERROR };

struct audit_entry {
	char *path;
	enum audit_kind kind;
	char *error;	    /* AK_ERROR: why it could not be analyzed */
	char *elf_kind;	    /* "dynamic PIE", "shared object", ... */
	unsigned libs;	    /* libraries loaded (not the program, ld.so, vDSO) */
	unsigned missing;   /* libraries not found */
	double relocations; /* all objects */
	double lookups;	    /* symbol lookups at startup */
	double pages;	    /* pages relocations write */
	double cost_us;	    /* modelled loader cost per exec */
	double share;	    /* of a typical start: cost / (static start + cost) */
	char *unused;	    /* unused direct dependencies, space separated, or NULL */
	char *advice;	    /* the top recommendation, or NULL */
	double advice_us;
	double measured_us;	   /* --measure: median total, NAN otherwise */
	double measured_loader_us; /* --measure: exec+load+relocate phases */
	char **lib_paths;	   /* the libraries, for the summary */
	double *lib_us;		   /* each one's cost in this program */
};

struct audit_lib {
	char *path;
	unsigned users;	 /* programs loading it */
	double total_us; /* summed over them */
};

struct audit {
	struct audit_entry *e;
	size_t n, cap;
	size_t files_seen; /* regular files looked at */
	struct audit_lib *lib;
	size_t nlib, caplib;
	bool interrupted;
	struct model_coefs model;
};

struct audit_opts {
	char **paths;
	size_t npaths;
	bool follow;   /* -L: follow symbolic links */
	unsigned jobs; /* -j */
	bool measure;
	char *args;	  /* --args for --measure */
	unsigned runs;	  /* --measure: runs per program */
	double timeout_s; /* --measure: per run */
	bool progress;	  /* a progress bar on stderr */
};

int audit_run(const struct audit_opts *o, struct audit *a, struct errbuf *err);
void audit_free(struct audit *a);

/* audit-sum.c: rank the entries (worst first) and total the libraries. */
void audit_summarize(struct audit *a);
/* --measure: run one dynamic program under `run` and keep its figures. */
void audit_measure(const struct audit_opts *o, struct audit_entry *e);

#endif
