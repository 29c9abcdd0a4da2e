/* ldprof deps: what ld.so will load and bind, read from the files. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/deps-run.h"
#include "model/deps-report.h"
#include "base/json.h"

const char usage_deps[] =
	"usage: ldprof deps [OPTIONS] FILE...\n"
	"\n"
	"Show what glibc 2.36's ld.so (x86-64) will load and bind for each FILE, read\n"
	"from the files without running them: which objects load, in which order,\n"
	"found where and why, every symbol binding, and the loader's work.\n"
	"\n"
	"Modes (default: the dependency tree with per-object cost and facts):\n"
	"  -l, --list              the loaded objects in load order, as ldd lists them\n"
	"  -b, --bindings          every symbolic relocation: FROM SYMBOL[@VERSION] -> TO\n"
	"  -u, --unused            DT_NEEDED entries that provide no symbol, with their cost\n"
	"  -m, --missing           missing libraries, versions and symbols, with why\n"
	"\n"
	"Options:\n"
	"  -j, --json              JSON output (schema ldprof-deps/1, see docs/analyzer.md)\n"
	"  -L, --library-path DIRS search DIRS first, as LD_LIBRARY_PATH would\n"
	"  -p, --preload LIBS      load LIBS first, as LD_PRELOAD would (repeatable)\n"
	"      --bind-now          bind PLT slots at startup, as LD_BIND_NOW would\n"
	"      --ld-so-cache FILE  read FILE instead of /etc/ld.so.cache\n"
	"      --ld-so-preload FILE  read FILE instead of /etc/ld.so.preload\n"
	"      --jobs N            analyse N FILEs at a time (default: one per CPU, at most 8)\n"
	"  -h, --help              show this help\n"
	"\n"
	"The environment (LD_LIBRARY_PATH, LD_PRELOAD) is not consulted: the options\n"
	"stand for it, so that results do not depend on the shell ldprof runs in.\n"
	"\n"
	"Exit status: 0 when every FILE was analysed, 1 with --missing when something\n"
	"is missing, 2 for bad options or a FILE that is not a usable ELF object.\n";

enum { OPT_BIND_NOW = 256, OPT_CACHE, OPT_PRELOAD_FILE, OPT_JOBS };

static const struct option long_opts[] = {
	{"list", no_argument, NULL, 'l'},
	{"bindings", no_argument, NULL, 'b'},
	{"unused", no_argument, NULL, 'u'},
	{"missing", no_argument, NULL, 'm'},
	{"json", no_argument, NULL, 'j'},
	{"library-path", required_argument, NULL, 'L'},
	{"preload", required_argument, NULL, 'p'},
	{"bind-now", no_argument, NULL, OPT_BIND_NOW},
	{"ld-so-cache", required_argument, NULL, OPT_CACHE},
	{"ld-so-preload", required_argument, NULL, OPT_PRELOAD_FILE},
	{"jobs", required_argument, NULL, OPT_JOBS},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct deps_args {
	struct deps_options opt;
	int jobs;
	struct ldenv_options env;
	const char **preload;
	size_t npreload;
};

static int set_mode(bool *mode, struct deps_args *a)
{
	if (a->opt.list + a->opt.bindings + a->opt.unused + a->opt.missing)
		return usage_error("deps", "choose one of --list, --bindings, --unused, --missing");
	*mode = true;
	return -1;
}

static int parse_option(int c, struct deps_args *a, char **argv)
{
	switch (c) {
	case 'l':
		return set_mode(&a->opt.list, a);
	case 'b':
		return set_mode(&a->opt.bindings, a);
	case 'u':
		return set_mode(&a->opt.unused, a);
	case 'm':
		return set_mode(&a->opt.missing, a);
	case 'j':
		a->opt.json = true;
		return -1;
	case 'L':
		a->env.library_path = optarg;
		return -1;
	case 'p':
		a->preload = xrealloc(a->preload, (a->npreload + 1) * sizeof *a->preload);
		a->preload[a->npreload++] = optarg;
		return -1;
	case OPT_BIND_NOW:
		a->opt.bind_now = true;
		return -1;
	case OPT_CACHE:
		a->env.cache_file = optarg;
		return -1;
	case OPT_PRELOAD_FILE:
		a->env.preload_file = optarg;
		return -1;
	case OPT_JOBS: {
		unsigned long n;
		if (parse_ulong(optarg, 1, 64, &n))
			return usage_error("deps", "--jobs wants a number from 1 to 64");
		a->jobs = (int)n;
		return -1;
	}
	case 'h':
		return print_usage(find_command("deps"), stdout);
	case ':':
		return usage_error("deps", "option '%s' needs a value", argv[optind - 1]);
	default:
		return usage_error("deps", "unknown option '%s'", argv[optind - 1]);
	}
}

/* Returns -1 to go on, or an exit status. */
static int parse(int argc, char **argv, struct deps_args *a)
{
	int c, r;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:lbumjL:p:h", long_opts, NULL)) != -1)
		if ((r = parse_option(c, a, argv)) >= 0)
			return r;
	if (optind >= argc)
		return usage_error("deps", "no FILE given");
	a->env.preload = a->preload;
	a->env.npreload = a->npreload;
	if (!a->jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		a->jobs = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
	}
	return -1;
}

int cmd_deps(int argc, char **argv)
{
	struct deps_args a;
	struct ldenv env;
	struct errbuf err;
	struct json j;
	int r;

	memset(&a, 0, sizeof a);
	if ((r = parse(argc, argv, &a)) >= 0)
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
	if (a.opt.json) {
		json_begin(&j, stdout);
		json_obj_open(&j, NULL);
		json_str(&j, "schema", "ldprof-deps/1");
		deps_json_loader(&j, &env, &a.opt);
		json_arr_open(&j, "files");
	}
	r = deps_run(&env, &a.opt, argv + optind, argc - optind, a.jobs, &j);
	if (a.opt.json) {
		json_arr_close(&j);
		json_obj_close(&j);
		json_end(&j);
	}
	ldenv_free(&env);
out:
	free(a.preload);
	return r;
}
