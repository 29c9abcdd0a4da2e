/*
 * The relocation cost model's inputs and coefficients. Kept apart from
 * model.h so that the trace can carry them without knowing the analyzer.
 */
#ifndef LDPROF_MODEL_COEFS_H
#define LDPROF_MODEL_COEFS_H

#include <stdbool.h>
#include <stddef.h>

/* Per object counts, from the ELF analyzer's replay of ld.so. */
enum model_feat {
	MF_RELATIVE,	/* R_X86_64_RELATIVE in DT_RELA/DT_REL */
	MF_RELR,	/* relative relocations packed in DT_RELR */
	MF_LOOKUPS,	/* symbol lookups (_dl_lookup_symbol_x calls) at startup */
	MF_PROBES,	/* objects consulted by those lookups */
	MF_BLOOM,	/* probes the GNU Bloom filter ended */
	MF_CHAIN,	/* hash chain entries examined */
	MF_STRCMPS,	/* symbol names compared in full */
	MF_CACHED,	/* relocations the one-entry lookup cache answered */
	MF_TLS,		/* TLS relocations */
	MF_IFUNC,	/* IFUNC resolver calls (IRELATIVE and IFUNC-bound) */
	MF_PAGES,	/* distinct pages relocations write (copy-on-write faults) */
	MF_OBJECTS,	/* 1 per relocated object: its fixed cost (RELRO mprotect...) */
	MF_HASH_BYTES,	/* bytes of the names looked up: ld.so hashes each name */
	MF_CMP_BYTES,	/* bytes the full name comparisons read */
	MF_COLD_LINES,	/* lines of names and tables read first, out of order: cache misses */
	MF_LIBC,	/* 1 for libc: its start-up work no count above captures */
	MF_DEEP_PROBES, /* probes past the first 12 objects of the scope: dearer */
	MF_READ_FAULTS, /* page faults on the files' tables ld.so reads (a mean) */
	MF_PAGES_READ,	/* pages of the files those reads touch first in the process */
	MF_RELRO_PAGES, /* pages the RELRO mprotect flushes past its first (to the 33rd) */
	MF_WARM_LINES,	/* cold lines the last run left in the L2 (back to back, small footprint) */
	MF_VERSION_STEPS, /* the version check's steps: entries walked, file names compared */
	MODEL_NFEAT,
};

/* 2: the name bytes hashed and compared, the cold lines (C++ libraries). */
#define MODEL_VERSION 2

/*
 * Per object, what the analyzer's replay says about changes that would
 * save relocation work: the inputs of the recommendations (verdict.c).
 */
struct advice_facts {
	bool unused;	    /* a direct dependency nothing takes a symbol from */
	bool sysv_only;	    /* only DT_HASH: every lookup passing it walks a chain */
	double self_binds;  /* lookups that resolve into the object itself */
	double now_plt;	    /* PLT slots bound at startup (BIND_NOW) */
	double sysv_passes; /* lookups that probe it and find nothing there */
	double avg_chain;   /* its hash table's mean chain length */
	/* Of its counts, the version check's, which no lookup costs: the
	   lines it reads first and the bytes it compares. */
	double version_lines, version_bytes;
};

