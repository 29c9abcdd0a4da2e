/* ldprof deps: what ld.so will load and bind, read from the files. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/common-options.h"
#include "cmd/deps-run.h"
#include "model/deps-report.h"
#include "base/out/json.h"

const char usage_deps[] =
	"usage: ldprof deps [OPTIONS] FILE...\n"
	"\n"
	"Show what glibc 2.36's ld.so (x86-64) will load and bind for each FILE, read\n"
	"from the files without running them: which objects load, in which order,\n"
	"found where and why, every symbol binding, and the loader's work.\n";

const char epilogue_deps[] =
	"\n"
	"The environment (LD_LIBRARY_PATH, LD_PRELOAD) is not consulted: the options\n"
	"stand for it, so that results do not depend on the shell ldprof runs in.\n"
	"\n"
	"Exit status: 0 when every FILE was analysed, 1 with --missing when something\n"
	"is missing, 2 for bad options or a FILE that is not a usable ELF object.\n";

struct deps_args {
	struct deps_options opt;
	unsigned jobs;
	bool pretty;
	struct out_opts out;
	struct ldenv_options env;
	const char **preload;
	size_t npreload;
};

static int add_preload(void *value, const char *arg, struct errbuf *err)
{
	struct deps_args *a = value;

	(void)err;
	a->preload = xrealloc(a->preload, (a->npreload + 1) * sizeof *a->preload);
	a->preload[a->npreload++] = arg;
	return 0;
}

/* Returns -1 to go on, or an exit status. */
static int parse(const struct command *cmd, int argc, char **argv, struct deps_args *a, int *first)
{
	const struct opt opts[] = {
		OPT_GROUP("Modes (default: the dependency tree with per-object cost and facts):"),
		OPT_BOOL('l', "list", &a->opt.list,
			 "the loaded objects in load order, as ldd lists them"),
		OPT_BOOL('b', "bindings", &a->opt.bindings,
			 "every symbolic relocation: FROM SYMBOL[@VERSION] -> TO"),
		OPT_BOOL('u', "unused", &a->opt.unused,
			 "DT_NEEDED entries that provide no symbol, with their cost"),
		OPT_BOOL('m', "missing", &a->opt.missing,
			 "missing libraries, versions and symbols, with why"),
		OPT_GROUP("Options:"),
		OPT_FORMAT(&a->out.format, FORMAT_BIT(OUT_TEXT) | FORMAT_BIT(OUT_JSON),
			   "text (default) or json (schema ldprof-deps/1, see\n"
			   "docs/analyzer.md)"),
		OPT_JSON(&a->out.format),
		OPT_BOOL(0, "pretty", &a->pretty,
			 "json: indented, one value a line (the default only on a\n"
			 "terminal; elsewhere the document is one compact line)"),
		OPT_OUTPUT(&a->out.path, "write there (atomically) instead of to standard output"),
		OPT_STRING('L', "library-path", "DIRS", &a->env.library_path,
			   "search DIRS first, as LD_LIBRARY_PATH would"),
		OPT_CALLBACK('p', "preload", "LIBS", a, add_preload,
			     "load LIBS first, as LD_PRELOAD would (repeatable)"),
		OPT_BOOL(0, "bind-now", &a->opt.bind_now,
			 "bind PLT slots at startup, as LD_BIND_NOW would"),
		OPT_STRING(0, "ld-so-cache", "FILE", &a->env.cache_file,
			   "read FILE instead of /etc/ld.so.cache"),
		OPT_STRING(0, "ld-so-preload", "FILE", &a->env.preload_file,
			   "read FILE instead of /etc/ld.so.preload"),
		OPT_UNSIGNED('j', "jobs", "N", &a->jobs, 1, 64,
			     "analyse N FILEs at a time (default: one per CPU, at most 8)"),
		OPT_HELP(),
		OPT_END(),
	};
	int r = parse_options(cmd, argc, argv, opts, first);

	if (r >= 0)
		return r;
	if (a->opt.list + a->opt.bindings + a->opt.unused + a->opt.missing > 1)
		return usage_error("deps", "choose one of --list, --bindings, --unused, --missing");
	a->opt.json = a->out.format == OUT_JSON;
	if (a->pretty && !a->opt.json)
		return usage_error("deps", "--pretty is for --json output");
	a->env.preload = a->preload;
	a->env.npreload = a->npreload;
	if (!a->jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		a->jobs = cpus < 1 ? 1 : cpus > 8 ? 8 : (unsigned)cpus;
	}
	return -1;
}

struct deps_job {
	struct deps_args *a;
	struct ldenv *env;
	char **files;
	int nfiles;
	int status;
};

/* The reports, as one JSON document or one text after another, into f. */
static int write_reports(FILE *f, void *arg, struct errbuf *err)
{
	struct deps_job *d = arg;
	struct json j;

	(void)err;
	if (d->a->opt.json) {
		/* Compact unless a person reads it (docs/json.md): a whole /usr/bin
		   is gigabytes of JSON, half of it indentation when pretty. */
		json_begin_style(&j, f, d->a->pretty || isatty(fileno(f)));
		json_obj_open(&j, NULL);
		json_str(&j, "schema", "ldprof-deps/1");
		deps_json_loader(&j, d->env, &d->a->opt);
		json_arr_open(&j, "files");
	}
	d->status = deps_run(d->env, &d->a->opt, d->files, d->nfiles, (int)d->a->jobs, f, &j);
	if (d->a->opt.json) {
		json_arr_close(&j);
		json_obj_close(&j);
		json_end(&j);
	}
	return 0;
}

int cmd_deps(const struct command *cmd, int argc, char **argv)
{
	struct deps_args a;
	struct ldenv env;
	struct errbuf err;
	int first, r;

	memset(&a, 0, sizeof a);
	if ((r = parse(cmd, argc, argv, &a, &first)) >= 0)
		goto out;
	/* Each program's tables are allocated and freed in turn: keep the
	   memory in the heap rather than mapping and zeroing it afresh. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	if (ldenv_init(&env, &a.env, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
		goto out;
	}
	struct deps_job d = {&a, &env, argv + first, argc - first, EXIT_OK};
	if (write_atomic(a.out.path, write_reports, &d, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	} else {
		r = d.status;
	}
	ldenv_free(&env);
out:
	free(a.preload);
	return r;
}
