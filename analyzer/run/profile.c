#include "run/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/exit.h"
#include "run/launch.h"
#include "run/target.h"
#include "base/tsc.h"

void profile_opts_defaults(struct profile_opts *o)
{
	memset(o, 0, sizeof *o);
	run_plan_defaults(&o->plan);
	o->timeout_s = 60;
}

/*
 * run, record and compare: the verdict's fixed cost measured after the
 * runs when calibrated. Not the library default: calibrate and audit
 * profile programs for other ends, and must not build and run the pair.
 */
void profile_opts_defaults_verdict(struct profile_opts *o)
{
	profile_opts_defaults(o);
	o->fixed_runs = PROFILE_FIXED_AUTO;
	o->fork_census = true;
}

void profile_opts_timed_only(const struct profile_opts *o, unsigned runs, struct profile_opts *out)
{
	*out = *o;
	out->plan.runs = runs;
	out->fixed_runs = 0;
	out->fork_census = false;
	out->sample = false;
	out->follow = false;
	out->show_output = false;
}

/* Resolve every side's program before running anything. */
static int resolve_all(size_t n, const struct profile_cmd *cmds, struct target *tg,
		       struct trace *traces)
{
	struct errbuf err;

	for (size_t i = 0; i < n; i++) {
		trace_init(&traces[i], cmds[i].argc, cmds[i].argv);
		if (target_resolve(cmds[i].argv[0], &tg[i], &err)) {
			error_msg("%s", err.msg);
			return EXIT_USAGE;
		}
		traces[i].program = xstrdup(tg[i].path);
		traces[i].elf_path = xstrdup(tg[i].elf_path);
		traces[i].kind = tg[i].kind;
		traces[i].is_static = tg[i].is_static;
	}
	return EXIT_OK;
}

/* LDPROF_FOLLOW_BUFFER_KB: a smaller -f record buffer (tests of a full one); 0 = default. */
static size_t follow_buffer_bytes(void)
{
	const char *kb = getenv("LDPROF_FOLLOW_BUFFER_KB");

	return kb && *kb ? (size_t)strtoul(kb, NULL, 10) * 1024 : 0;
}

/* --sample: a sampled run per two timed rounds, so half as many as timed ones. */
#define SAMPLE_EVERY 2u

static uint64_t sample_period_ns(const struct profile_opts *o)
{
	return o->sample_period_us ? (uint64_t)o->sample_period_us * 1000u
				   : SAMPLE_PERIOD_NS_DEFAULT;
}

static int run_sides(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
		     struct target *tg, struct trace *traces, bool for_compare)
{
	struct run_plan plan = o->plan;
	struct cache_evictor evictor = {.sock = -1};
	struct launcher *l = xcalloc(n, sizeof *l);
	struct runner_side *sides = xcalloc(n, sizeof *sides);
	struct errbuf err;
	struct tsc_cal cal;
	bool interrupted = false;
	size_t ready = 0;
	int r = EXIT_OK;

	run_plan_resolve(&plan, o->follow);
	plan.sample_every = o->sample ? SAMPLE_EVERY : 0;
	if (for_compare)
		plan.plain = plan.adapt_on_plain = true;
	/*
	 * Before the launchers: with -f a launcher makes ldprof its programs'
	 * subreaper and waits until it has no child left, which the helper,
	 * started first and handed to init, never is.
	 */
	if (plan.cold_cache) {
		if (cache_evictor_start(&evictor, cache_evict_bytes(), &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
			goto out;
		}
		plan.evictor = &evictor;
	}
	for (; ready < n; ready++) {
		struct launch_opts lo = {.path = tg[ready].path,
					 .argv = cmds[ready].argv,
					 .show_output = o->show_output,
					 .timeout_s = o->timeout_s,
					 /* -f: a static top's children may be dynamic */
					 .profiled = !tg[ready].is_static || o->follow,
					 .preload = o->preload,
					 .symbind = o->symbind,
					 .follow = o->follow,
					 .reap_tree = !o->follow,
					 .follow_bytes = follow_buffer_bytes(),
					 .sample = o->sample && !tg[ready].is_static,
					 .sample_period_ns = sample_period_ns(o)};
		if (launcher_init(&l[ready], &lo, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
			goto out;
		}
		sides[ready] = (struct runner_side){&l[ready], &traces[ready],
						    !tg[ready].is_static || o->follow};
		traces[ready].follow = o->follow;
		if (o->sample)
			traces[ready].sampling = sampling_new(sample_period_ns(o));
	}
	tsc_cal_begin(&cal);
	if (runner_execute_multi(sides, n, &plan, &interrupted, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	}
	if (evictor.lost)
		error_msg("--cold-cache: %s: the runs stopped there, and the report covers those "
			  "made before",
			  evictor.why.msg);
	double hz = tsc_cal_end(&cal);
	for (size_t i = 0; i < n; i++) {
		traces[i].tsc_hz = hz;
		traces[i].interrupted = interrupted;
		if (traces[i].sampling && traces[i].sampling->refused)
			error_msg("sampling: %s", traces[i].sampling->refused);
		if (!r && !runner_counted(&traces[i], sides[i].profiled && !for_compare)) {
			error_msg("%s: interrupted before the first run completed",
				  traces[i].program);
			r = 130;
		}
	}
out:
	for (size_t i = 0; i < ready; i++)
		launcher_fini(&l[i]);
	cache_evictor_stop(&evictor);
	free(l);
	free(sides);
	return r;
}

int profile_programs(const struct profile_opts *o, size_t n, const struct profile_cmd *cmds,
		     struct trace *traces, bool for_compare)
{
	struct target *tg = xcalloc(n, sizeof *tg);
	struct errbuf err;
	int r;

	if (tsc_check(&err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
		goto out;
	}
	if ((r = resolve_all(n, cmds, tg, traces)) == EXIT_OK &&
	    (r = run_sides(o, n, cmds, tg, traces, for_compare)) == EXIT_OK)
		for (size_t i = 0; i < n; i++) {
			trace_load_facts(&traces[i]);
			trace_count_lazy(&traces[i]);
		}
out:
	for (size_t i = 0; i < n; i++)
		target_free(&tg[i]);
	free(tg);
	return r;
}

int profile_sample_status(const struct profile_opts *o, const struct trace *t, int r)
{
	if (r == EXIT_OK && o->sample_required && t->sampling && t->sampling->refused)
		return EXIT_FAIL;
	return r;
}

int profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t)
{
	struct profile_cmd c = {argc, argv};

	return profile_programs(o, 1, &c, t, false);
}