struct model_coefs {
	bool valid;
	bool calibrated;     /* false: the defaults shipped with ldprof */
	double intercept_us; /* per process: TLS setup, libc early init, ... */
	double coef_us[MODEL_NFEAT];
	double r2;
	size_t programs; /* calibration programs fitted */
	/* What being dynamic costs a minimal C program (dynamic minus static). */
	double dynamic_fixed_us, dynamic_fixed_lo, dynamic_fixed_hi;
	double static_min_us;	   /* that program's whole run, static */
	double load_per_object_us; /* finding and mapping one more library */
	/* The machine (model/calibrate-machine.c). */
	double fault_us, fault_lo, fault_hi; /* a page-cache fault, fault-around included */
	double fault_rest_us;		     /* the same at rest: the fastest rounds */
	double noise_pct;		     /* the fixed cost's CI half-width, % of it */
	double exit_per_object_us;	     /* the exit path per object (_dl_fini, unmapping) */
	double exit_per_page_us;	     /* ...and per page relocation wrote (freed at exit) */
	double exit_per_kib_us;		     /* ...and per KiB of tables ld.so read (unmapped) */
	/*
	 * Unmapping a page-cache page mapped by a fault (fault-around maps 16),
	 * as exit does for every page a process mapped of its libraries
	 * (calibrate-machine.c times munmap after the fault rounds).
	 */
	double unmap_page_us;
	/*
	 * The shared cache while calibrating (base/cacheprobe.h): the median
	 * reading after an idle spell and hot, ns a line, and the share of the
	 * runs it was contended in; 0: not measured (an older calibration).
	 */
	double line_ns, line_hot_ns, line_contended_pct;
	/*
	 * The median reading after an idle spell over the runs the fit's
	 * figures were made of (the calm ones of a block, or all of them):
	 * the state of the shared cache its cold-line price holds for, which
	 * a run in another state shifts (model_line_state); 0: not recorded.
	 */
	double priced_line_ns;
	/*
	 * The share of the fit's figures (a program's relocate phase in one
	 * block) made of all its runs, contended ones included, because fewer
	 * than three of them were not (model/calibrate.c: block_reloc), %;
	 * above half, the model prices the contended machine, and a report
	 * holds it to its contended runs (model/cache-state.h). NAN: not
	 * recorded (an older calibration or trace, or the built-in defaults).
	 */
	double contended_blocks_pct;
	/*
	 * The share of the calibration's runs the scheduler preempted for
	 * another task (model/sched-state.h), %; 0 in an older calibration.
	 */
	double preempted_pct;
	bool cold_cache; /* calibrate --cold-cache: the CPU caches emptied before each run */
	/*
	 * coef_us[MF_WARM_LINES] was measured (or is the default): a run back
	 * to back that fits in the L2 has its lines priced at it, 0 included;
	 * false in a calibration from before it, or one that could not time it.
	 */
	bool warm_priced;
	double fde_sort_us; /* a static build's first unwind: per n log2 n of n erratic FDEs */
	double fde_floor;   /* erratic FDEs of the runtime every static unwinder carries */
	/* The lowest and highest of the calibration's passes at it; 0: one pass (older). */
	double fde_sort_lo, fde_sort_hi;
	/*
	 * One fork of a dynamic image beyond a static one's (model/calibrate-fork.h):
	 * with libc alone, and per more library; 0 in an older calibration.
	 * A child that binds its first call lazily costs the lazy ones more.
	 */
	double fork_fixed_us, fork_per_object_us;
	double fork_lazy_fixed_us, fork_lazy_per_object_us;
	/*
	 * A process's first lookup through NSS (getpwuid), dynamic beyond static
	 * (model/calibrate-nss.h): its code spread over more pages; the
	 * built-in default in an older calibration, or one that could not time
	 * the pair (a busy machine): then nss_builtin.
	 */
	double nss_us;
	bool nss_builtin;
	/*
	 * A program's first allocation, dynamic beyond static (calibrate's two
	 * minimal pairs, model/minimal-pair.h): a static glibc start makes it
	 * whatever the program does, so the minimal pair allocates, and a
	 * program that never does saves this much less. The built-in default
	 * in an older calibration.
	 */
	double malloc_us;
	/* The verdict's error on validation pairs (tools/validate-verdict); 0: none stored. */
	double verdict_err_pct, verdict_err_us;
	char source[256];  /* the calibration file, or "built-in defaults" */
	char machine[256]; /* where the calibration was measured */
	char created[32];  /* when, ISO 8601 UTC */
	/* Why the calibration file could not be read (model_load), "" when it was or none exists. */
	char load_error[512];
};

const char *model_feat_name(enum model_feat f);

/* Above half its figures of contended runs: a calibration of the contended machine (NAN: no). */
static inline bool model_priced_contended(const struct model_coefs *m)
{
	return m->contended_blocks_pct > 50;
}

#endif
