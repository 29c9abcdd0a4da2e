/* ldprof audit: the loader's cost across a system, ranked. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/audit.h"
#include "cmd/commands.h"
#include "render/output.h"

const char usage_audit[] =
	"usage: ldprof audit [OPTIONS] PATH...\n"
	"\n"
	"Walk PATHs (recursively, not following symbolic links) for ELF executables and\n"
	"shared objects, replay ld.so on each dynamic one from the files, and rank them\n"
	"by their modelled loader cost per exec (the calibrated cost model, see\n"
	"docs/model.md): libraries loaded, relocations, lookups, pages written, unused\n"
	"direct dependencies, missing libraries and the top recommendation; then the\n"
	"libraries that cost the most across the set. Unreadable files, broken links\n"
	"and malformed ELF are listed as errors. Nothing is run unless --measure.\n"
	"\n"
	"Options:\n"
	"  -j, --jobs N        analyse with N worker processes (default 1)\n"
	"  -L, --follow        follow symbolic links\n"
	"      --top N         rows in the text table (default 40; 0 for all)\n"
	"      --measure       also run each dynamic program under `run` (opt-in:\n"
	"                      it runs arbitrary programs) and show what it measured\n"
	"      --args ARGS     arguments for --measure (default none), split like sh\n"
	"      --runs N        --measure: runs per program (default 5)\n"
	"      --timeout SEC   --measure: per run (default 5)\n"
	"      --format FMT    text (default), json (ldprof-audit/1) or csv\n"
	"      --json          the same as --format json\n"
	"  -o, --output FILE   write there (atomically)\n"
	"  -h, --help          show this help\n"
	"\n"
	"A progress bar goes to standard error when it is a terminal. Ctrl-C prints\n"
	"what is done so far. Exit status: 0, or 2 for bad options.\n";

enum { OPT_TOP = 300, OPT_MEASURE, OPT_ARGS, OPT_RUNS, OPT_TIMEOUT };

static const struct option long_opts[] = {
	{"jobs", required_argument, NULL, 'j'},
	{"follow", no_argument, NULL, 'L'},
	{"top", required_argument, NULL, OPT_TOP},
	{"measure", no_argument, NULL, OPT_MEASURE},
	{"args", required_argument, NULL, OPT_ARGS},
	{"runs", required_argument, NULL, OPT_RUNS},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"help", no_argument, NULL, 'h'},
	OUT_LONG_OPTIONS,
	{NULL, 0, NULL, 0},
};

static int parse(int argc, char **argv, struct audit_opts *o, struct out_opts *out,
		 unsigned long *top)
{
	unsigned long v;
	int c, handled;

	*o = (struct audit_opts){.jobs = 1, .runs = 5, .timeout_s = 5};
	*top = 40;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+j:Lo:h", long_opts, NULL)) != -1) {
		if ((handled = out_option(c, optarg, out, "audit"))) {
			if (handled < 0)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'j':
			if (parse_ulong(optarg, 1, 256, &v))
				return usage_error("audit", "--jobs wants a number from 1 to 256");
			o->jobs = (unsigned)v;
			break;
		case 'L':
			o->follow = true;
			break;
		case OPT_TOP:
			if (parse_ulong(optarg, 0, 1000000000, &v))
				return usage_error("audit", "--top wants a number");
			*top = v ? v : (unsigned long)-1;
			break;
		case OPT_MEASURE:
			o->measure = true;
			break;
		case OPT_ARGS:
			o->args = optarg;
			break;
		case OPT_RUNS:
			if (parse_ulong(optarg, 1, 1000, &v))
				return usage_error("audit", "--runs wants a number from 1");
			o->runs = (unsigned)v;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(optarg, &o->timeout_s))
				return usage_error("audit", "--timeout wants seconds");
			break;
		case 'h':
			return print_usage(find_command("audit"), stdout);
		default:
			return usage_error("audit", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (out->format != OUT_TEXT && out->format != OUT_JSON && out->format != OUT_CSV)
		return usage_error("audit", "audit writes text, json or csv");
	if (optind >= argc)
		return usage_error("audit", "no path given");
	o->paths = argv + optind;
	o->npaths = (size_t)(argc - optind);
	o->progress = isatty(2);
	return -1;
}

int cmd_audit(int argc, char **argv)
{
	struct audit_opts o;
	struct out_opts out = {0};
	struct audit a;
	struct errbuf err;
	unsigned long top;
	int r = parse(argc, argv, &o, &out, &top);

	if (r >= 0)
		return r;
	if (audit_run(&o, &a, &err)) {
		error_msg("audit: %s", err.msg);
		audit_free(&a);
		return EXIT_FAIL;
	}
	r = EXIT_OK;
	if (audit_write(&out, &a, top, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	}
	audit_free(&a);
	return r;
}
