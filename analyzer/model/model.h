/*
 * The relocation cost model: a library's relocation time as a linear
 * function of what ld.so does for it (relative relocations, symbol lookups
 * and their work, TLS, IFUNC calls, pages written), with coefficients
 * calibrated on this machine (`ldprof calibrate`) or shipped defaults.
 */
#ifndef LDPROF_MODEL_H
#define LDPROF_MODEL_H

#include "trace/model-coefs.h"
#include "trace/trace.h"
#include "base/util.h"

/*
 * Replay ld.so on t's program with the ELF analyzer and attach each
 * object's counts (trace_object.feat). Objects the analyzer does not see
 * keep have_feat false. Returns 0 or -errno with err set.
 */
int model_features(struct trace *t, struct errbuf *err);

/* The bytes t's relocation reads and writes, from its objects' counts. */
double model_reloc_footprint(const struct trace *t);

/*
 * When t's runs were back to back (not --cold-cache), the share of its
 * relocation's footprint that the L2 (l2 bytes) has room for after the
 * between bytes the rounds' other programs move, and what the rest of its
 * own run moves (model_own_faults, else model_own_work_us), is priced as the run before left it
 * cached, and no more than another tenant leaves of them in the time
 * between two of its execs (model/line-decay.h): that share of its cold
 * lines become warm ones (MF_WARM_LINES).
 * Only with a calibration that priced warm lines.
 */
void model_warm_lines(struct trace *t, double between, size_t l2);
/*
 * A cold line's price in the runs' state of the shared cache: the
 * calibration's, plus what the cache probe's chase read a line slower (or
 * faster) over the runs the residual is held to than over the runs the
 * calibration's fit was made of (priced_line_ns); no lower than a warm
 * line's. The calibration's price is kept in t->cold_line_cal_us. Not with
 * --cold-cache (every line then comes from memory), nor without both
 * readings.
 */
void model_line_state(struct trace *t);
/*
 * The process's CPU time outside its start, median of its counted profiled
 * runs: the shim's CPU record at main's end (LDPROF_REC_CPU) less the exec,
 * load and relocate phases, plus the exit phase. Its children's time is
 * not in it (getrusage of the process itself). NAN without CPU records.
 */
double model_own_work_us(const struct trace *t);
/*
 * The process's minor page faults between the start's end and main's, the
 * median of its counted profiled runs: the memory its constructors and main
 * touch first, what the model counts as the traffic of its run (the two
 * LDPROF_REC_CPU records' b). NAN without both records.
 */
double model_own_faults(const struct trace *t);
/* The share of t's lookups' lines priced warm (0 to 1). */
double model_warm_share(const struct trace *t);

struct profile_opts;
struct profile_cmd;
/*
 * profile_program(s) (run/profile.h), then what a report needs besides the
 * runs and the ELF facts (model-run.c): the cost model's coefficients and
 * each object's counts (model_features; a warning when the analyzer cannot
 * replay the program), for each dynamic program.
 */
int model_profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t);
int model_profile_programs(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
			   struct trace *traces, bool for_compare);

/* The counts of every object ld.so would load for path, summed. */
int model_process_features(const char *path, double feat[MODEL_NFEAT], struct errbuf *err);

struct deps_report;
/*
 * From an analyzer replay: each object's counts (feat, MODEL_NFEAT per
 * object, in process order) and the recommendations' inputs (af).
 */
void model_replay_facts(const struct deps_report *r, double *feat, struct advice_facts *af);

/* One object's modelled relocation time, in microseconds. */
double model_object_us(const struct model_coefs *m, const double feat[MODEL_NFEAT]);

/* What each change the analyzer can see would save in one object, in model microseconds. */
struct model_savings {
	double lazy;	  /* bind its PLT slots lazily instead of at startup */
	double relr;	  /* pack its relative relocations (DT_RELR) */
	double gnu_hash;  /* add DT_GNU_HASH to an object with only DT_HASH */
	double self_bind; /* bind its internal references at link time */
};
void model_object_savings(const struct model_coefs *m, const double feat[MODEL_NFEAT],
			  const struct advice_facts *af, bool is_executable,
			  struct model_savings *s);

/* The calibration: $LDPROF_CALIBRATION, else $XDG_CACHE_HOME/ldprof/, else defaults. */
void model_load(struct model_coefs *m);
int model_save(const struct model_coefs *m, const char *path, struct errbuf *err);
int model_read(const char *path, struct model_coefs *m, struct errbuf *err);
/* Where model_load looks and calibrate writes. */
char *model_default_path(void);
void model_defaults(struct model_coefs *m);

#endif
