/* ldprof audit: the loader's cost across a system, ranked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/audit.h"
#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "render/render.h"

const char usage_audit[] =
	"usage: ldprof audit [OPTIONS] PATH...\n"
	"\n"
	"Walk PATHs (recursively, not following symbolic links) for ELF executables and\n"
	"shared objects, replay ld.so on each dynamic one from the files, and rank them\n"
	"by their modelled loader cost per exec (the calibrated cost model, see\n"
	"docs/model.md): libraries loaded, relocations, lookups, pages written, unused\n"
	"direct dependencies, missing libraries and the top recommendation; then the\n"
	"libraries that cost the most across the set. Unreadable files, broken links\n"
	"and malformed ELF are listed as errors. Nothing is run unless --measure.\n";

const char epilogue_audit[] =
	"\n"
	"A progress bar goes to standard error when it is a terminal. Ctrl-C prints\n"
	"what is done so far. Exit status: 0; 2 for bad options, or when a PATH given\n"
	"cannot be read (the report lists it among the errors too).\n";

/*
 * A PATH the user named that cannot be read is bad input, as a missing
 * program is to run, though the walk goes on and lists it (as find and du
 * do): said once more after the report, and the exit status says so.
 */
static int unreadable_operands(const struct audit_opts *o)
{
	struct stat st;
	int bad = 0;

	for (size_t i = 0; i < o->npaths; i++) {
		int r = o->follow ? stat(o->paths[i], &st) : lstat(o->paths[i], &st);
		if (r || access(o->paths[i], R_OK)) {
			error_msg("audit: %s: %s", o->paths[i], strerror(errno));
			bad = 1;
		}
	}
	return bad;
}

int cmd_audit(const struct command *cmd, int argc, char **argv)
{
	struct audit_opts o = {.jobs = 1, .runs = 5, .timeout_s = 5};
	struct out_opts out = {0};
	struct audit a;
	struct errbuf err;
	unsigned long top = 40;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		OPT_UNSIGNED('j', "jobs", "N", &o.jobs, 1, 256,
			     "analyse with N worker processes (default 1)"),
		OPT_BOOL('L', "follow", &o.follow, "follow symbolic links"),
		OPT_UNSIGNED(0, "top", "N", &top, 0, 1000000000,
			     "rows in the text table (default 40; 0 for all)"),
		OPT_BOOL(0, "measure", &o.measure,
			 "also run each dynamic program under `run` (opt-in:\n"
			 "it runs arbitrary programs) and show what it measured"),
		OPT_STRING(0, "args", "ARGS", &o.args,
			   "arguments for --measure (default none), split like sh"),
		OPT_UNSIGNED(0, "runs", "N", &o.runs, 1, 1000,
			     "--measure: runs per program (default 5)"),
		OPT_SECONDS(0, "timeout", "SEC", &o.timeout_s, "--measure: per run (default 5)"),
		OPT_FORMAT(&out.format,
			   FORMAT_BIT(OUT_TEXT) | FORMAT_BIT(OUT_JSON) | FORMAT_BIT(OUT_CSV),
			   "text (default), json (ldprof-audit/1) or csv"),
		OPT_JSON(&out.format),
		OPT_OUTPUT(&out.path, "write there (atomically)"),
		OPT_HELP(),
		OPT_END(),
	};
	int first, r;

	if ((r = parse_options(cmd, argc, argv, opts, &first)) >= 0)
		return r;
	o.paths = argv + first;
	o.npaths = (size_t)(argc - first);
	o.progress = isatty(2);
	if (!top)
		top = (unsigned long)-1;
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
	if (r == EXIT_OK && unreadable_operands(&o))
		r = EXIT_USAGE;
	audit_free(&a);
	return r;
}
