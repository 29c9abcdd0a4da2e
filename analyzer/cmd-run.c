/* ldprof [run]: profile a program's startup over many runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "commands.h"
#include "launch.h"
#include "output.h"
#include "runner.h"
#include "target.h"
#include "tsc.h"

const char usage_run[] =
	"usage: ldprof [run] [OPTIONS] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM many times under ldprof's shim (LD_AUDIT + LD_PRELOAD) and show\n"
	"where its startup went, per phase and per library, with 95% confidence\n"
	"intervals. Plain runs are interleaved to measure the shim's own cost.\n"
	"\n"
	"Options:\n"
	"  -n, --runs N        exactly N counted runs (default: adaptive, at least 20,\n"
	"                      until the median total is known to +-1% or ~3 s pass,\n"
	"                      at most 1000)\n"
	"  -w, --warmup N      N uncounted runs first (default 3)\n"
	"      --max-time SEC  adaptive mode: stop after about SEC seconds (default 3)\n"
	"      --no-overhead   do not interleave plain runs (halves the work)\n"
	"      --preload       see main and exit through an LD_PRELOAD library instead\n"
	"                      of patching GOT slots (costs one more mapped object)\n"
	"      --timeout SEC   kill a run after SEC seconds (default 60)\n"
	"      --show-output   let the program write to the terminal (default: its\n"
	"                      stdout and stderr go to /dev/null; stdin is /dev/null)\n"
	OUT_USAGE
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when a report was printed (whatever the program's own status),\n"
	"1 when the program could not be run, 2 for bad options or a bad PROGRAM.\n";

struct run_opts {
	struct run_plan plan;
	bool show_output, preload;
	struct out_opts out;
	double timeout_s;
};

enum {
	OPT_SHOW_OUTPUT = 256,
	OPT_TIMEOUT,
	OPT_MAX_TIME,
	OPT_NO_OVERHEAD,
	OPT_PRELOAD,
};

static const struct option long_opts[] = {
	{"runs", required_argument, NULL, 'n'},
	{"warmup", required_argument, NULL, 'w'},
	{"max-time", required_argument, NULL, OPT_MAX_TIME},
	{"no-overhead", no_argument, NULL, OPT_NO_OVERHEAD},
	{"preload", no_argument, NULL, OPT_PRELOAD},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"show-output", no_argument, NULL, OPT_SHOW_OUTPUT},
	{"help", no_argument, NULL, 'h'},
	OUT_LONG_OPTIONS,
	{NULL, 0, NULL, 0},
};

/* Returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct run_opts *o)
{
	unsigned long v;
	int c;

	run_plan_defaults(&o->plan);
	o->timeout_s = 60;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+n:w:o:h", long_opts, NULL)) != -1) {
		int handled = out_option(c, optarg, &o->out, "run");
		if (handled < 0)
			return EXIT_USAGE;
		if (handled)
			continue;
		switch (c) {
		case 'n':
			if (parse_ulong(optarg, 1, 1000000, &v))
				return usage_error("run", "--runs wants a number from 1, not '%s'",
						   optarg);
			o->plan.runs = v;
			break;
		case 'w':
			if (parse_ulong(optarg, 0, 1000000, &v))
				return usage_error("run", "--warmup wants a number, not '%s'", optarg);
			o->plan.warmup = v;
			break;
		case OPT_MAX_TIME:
			if (parse_seconds(optarg, &o->plan.max_seconds))
				return usage_error("run", "--max-time wants seconds, not '%s'", optarg);
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(optarg, &o->timeout_s))
				return usage_error("run", "--timeout wants seconds, not '%s'", optarg);
			break;
		case OPT_NO_OVERHEAD:
			o->plan.plain = false;
			break;
		case OPT_PRELOAD:
			o->preload = true;
			break;
		case OPT_SHOW_OUTPUT:
			o->show_output = true;
			break;
		case 'h':
			return print_usage(find_command("run"), stdout);
		case ':':
			return usage_error("run", "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("run", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("run", "no program given");
	return -1;
}

static int profile(struct run_opts *o, int argc, char **argv, struct trace *t)
{
	struct target tg;
	struct launcher l;
	struct errbuf err;
	struct tsc_cal cal;
	bool interrupted = false;
	int r;

	if (tsc_check(&err)) {
		error_msg("%s", err.msg);
		return EXIT_FAIL;
	}
	if (target_resolve(argv[0], &tg, &err)) {
		error_msg("%s", err.msg);
		return EXIT_USAGE;
	}
	trace_init(t, argc, argv);
	t->program = xstrdup(tg.path);
	t->elf_path = xstrdup(tg.elf_path);
	t->kind = tg.kind;
	t->is_static = tg.is_static;
	o->plan.profiled = !tg.is_static;
	struct launch_opts lo = {.path = tg.path, .argv = argv, .show_output = o->show_output,
				 .timeout_s = o->timeout_s, .profiled = !tg.is_static,
				 .preload = o->preload};
	r = launcher_init(&l, &lo, &err);
	target_free(&tg);
	if (r) {
		error_msg("%s", err.msg);
		return EXIT_FAIL;
	}
	tsc_cal_begin(&cal);
	r = runner_execute(&l, &o->plan, t, &interrupted, &err);
	t->tsc_hz = tsc_cal_end(&cal);
	t->interrupted = interrupted;
	launcher_fini(&l);
	if (r) {
		error_msg("%s", err.msg);
		return EXIT_FAIL;
	}
	if (!runner_counted(t, o->plan.profiled)) {
		error_msg("%s: interrupted before the first run completed", t->program);
		return 130;
	}
	return EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = {0};
	struct trace t = {0};
	struct report rep;
	struct errbuf err;
	int r = parse(argc, argv, &o);

	if (r >= 0)
		return r;
	r = profile(&o, argc - optind, argv + optind, &t);
	if (r == EXIT_OK) {
		trace_load_facts(&t);
		report_build(&t, &rep);
		if (out_write(&o.out, &rep, &err)) {
			error_msg("%s", err.msg);
			r = EXIT_FAIL;
		}
		report_free(&rep);
	}
	trace_free(&t);
	return r;
}
