/* Summaries over runs: the numbers every renderer prints. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ldprof-record.h"
#include "model/analyze.h"
#include "model/samples.h"

char *describe_status(int st)
{
	if (WIFEXITED(st))
		return xasprintf("exit status %d", WEXITSTATUS(st));
	if (WIFSIGNALED(st)) {
		char name[SIGNAL_NAME_MAX];
		return signal_name(WTERMSIG(st), name)
			       ? xasprintf("killed by %s%s", name,
					   WCOREDUMP(st) ? " (core dumped)" : "")
			       : xasprintf("killed by signal %d", WTERMSIG(st));
	}
	return xasprintf("wait status %#x", st);
}

void report_add_note(struct report *rep, char *note)
{
	if (!note)
		return;
	GROW(rep->notes, rep->capnotes, rep->nnotes);
	rep->notes[rep->nnotes++] = note;
}

static void note(struct report *rep, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report_add_note(rep, xvasprintf(fmt, ap));
	va_end(ap);
}

/* Values of one kind of run; NAN entries are dropped. */
struct series {
	double *v;
	size_t n;
};

static void push(struct series *s, double x)
{
	if (!isnan(x))
		s->v[s->n++] = x;
}

static void summarize_series(struct series *s, struct summary *out)
{
	summarize(s->v, s->n, out);
	s->n = 0;
}

static void summarize_totals(const struct trace *t, bool profiled, struct series *s,
			     struct summary *out)
{
	for (size_t i = 0; i < t->nrun; i++)
		if (trace_run_counted(&t->run[i], profiled))
			push(s, trace_run_us(t, &t->run[i]));
	summarize_series(s, out);
}

static void summarize_usage(const struct trace *t, bool profiled, struct series *s,
			    struct report *rep)
{
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < t->nrun; i++) {
			const struct trace_run *r = &t->run[i];
			if (!trace_run_counted(r, profiled))
				continue;
			const double v[4] = {r->usage.utime_us, r->usage.stime_us,
					     (double)r->usage.minflt, (double)r->usage.maxrss_kb};
			push(s, v[k]);
		}
		struct summary *dst[4] = {&rep->utime, &rep->stime, &rep->minflt, &rep->maxrss};
		summarize_series(s, dst[k]);
	}
	struct summary launcher;
	for (size_t i = 0; i < t->nrun; i++)
		if (trace_run_counted(&t->run[i], profiled) && t->run[i].usage.launcher_rss_kb)
			push(s, (double)t->run[i].usage.launcher_rss_kb);
	summarize_series(s, &launcher);
	rep->launcher_rss_kb = launcher.n ? launcher.median : 0;
	rep->maxrss_is_bound = launcher.n && rep->maxrss.median <= launcher.median;
}

/*
 * The shim's page faults: the median over the k-th profiled and k-th plain
 * runs (interleaved, so run side by side) of their difference. Both vary
 * by a fault or two from run to run, by where ld.so's allocations and the
 * kernel's fault-around blocks fall; the difference of their medians would
 * wander by a half-step that the paired one does not.
 */
static double paired_minflt(const struct trace *t, struct series *s)
{
	size_t np = 0, nq = 0;
	long *p = xmalloc((t->nrun + 1) * sizeof *p), *q = xmalloc((t->nrun + 1) * sizeof *q);
	struct summary sm;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (trace_run_counted(r, true))
			p[np++] = r->usage.minflt;
		else if (trace_run_counted(r, false))
			q[nq++] = r->usage.minflt;
	}
	for (size_t k = 0; k < np && k < nq; k++)
		push(s, (double)(p[k] - q[k]));
	summarize_series(s, &sm);
	free(p);
	free(q);
	return sm.median;
}

static void count_outcomes(const struct trace *t, bool profiled, struct report *rep)
{
	rep->outcomes = xcalloc(t->nrun + 1, sizeof *rep->outcomes);
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		size_t k;
		if (!trace_run_counted(r, profiled))
			continue;
		for (k = 0; k < rep->noutcomes; k++)
			if (rep->outcomes[k].wait_status == r->wait_status)
				break;
		if (k == rep->noutcomes)
			rep->outcomes[rep->noutcomes++] = (struct outcome){r->wait_status, 0};
		rep->outcomes[k].runs++;
	}
}

