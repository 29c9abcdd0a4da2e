/* ldprof report: the report of a saved trace, in any format, on any machine. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/textsafe.h"
#include "cmd/commands.h"
#include "render/output.h"
#include "model/saved.h"

const char usage_report[] =
	"usage: ldprof report [OPTIONS] FILE\n"
	"\n"
	"Show the report of a trace written by 'ldprof record': the same report as\n"
	"'ldprof run', in any format, on any machine. The binaries are not needed;\n"
	"when a file on disk is no longer the one that ran (build-id, or size and\n"
	"mtime), the report says so. A trace cut short is read up to its last whole\n"
	"section, with a warning.\n"
	"\n"
	"Options:\n" OUT_USAGE
	"      --info          show what the trace holds (machine, environment,\n"
	"                      objects and their build-ids) instead of the report\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when a report was printed, 1 when it could not be written,\n"
	"2 for bad options or a FILE that is not a readable trace.\n";

enum { OPT_INFO = 2000 };

static const struct option long_opts[] = {
	OUT_LONG_OPTIONS,
	{"info", no_argument, NULL, OPT_INFO},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* Returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct out_opts *out, bool *info)
{
	int c, handled;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", long_opts, NULL)) != -1) {
		if ((handled = out_option(c, optarg, out, "report"))) {
			if (handled < 0)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case OPT_INFO:
			*info = true;
			break;
		case 'h':
			return print_usage(find_command("report"), stdout);
		case ':':
			return usage_error("report", "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("report", "no trace file given");
	if (optind + 1 < argc)
		return usage_error("report", "one trace file at a time ('%s' is extra)",
				   argv[optind + 1]);
	return -1;
}

/* A string from the file, which may hold anything: escaped for the terminal. */
static const char *or_unknown(const char *s)
{
	return s ? term_clean(s) : "unknown";
}

static void print_objects(const struct trace *t)
{
	printf("  objects:\n");
	for (size_t i = 0; i < t->nobj; i++) {
		const struct trace_object *o = &t->obj[i];
		printf("    %-10s %s", role_name(o->role), term_safe(o->path));
		if (o->build_id)
			printf("  build-id %s", term_safe(o->build_id));
		if (o->have_stat)
			printf("  %llu bytes", (unsigned long long)o->file_size);
		putchar('\n');
	}
}

/* What the file holds besides the runs: for people, one fact a line. */
static void print_info(const char *path, const struct trace *t, const struct tracefile_info *fi)
{
	const struct trace_machine *m = &t->machine;
	time_t when = (time_t)t->recorded_at;
	char date[64] = "unknown";

	if (when)
		strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %z", localtime(&when));
	printf("%s: ldprof trace, format version %u, %zu sections, %zu runs%s\n", term_safe(path),
	       fi->version, fi->sections, t->nrun, fi->truncated ? " (truncated)" : "");
	printf("  recorded: %s by ldprof %s\n", date, or_unknown(t->ldprof_version));
	printf("  command:");
	for (int i = 0; i < t->argc; i++)
		printf(" %s", term_safe(t->argv[i]));
	printf("\n  program:  %s (%s)\n", term_safe(t->program), elf_kind_name(t->kind));
	printf("  cwd:      %s\n", or_unknown(t->cwd));
	printf("  machine:  %s, %s, %s, glibc %s\n", or_unknown(m->hostname), or_unknown(m->kernel),
	       or_unknown(m->arch), or_unknown(m->glibc));
	printf("  cpu:      %s, %u CPUs, TSC %.1f MHz\n", or_unknown(m->cpu_model), m->ncpus,
	       t->tsc_hz / 1e6);
	printf("  env:     %s\n", t->nenv ? "" : " (no LD_* variables)");
	for (size_t i = 0; i < t->nenv; i++)
		printf("    %s\n", term_safe(t->env[i]));
	print_objects(t);
	if (fi->unknown_skipped)
		printf("  (%zu sections of newer types skipped)\n", fi->unknown_skipped);
}

int cmd_report(int argc, char **argv)
{
	struct out_opts out = {0};
	struct tracefile_info fi;
	struct trace t = {0};
	struct report rep;
	struct errbuf err;
	bool info = false;
	int r = parse(argc, argv, &out, &info);

	if (r >= 0)
		return r;
	if (saved_trace_open(argv[optind], &t, &fi, &rep, &err)) {
		error_msg("%s", err.msg);
		saved_trace_free(&t, &rep);
		return EXIT_USAGE;
	}
	if (fi.warning[0])
		warn_msg("%s: %s", argv[optind], fi.warning);
	if (info) {
		print_info(argv[optind], &t, &fi);
	} else if (out_write(&out, &rep, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	} else {
		r = EXIT_OK;
	}
	saved_trace_free(&t, &rep);
	return r < 0 ? EXIT_OK : r;
}
