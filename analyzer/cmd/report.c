/* ldprof report: the report of a saved trace, in any format, on any machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/out/textsafe.h"
#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "model/saved.h"

const char usage_report[] =
	"usage: ldprof report [OPTIONS] FILE\n"
	"\n"
	"Show the report of a trace written by 'ldprof record': the same report as\n"
	"'ldprof run', in any format, on any machine. The binaries are not needed;\n"
	"when a file on disk is no longer the one that ran (build-id, or size and\n"
	"mtime), the report says so. A trace cut short is read up to its last whole\n"
	"section, with a warning.\n";

const char epilogue_report[] =
	"\n"
	"Exit status: 0 when a report was printed, 1 when it could not be written,\n"
	"2 for bad options or a FILE that is not a readable trace.\n";

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
	if (t->sampling)
		printf("  samples:  %zu from %zu sampled runs, one per %llu ns of CPU, %zu frames%s%s\n",
		       t->sampling->n, t->sampling->runs,
		       (unsigned long long)t->sampling->period_ns, t->sampling->nframe,
		       t->sampling->refused ? "; refused: " : "",
		       t->sampling->refused ? term_clean(t->sampling->refused) : "");
	print_objects(t);
	if (fi->unknown_skipped)
		printf("  (%zu sections of newer types skipped)\n", fi->unknown_skipped);
}

int cmd_report(const struct command *cmd, int argc, char **argv)
{
	struct out_opts out = {0};
	struct tracefile_info fi;
	struct trace t = {0};
	struct report rep;
	struct errbuf err;
	bool info = false;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		REPORT_OUTPUT_OPTIONS(&out),
		OPT_BOOL(0, "info", &info,
			 "show what the trace holds (machine, environment,\n"
			 "objects and their build-ids) instead of the report"),
		OPT_HELP(),
		OPT_END(),
	};
	int first, r;

	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	const char *file = argv[first];
	if (saved_trace_open(file, &t, &fi, &rep, &err)) {
		error_msg("%s", err.msg);
		saved_trace_free(&t, &rep);
		return EXIT_USAGE;
	}
	if (fi.warning[0])
		warn_msg("%s: %s", file, fi.warning);
	r = EXIT_OK;
	if (info) {
		print_info(file, &t, &fi);
	} else if (out_write(&out, &rep, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	}
	saved_trace_free(&t, &rep);
	return r;
}