/* The median over the picked runs of the time elapsed at milestone k. */
static double elapsed_median(const struct run_breakdown *bd, const size_t *pick, size_t n, int k,
			     double *buf)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = bd[pick[i]].elapsed_us[k];
	return median_picked(buf, NULL, n, buf);
}

/*
 * Each phase's median contribution: the median time elapsed at its end
 * minus that at its start. Per-phase medians of the durations do not add
 * up (a delay that hits a random phase in each run is in every run's total
 * but in no phase's median); these do, exactly, to the median total of the
 * runs, and a phase that is the same in every run still measures as itself.
 * A milestone no run reached merges its phase into the one before.
 */
void phase_estimates(const struct run_breakdown *bd, const size_t *pick, size_t n, double *buf,
		     double est[PH_COUNT])
{
	double at[PH_COUNT + 1];

	for (int k = 0; k <= PH_COUNT; k++)
		at[k] = elapsed_median(bd, pick, n, k, buf);
	for (int k = 0; k < PH_COUNT; k++) {
		int j = k + 1;
		est[k] = NAN;
		if (isnan(at[k]))
			continue;
		while (j < PH_COUNT && isnan(at[j]))
			j++;
		if (!isnan(at[j]))
			est[k] = at[j] - at[k];
	}
}

#define BOOTSTRAP_ROUNDS 400

/* 95% percentile-bootstrap CIs of the phase estimates, over runs. */
static void phase_cis(const struct run_breakdown *bd, const size_t *valid, size_t n, double *buf,
		      struct report *rep)
{
	double *est = xmalloc(BOOTSTRAP_ROUNDS * PH_COUNT * sizeof *est), col[BOOTSTRAP_ROUNDS];
	size_t *pick = xmalloc(n * sizeof *pick);
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	for (int b = 0; b < BOOTSTRAP_ROUNDS; b++) {
		for (size_t i = 0; i < n; i++)
			pick[i] = valid[bootstrap_rand(&seed) % n];
		phase_estimates(bd, pick, n, buf, &est[b * PH_COUNT]);
	}
	for (int p = 0; p < PH_COUNT; p++) {
		size_t m = 0;
		for (int b = 0; b < BOOTSTRAP_ROUNDS; b++)
			if (!isnan(est[b * PH_COUNT + p]))
				col[m++] = est[b * PH_COUNT + p];
		if (m)
			percentile_ci95(col, m, &rep->phase[p].ci_lo, &rep->phase[p].ci_hi);
	}
	free(pick);
	free(est);
}

static void summarize_phases(struct run_breakdown *bd, size_t nbd, struct series *s,
			     struct report *rep)
{
	size_t *valid = xmalloc((nbd + 1) * sizeof *valid), n = 0;
	double *buf = xmalloc((nbd + 1) * sizeof *buf), est[PH_COUNT];

	for (size_t i = 0; i < nbd; i++)
		if (bd[i].valid)
			valid[n++] = i;
	phase_estimates(bd, valid, n, buf, est);
	for (int p = 0; p < PH_COUNT; p++) {
		/* Spread (min, max, MAD) from the per-run durations. */
		for (size_t i = 0; i < n; i++)
			push(s, bd[valid[i]].phase_us[p]);
		summarize_series(s, &rep->phase[p]);
		rep->phase[p].median = est[p];
		if (isnan(est[p]))
			rep->phase[p].n = 0;
		else
			rep->phase_sum_us += est[p];
	}
	if (n)
		phase_cis(bd, valid, n, buf, rep);
	free(valid);
	free(buf);
}

