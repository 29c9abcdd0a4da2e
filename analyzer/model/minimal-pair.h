/*
 * The minimal pair: a main that allocates once, built dynamic and static.
 * The difference of their whole runs is the fixed cost of being dynamic,
 * which every static-link verdict adds whole (40% to 50% of a shell's
 * saving). calibrate measures it once; run and record measure it again
 * right after the program's runs, and compare in the same rounds as its
 * two programs, in the machine's present state (--fixed-runs,
 * model-run.c): the
 * calibration's figure moved 385 to 546 us between calibrations in one
 * morning, and the verdict with it (docs/model.md).
 */
#ifndef LDPROF_MINIMAL_PAIR_H
#define LDPROF_MINIMAL_PAIR_H

#include "base/util.h"
#include "run/profile.h"

struct minimal_pair_cost {
	double us, lo, hi; /* median dynamic - static, and its 95% CI */
	double static_us;  /* the static program's median run */
	size_t runs;	   /* pairs of runs measured */
};

/* $CC, or cc: what builds the calibration's programs. */
const char *calib_cc(void);

/*
 * Run a shell command line composed from our own paths (quoted with
 * sh_quote), inside an interrupt scope (base/interrupt.h); 0, -ECHILD, or
 * -EINTR when a SIGINT ended it or reached ldprof while it ran.
 */
int calib_sh(const char *cmd, struct errbuf *err);

/*
 * Run dir/prog arg (a calibration program that times itself) and read the
 * time it prints, us: 0, or -errno with err set (it failed, or printed no
 * time).
 */
int calib_run_timed(const char *dir, const char *prog, const char *arg, double *us,
		    struct errbuf *err);

/*
 * Write min.c into dir and build min-dynamic and min-static from it. Its
 * main allocates once and frees: a static glibc start initializes malloc
 * itself (its getrandom and brk, strace), a dynamic one at the program's
 * first allocation, so a main that never allocates left that work out of
 * the dynamic side alone, and every verdict of a program that allocates
 * (nearly every one) 60 to 100 us short (docs/model.md, "The first
 * allocation").
 */
int minimal_pair_build(const char *dir, struct errbuf *err);
/* ...and the pair that never allocates, plain-dynamic and plain-static (calibrate's). */
int minimal_pair_build_plain(const char *dir, struct errbuf *err);

/*
 * Run dir's pair interleaved, runs rounds, as o says (its plan's runs,
 * sampling and following overridden). Returns an exit status: 0,
 * EXIT_FAIL or 130 (profile_programs'), messages printed.
 */
int minimal_pair_measure(const struct profile_opts *o, const char *dir, unsigned runs,
			 struct minimal_pair_cost *c);

/*
 * Both pairs interleaved, runs rounds: the allocating one's cost in *c, and
 * what its allocation adds to it beyond the plain pair's in *malloc_us
 * (0 at least). An exit status, as minimal_pair_measure.
 */
int minimal_pairs_measure(const struct profile_opts *o, const char *dir, unsigned runs,
			  struct minimal_pair_cost *c, double *malloc_us);

/* argv[0] and argv[2]: dir's static and dynamic program, each NULL-terminated; free both. */
void minimal_pair_argv(const char *dir, char *argv[4]);

/* The pair's cost from its two traces' plain runs, interleaved (compare_totals). */
void minimal_pair_cost_of(const struct trace *st, const struct trace *dyn,
			  struct minimal_pair_cost *c);

/*
 * Build the pair in a new temporary directory (under $TMPDIR), in the page
 * cache's state of files read from disk; *dir is then that directory.
 * Returns 0 or -errno with err set (-EINTR: interrupted). Until
 * minimal_pair_remove, a signal that ends ldprof between interrupt_begin
 * and interrupt_end removes it (interrupt_on_death).
 */
int minimal_pair_make(char **dir, struct errbuf *err);

/* Remove what minimal_pair_make made, and free dir. */
void minimal_pair_remove(char *dir);

/*
 * The fewest runs of each side, not preempted, from which a pair's
 * difference is taken on a busy machine.
 */
#define CALM_PAIR_MIN 30

/*
 * The difference of t[1]'s and t[0]'s plain runs (two traces of
 * calibration's own programs), its median and CI, into d: on a busy
 * machine (half the runs of either side preempted, sched-state.h) that of
 * the two sides' runs no other task preempted, since the longer side is
 * preempted more often and a preemption adds a busy task's whole turn (3
 * to 7 ms here) to a run of 1 to 3: beside two busy loops the C++
 * fixture's verdict came out 32% under its measured saving, the unwind
 * pair's sort priced on held runs. false when fewer than CALM_PAIR_MIN
 * escaped.
 */
struct interval;
bool calm_pair_difference(const struct trace *t, struct interval *d);
#endif
