#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "launch.h"
#include "target.h"
#include "tsc.h"

void profile_opts_defaults(struct profile_opts *o)
{
	memset(o, 0, sizeof *o);
	run_plan_defaults(&o->plan);
	o->timeout_s = 60;
}

int profile_option(int c, const char *arg, struct profile_opts *o, const char *cmd)
{
	unsigned long v;

	switch (c) {
	case 'n':
		if (parse_ulong(arg, 1, 1000000, &v))
			return usage_error(cmd, "--runs wants a number from 1, not '%s'", arg), -1;
		o->plan.runs = v;
		return 1;
	case 'w':
		if (parse_ulong(arg, 0, 1000000, &v))
			return usage_error(cmd, "--warmup wants a number, not '%s'", arg), -1;
		o->plan.warmup = v;
		return 1;
	case PROF_OPT_MAX_TIME:
		if (parse_seconds(arg, &o->plan.max_seconds))
			return usage_error(cmd, "--max-time wants seconds, not '%s'", arg), -1;
		return 1;
	case PROF_OPT_TIMEOUT:
		if (parse_seconds(arg, &o->timeout_s))
			return usage_error(cmd, "--timeout wants seconds, not '%s'", arg), -1;
		return 1;
	case PROF_OPT_NO_OVERHEAD:
		o->plan.plain = false;
		return 1;
	case PROF_OPT_PRELOAD:
		o->preload = true;
		return 1;
	case PROF_OPT_SHOW_OUTPUT:
		o->show_output = true;
		return 1;
	default:
		return 0;
	}
}

static int run_all(const struct profile_opts *o, struct target *tg, char **argv, struct trace *t)
{
	struct run_plan plan = o->plan;
	struct launch_opts lo = {.path = tg->path, .argv = argv, .show_output = o->show_output,
				 .timeout_s = o->timeout_s, .profiled = !tg->is_static,
				 .preload = o->preload};
	struct launcher l;
	struct errbuf err;
	struct tsc_cal cal;
	bool interrupted = false;
	int r;

	plan.profiled = !tg->is_static;
	if (launcher_init(&l, &lo, &err)) {
		error_msg("%s", err.msg);
		return EXIT_FAIL;
	}
	tsc_cal_begin(&cal);
	r = runner_execute(&l, &plan, t, &interrupted, &err);
	t->tsc_hz = tsc_cal_end(&cal);
	t->interrupted = interrupted;
	launcher_fini(&l);
	if (r) {
		error_msg("%s", err.msg);
		return EXIT_FAIL;
	}
	if (!runner_counted(t, plan.profiled)) {
		error_msg("%s: interrupted before the first run completed", t->program);
		return 130;
	}
	return EXIT_OK;
}

int profile_program(const struct profile_opts *o, int argc, char **argv, struct trace *t)
{
	struct target tg;
	struct errbuf err;
	int r;

	trace_init(t, argc, argv);
	if (tsc_check(&err)) {
		error_msg("%s", err.msg);
		return EXIT_FAIL;
	}
	if (target_resolve(argv[0], &tg, &err)) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	t->program = xstrdup(tg.path);
	t->elf_path = xstrdup(tg.elf_path);
	t->kind = tg.kind;
	t->is_static = tg.is_static;
	r = run_all(o, &tg, argv, t);
	target_free(&tg);
	if (r == EXIT_OK)
		trace_load_facts(t);
	return r;
}