/* Per object and per phase, over the valid profiled runs. */
static void summarize_breakdowns(const struct trace *t, struct run_breakdown *bd, size_t nbd,
				 struct series *s, struct report *rep)
{
	summarize_phases(bd, nbd, s, rep);
	rep->objs = xcalloc(t->nobj + 1, sizeof *rep->objs);
	for (uint32_t o = 0; o < t->nobj; o++) {
		struct report_object *ro = &rep->objs[rep->nobjs];
		double *cols[4] = {NULL};
		struct summary *dst[4] = {&ro->load, &ro->reloc, &ro->init, &ro->fini};
		ro->obj = o;
		for (int k = 0; k < 4; k++) {
			for (size_t i = 0; i < nbd; i++) {
				cols[0] = bd[i].load_us, cols[1] = bd[i].reloc_us;
				cols[2] = bd[i].init_us, cols[3] = bd[i].fini_us;
				if (bd[i].valid)
					push(s, cols[k][o]);
			}
			summarize_series(s, dst[k]);
		}
		for (size_t i = 0; i < nbd; i++) {
			if (!bd[i].valid)
				continue;
			double parts[4] = {bd[i].load_us[o], bd[i].reloc_us[o], bd[i].init_us[o],
					   bd[i].fini_us[o]},
			       sum = 0;
			bool any = false;
			for (int k = 0; k < 4; k++)
				if (!isnan(parts[k]))
					sum += parts[k], any = true;
			if (any) {
				push(s, sum);
				ro->runs++;
			}
		}
		summarize_series(s, &ro->total);
		for (size_t i = 0; i < nbd; i++)
			if (bd[i].valid) {
				push(s, bd[i].symbind_us[o]);
				ro->symbind_calls = fmax(ro->symbind_calls, bd[i].symbind_calls[o]);
			}
		summarize_series(s, &ro->symbind);
		if (!ro->runs)
			continue;
		ro->share = rep->total.median > 0 ? ro->total.median / rep->total.median : NAN;
		rep->nobjs++;
	}
}

static int first_status(const struct trace *t, bool profiled)
{
	for (size_t i = 0; i < t->nrun; i++)
		if (trace_run_counted(&t->run[i], profiled))
			return t->run[i].wait_status;
	return 0;
}

/* Plain runs succeed, profiled ones fail: not the program's own failure. */
static void note_profiled_failure(const struct trace *t, struct report *rep)
{
	char *prof = describe_status(first_status(t, true));
	char *plain = describe_status(first_status(t, false));

	note(rep,
	     "the profiled runs fail but the plain runs do not (%s under ldprof, %s without "
	     "it): ld.so fails under LD_AUDIT for this program%s%s%s",
	     prof, plain, t->profiled_failure ? "; it said: \"" : "",
	     t->profiled_failure ? t->profiled_failure : "", t->profiled_failure ? "\"" : "");
	free(prof);
	free(plain);
}

static void add_notes(const struct trace *t, struct report *rep)
{
	size_t missing = 0, overflow = 0, untimed = 0, unfinished = 0, corrupt = 0;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		if (!trace_run_counted(r, true))
			continue;
		corrupt += (r->shm_flags & TRACE_SHM_CORRUPT) ||
			   (r->shim_attached && !trace_run_events_ok(t, r));
		missing += !r->shim_attached && !(r->shm_flags & TRACE_SHM_CORRUPT);
		unfinished += r->shim_attached && trace_run_consistent_index(r) == r->nev;
		overflow +=
			(r->shm_flags & (LDPROF_SHM_F_OVERFLOW | LDPROF_SHM_F_STR_OVERFLOW)) != 0;
	}
	for (size_t i = 0; i < t->nobj; i++)
		untimed += t->obj[i].untimed_seen;
	if (rep->is_static)
		note(rep,
		     "%s is a %s: there is no dynamic loader work to attribute; the figures "
		     "are for the whole process",
		     t->program, elf_kind_name(t->kind));
	if (missing)
		note(rep,
		     "shim data missing in %zu of %zu runs: ld.so did not load the audit "
		     "module, or it could not map its buffer",
		     missing, rep->runs);
	if (corrupt)
		note(rep,
		     "%zu %s had corrupt shim data: the program overwrote ldprof's record "
		     "buffer; their records are left out, their wall times kept",
		     corrupt, corrupt == 1 ? "run" : "runs");
	if (trace_fails_only_profiled(t))
		note_profiled_failure(t, rep);
	else if (unfinished)
		note(rep,
		     "ld.so never finished loading in %zu of %zu runs: the program could not "
		     "start (a missing library or symbol? run it directly, or with --show-output)",
		     unfinished, rep->runs);
	if (overflow)
		note(rep, "the record buffer overflowed in %zu runs: later events are missing",
		     overflow);
	if (untimed)
		note(rep,
		     "%zu objects' constructors could not be timed (read-only .dynamic or "
		     "too many objects)",
		     untimed);
	if (rep->interrupted)
		note(rep, "interrupted: the report covers the %zu runs completed", rep->runs);
	if (t->model.load_error[0])
		note(rep, "the calibration could not be read (%s): the built-in defaults stand in",
		     t->model.load_error);
	if (rep->reloc_by_model && t->model.calibrated &&
	    t->model.line_contended_pct > CACHE_BUSY_PCT)
		note(rep,
		     "the calibration ran with the shared cache contended in %.0f%% of its runs: "
		     "its prices for reading ld.so's tables are those of a machine whose other "
		     "tenants stream through the cache; calibrate again when it is calm",
		     t->model.line_contended_pct);
	if (rep->reloc_by_model && t->model.calibrated && t->model.cold_cache != t->cold_cache)
		note(rep,
		     "%s emptied the CPU caches before each run (--cold-cache) and %s did not: "
		     "its prices are for %s, these runs %s",
		     t->cold_cache ? "these runs" : "the calibration",
		     t->cold_cache ? "the calibration" : "these runs",
		     t->cold_cache ? "tables the programs before left partly cached"
				   : "a first start",
		     t->cold_cache ? "a first start" : "found what the run before left cached");
}

/*
 * The overhead's CI: profiled and plain runs alternate, so the i-th of each
 * form a pair that saw the same machine; resampling pairs keeps that.
 */
static void overhead_ci(const struct trace *t, struct report *rep)
{
	size_t np = 0, nq = 0;
	double *p = xmalloc((t->nrun + 1) * sizeof *p), *q = xmalloc((t->nrun + 1) * sizeof *q);
	double *rp = xmalloc((t->nrun + 1) * sizeof *rp), *rq = xmalloc((t->nrun + 1) * sizeof *rq);
	double d[BOOTSTRAP_ROUNDS];
	uint64_t seed = 0x2545f4914f6cdd1dull;

	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		double us = trace_run_us(t, r);
		if (r->warmup)
			continue;
		if (r->profiled)
			p[np++] = us;
		else
			q[nq++] = us;
	}
	size_t n = np < nq ? np : nq;
	for (int b = 0; n && b < BOOTSTRAP_ROUNDS; b++) {
		for (size_t i = 0; i < n; i++) {
			size_t k = bootstrap_rand(&seed) % n;
			rp[i] = p[k];
			rq[i] = q[k];
		}
		d[b] = median_picked(rp, NULL, n, rp) - median_picked(rq, NULL, n, rq);
	}
	if (n)
		percentile_ci95(d, BOOTSTRAP_ROUNDS, &rep->overhead_ci_lo, &rep->overhead_ci_hi);
	free(p);
	free(q);
	free(rp);
	free(rq);
}

static void add_verdict(const struct trace *t, struct report *rep)
{
	char *caveats[VERDICT_NOTES];
	size_t n = verdict_build(t, rep, caveats);

	for (size_t i = 0; i < n; i++)
		report_add_note(rep, caveats[i]);
}

/*
 * The relocate phase the residual is held to: the runs in the shared
 * cache's state the calibration priced (model/cache-state.h). One that
 * priced the contended machine (its blocks with too few calm runs) is held
 * to the contended runs: against the calm ones, ninja came out -33% and
 * apt-cache -23% on a day every calibration run was contended.
 */
static void hold_reloc(const struct trace *t, struct report *rep)
{
	bool contended = model_priced_contended(&t->model);

	rep->reloc_measured_us = cache_state_held_reloc(&rep->cache, contended);
	rep->reloc_measured_runs = isnan(rep->reloc_measured_us) ? RELOC_RUNS_ALL
				   : contended			 ? RELOC_RUNS_CONTENDED
								 : RELOC_RUNS_CALM;
	if (rep->reloc_measured_runs == RELOC_RUNS_ALL)
		rep->reloc_measured_us = rep->phase[PH_RELOCATE].median;
}

void report_build(const struct trace *t, struct report *rep)
{
	struct series s = {xmalloc((t->nrun + 1) * sizeof(double)), 0};
	struct run_breakdown *bd = xcalloc(t->nrun + 1, sizeof *bd);
	size_t nbd = 0;

	memset(rep, 0, sizeof *rep);
	rep->t = t;
	rep->is_static = t->is_static;
	rep->interrupted = t->interrupted;
	for (size_t i = 0; i < t->nrun; i++) {
		const struct trace_run *r = &t->run[i];
		rep->warmup_runs += r->warmup && !r->sampled;
		rep->plain_runs += trace_run_counted(r, false);
		if (!trace_run_counted(r, true))
			continue;
		rep->runs++;
		analyze_run(t, r, &bd[nbd]);
		bd[nbd].run = i;
		rep->valid_runs += bd[nbd].valid;
		if (bd[nbd].valid && bd[nbd].reloc_by_model) {
			rep->reloc_by_model = true;
			rep->reloc_model_us = bd[nbd].reloc_model_us;
		}
		nbd++;
	}
	rep->profiled = rep->runs > 0;
	if (!rep->profiled)
		rep->runs = rep->plain_runs;
	summarize_totals(t, rep->profiled, &s, &rep->total);
	summarize_totals(t, false, &s, &rep->plain_total);
	summarize_usage(t, rep->profiled, &s, rep);
	count_outcomes(t, rep->profiled, rep);
	summarize_breakdowns(t, bd, nbd, &s, rep);
	cache_state_build(t, bd, nbd, t->model.line_hot_ns, &rep->cache);
	sched_state_build(t, rep->profiled, &rep->sched);
	sched_tree_stretch(t, &rep->tree_stretch);
	hold_reloc(t, rep);
	rep->reloc_residual_us =
		rep->reloc_by_model ? rep->reloc_measured_us - rep->reloc_model_us : NAN;
	if (rep->profiled && rep->plain_runs) {
		rep->have_overhead = true;
		rep->overhead_us = rep->total.median - rep->plain_total.median;
		rep->overhead_pct = rep->overhead_us / rep->plain_total.median * 100;
		rep->overhead_minflt = paired_minflt(t, &s);
		overhead_ci(t, rep);
	}
	add_verdict(t, rep);
	add_notes(t, rep);
	/* Kept for the per-run renderers, and for compare and diff to resample. */
	rep->bd = bd;
	rep->nbd = nbd;
	if (t->sampling) {
		rep->samples = xcalloc(1, sizeof *rep->samples);
		samples_build(rep, rep->samples);
	}
	free(s.v);
}

const struct run_breakdown *report_breakdown(const struct report *rep, size_t run)
{
	size_t lo = 0, hi = rep->nbd;

	/* rep->bd is in run order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rep->bd[mid].run < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rep->nbd && rep->bd[lo].run == run ? &rep->bd[lo] : NULL;
}

size_t report_valid_breakdowns(const struct report *rep, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nbd; i++)
		if (rep->bd[i].valid)
			idx[n++] = i;
	return n;
}

void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->nadvice; i++) {
		free(rep->advice[i].what);
		free(rep->advice[i].why);
	}
	free(rep->advice);
	free(rep->objs);
	for (size_t i = 0; i < rep->nbd; i++)
		run_breakdown_free(&rep->bd[i]);
	free(rep->bd);
	free(rep->outcomes);
	for (size_t i = 0; i < rep->nnotes; i++)
		free(rep->notes[i]);
	free(rep->notes);
	if (rep->samples) {
		samples_free(rep->samples);
		free(rep->samples);
	}
	memset(rep, 0, sizeof *rep);
}
