/* ldprof calibrate: fit the relocation cost model on this machine. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/calibrate.h"
#include "base/out/outpath.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "base/out/json.h"
#include "base/words.h"
#include "model/model.h"

const char usage_calibrate[] =
	"usage: ldprof calibrate [OPTIONS]\n"
	"\n"
	"Fit the relocation cost model on this machine: build synthetic programs whose\n"
	"relocation work is known (relative relocations, pages written, symbol lookups\n"
	"at several scope depths, lookup-cache hits, TLS, IFUNC, objects, long names\n"
	"hashed, compared and read out of order, and a program without libc, for\n"
	"libc's own start-up), run them interleaved under the shim, fit the\n"
	"coefficients by non-negative least squares and store them where run\n"
	"and report find them. Needs a C compiler ($CC or cc) and the static libc\n"
	"(libc6-dev) for the static/dynamic reference pair and the static program\n"
	"that unwinds once (what a static build's first C++ throw costs).\n"
	"\n"
	"--check 'PROGRAM ARGS' runs a program of yours in the same rounds, left out of\n"
	"the fit, and prints its relocate phase against the fit's prediction: the\n"
	"model's residual on it with the machine in one state for both.\n";

/* A --check program's residual (r's entry i), in % of the fit's prediction. */
static double check_residual_pct(const struct calib_result *r, size_t i)
{
	return 100 * (r->measured_us[i] - r->model_us[i]) / r->model_us[i];
}

static void print_text(const struct calib_result *r, const char *stored)
{
	const struct model_coefs *m = &r->coefs;

	printf("relocation cost model, fitted on %zu programs (R\u00b2 %.4f)\n", r->n, m->r2);
	printf("  %-13s %12s\n", "count", "us each");
	printf("  %-13s %12.4f  (per process)\n", "intercept", m->intercept_us);
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (k == MF_WARM_LINES && !m->warm_priced)
			printf("  %-13s %12s\n", model_feat_name(k), "(not timed)");
		else
			printf("  %-13s %12.6f\n", model_feat_name(k), m->coef_us[k]);
	printf("\n  %-16s %10s %10s %10s\n", "program", "measured", "model", "residual");
	for (size_t i = 0; i < r->n; i++)
		printf("  %-16s %10.1f %10.1f %+10.1f\n", r->names[i], r->measured_us[i],
		       r->model_us[i], r->measured_us[i] - r->model_us[i]);
	printf("  (relocate phase medians, us)\n\n");
	if (r->nchecks) {
		printf("  %-32s %10s %10s %9s\n", "checked in the same rounds", "measured",
		       "model", "residual");
		for (size_t i = r->n; i < r->n + r->nchecks; i++)
			printf("  %-32.32s %10.1f %10.1f %+8.1f%%\n", r->names[i],
			       r->measured_us[i], r->model_us[i], check_residual_pct(r, i));
		printf("  (not in the fit; relocate phase medians, us)\n\n");
	}
	printf("dynamic vs static minimal C program: %+.1f us [%+.1f, %+.1f] (static: %.1f us)\n",
	       m->dynamic_fixed_us, m->dynamic_fixed_lo, m->dynamic_fixed_hi, m->static_min_us);
	printf("  of which its first allocation, which a static start makes whatever the program "
	       "does: %.1f us\n",
	       m->malloc_us);
	printf("loading one more library: %.1f us\n", m->load_per_object_us);
	printf("the exit path: %.1f us per object, %.3f us per page relocation wrote, %.4f us per "
	       "KiB of tables read\n",
	       m->exit_per_object_us, m->exit_per_page_us, m->exit_per_kib_us);
	printf("a static build's first unwind: %.5f us per n log2 n of the n FDEs it sorts (%.0f "
	       "of them the runtime's)",
	       m->fde_sort_us, m->fde_floor);
	if (m->fde_sort_hi > 0)
		printf(", %.5f to %.5f in its passes", m->fde_sort_lo, m->fde_sort_hi);
	putchar('\n');
	printf("a fork of a dynamic image beyond a static one's: %.1f us with libc alone, %.2f us "
	       "per more library; a child binding its first call lazily, %.1f and %.2f more\n",
	       m->fork_fixed_us, m->fork_per_object_us, m->fork_lazy_fixed_us,
	       m->fork_lazy_per_object_us);
	printf("a process's first lookup through NSS (getpwuid), dynamic beyond static: %.1f "
	       "us%s\n",
	       m->nss_us, m->nss_builtin ? " (built in: the pair could not be timed)" : "");
	printf("a page fault (page cache, fault-around): %.2f us [%.2f, %.2f], %.2f at rest; "
	       "unmapping a page it mapped %.3f us\n",
	       m->fault_us, m->fault_lo, m->fault_hi, m->fault_rest_us, m->unmap_page_us);
	printf("noise: the fixed cost is known to +-%.1f%%\n", m->noise_pct);
	if (m->line_ns > 0)
		printf("the shared cache: a line read after an idle spell %.1f ns (median), %.1f "
		       "when hot (the fastest); contended in %.0f%% of the runs, which the fit "
		       "leaves out where it can (%.0f%% of its figures are of contended runs%s); "
		       "the fit's runs read %.1f ns, the state its cold line's price holds for\n",
		       m->line_ns, m->line_hot_ns, m->line_contended_pct, m->contended_blocks_pct,
		       model_priced_contended(m) ? ": reports hold it to their contended runs" : "",
		       m->priced_line_ns);
	printf("the scheduler: %.0f%% of the runs preempted for another task\n", m->preempted_pct);
	if (stored)
		printf("stored in %s\n", stored);
}

/* Program i's counts, as the "features" object. */
static void json_features(struct json *j, const struct calib_result *r, size_t i)
{
	json_obj_open(j, "features");
	for (int k = 0; k < MODEL_NFEAT; k++)
		json_num(j, model_feat_name(k), r->features[i * MODEL_NFEAT + k]);
	json_obj_close(j);
}

static void print_json(const struct calib_result *r, const char *stored)
{
	const struct model_coefs *m = &r->coefs;
	struct json j;

	json_begin(&j, stdout);
	json_obj_open(&j, NULL);
	json_str(&j, "schema", "ldprof-calibration/1");
	json_int(&j, "programs", (long long)r->n);
	json_num(&j, "r2", m->r2);
	json_bool(&j, "cold_cache", m->cold_cache);
	json_num(&j, "intercept_us", m->intercept_us);
	json_obj_open(&j, "coef_us");
	for (int k = 0; k < MODEL_NFEAT; k++)
		json_num(&j, model_feat_name(k),
			 k == MF_WARM_LINES && !m->warm_priced ? NAN : m->coef_us[k]);
	json_obj_close(&j);
	json_arr_open(&j, "fit");
	for (size_t i = 0; i < r->n; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "program", r->names[i]);
		json_num(&j, "measured_us", r->measured_us[i]);
		json_num(&j, "model_us", r->model_us[i]);
		json_num(&j, "exit_us", r->exit_us[i]);
		json_features(&j, r, i);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_arr_open(&j, "checks");
	for (size_t i = r->n; i < r->n + r->nchecks; i++) {
		json_obj_open(&j, NULL);
		json_str(&j, "command", r->names[i]);
		json_num(&j, "measured_us", r->measured_us[i]);
		json_num(&j, "model_us", r->model_us[i]);
		json_num(&j, "residual_pct", check_residual_pct(r, i));
		json_features(&j, r, i);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_arr_open(&j, "dynamic_fixed_us");
	json_num(&j, NULL, m->dynamic_fixed_us);
	json_num(&j, NULL, m->dynamic_fixed_lo);
	json_num(&j, NULL, m->dynamic_fixed_hi);
	json_arr_close(&j);
	json_num(&j, "static_min_us", m->static_min_us);
	json_num(&j, "load_per_object_us", m->load_per_object_us);
	json_num(&j, "exit_per_object_us", m->exit_per_object_us);
	json_num(&j, "exit_per_page_us", m->exit_per_page_us);
	json_num(&j, "exit_per_kib_us", m->exit_per_kib_us);
	json_num(&j, "fork_fixed_us", m->fork_fixed_us);
	json_num(&j, "fork_per_object_us", m->fork_per_object_us);
	json_num(&j, "fork_lazy_fixed_us", m->fork_lazy_fixed_us);
	json_num(&j, "fork_lazy_per_object_us", m->fork_lazy_per_object_us);
	json_num(&j, "nss_us", m->nss_us);
	json_bool(&j, "nss_builtin", m->nss_builtin);
	json_num(&j, "fde_sort_us", m->fde_sort_us);
	json_num(&j, "fde_floor", m->fde_floor);
	json_arr_open(&j, "fde_sort_range");
	json_num(&j, NULL, m->fde_sort_hi > 0 ? m->fde_sort_lo : NAN);
	json_num(&j, NULL, m->fde_sort_hi > 0 ? m->fde_sort_hi : NAN);
	json_arr_close(&j);
	json_arr_open(&j, "fault_us");
	json_num(&j, NULL, m->fault_us);
	json_num(&j, NULL, m->fault_lo);
	json_num(&j, NULL, m->fault_hi);
	json_arr_close(&j);
	json_num(&j, "fault_rest_us", m->fault_rest_us);
	json_num(&j, "unmap_page_us", m->unmap_page_us);
	json_num(&j, "noise_pct", m->noise_pct);
	json_num(&j, "line_ns", m->line_ns);
	json_num(&j, "line_hot_ns", m->line_hot_ns);
	json_num(&j, "line_contended_pct", m->line_contended_pct);
	json_num(&j, "contended_blocks_pct", m->contended_blocks_pct);
	json_num(&j, "priced_line_ns", m->priced_line_ns);
	json_num(&j, "preempted_pct", m->preempted_pct);
	json_arr_open(&j, "warnings");
	for (size_t i = 0; i < r->nwarnings; i++)
		json_str(&j, NULL, r->warnings[i]);
	json_arr_close(&j);
	json_str(&j, "stored", stored);
	json_obj_close(&j);
	json_end(&j);
}

/* The calibration file, checked before the minutes of work; NULL for --dry-run. */
static char *output_path(const char *output, bool dry_run, int *status)
{
	struct outpath o;
	struct errbuf err;
	char *path;

	*status = -1;
	if (dry_run)
		return NULL;
	path = output ? xstrdup(output) : model_default_path();
	/* model_save creates the directories. */
	if (outpath_resolve(path, OUTPATH_MAKE_DIRS, &o, &err)) {
		error_msg("%s%s", output ? "-o " : "", err.msg);
		*status = EXIT_FAIL;
		free(path);
		return NULL;
	}
	outpath_free(&o);
	return path;
}

/*
 * --verdict-error PCT,US: store the verdict's error on the validation pairs
 * (tools/validate-verdict -s) in an existing calibration, which is
 * rewritten atomically with its other figures unchanged.
 */
static int store_verdict_error(const char *spec, const char *output)
{
	const char *env = getenv("LDPROF_CALIBRATION");
	char *path = output ? xstrdup(output) : env && *env ? xstrdup(env) : model_default_path();
	struct model_coefs m;
	struct errbuf err;
	double pct, us;
	char end;
	int r = EXIT_OK;

	if (sscanf(spec, "%lf,%lf%c", &pct, &us, &end) != 2 || !(pct >= 0) || !(us >= 0) ||
	    pct > 1000 || us > 1e7) {
		error_msg("--verdict-error: %s: not PCT,US (two non-negative numbers)", spec);
		r = EXIT_USAGE;
	} else if (model_read(path, &m, &err) ||
		   (m.verdict_err_pct = pct, m.verdict_err_us = us, model_save(&m, path, &err))) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	} else {
		printf("the verdict's validated error, +-%.1f%% or +-%.1f us, stored in %s\n", pct,
		       us, path);
	}
	free(path);
	return r;
}

/* --check 'PROGRAM ARGS', split as sh would (no expansion). */
static int add_check(void *value, const char *arg, struct errbuf *err)
{
	struct calib_opts *o = value;
	struct calib_check c = {.line = (char *)arg};
	int r = split_words(arg, &c.argv, &c.argc, err);

	if (r)
		return r;
	if (!c.argc) {
		free(c.argv);
		return set_err(err, EINVAL, "an empty command");
	}
	o->checks = xrealloc(o->checks, (o->nchecks + 1) * sizeof *o->checks);
	o->checks[o->nchecks++] = c;
	return 0;
}

static void free_checks(struct calib_opts *o)
{
	for (size_t i = 0; i < o->nchecks; i++)
		free(o->checks[i].argv);
	free(o->checks);
}

int cmd_calibrate(const struct command *cmd, int argc, char **argv)
{
	const char *verdict_error = NULL;
	struct calib_opts calib = {0};
	const char *output = NULL;
	bool dry_run = false, json = false;
	struct calib_result res;
	struct errbuf err;
	char *path;
	const struct opt opts[] = {
		OPT_GROUP("Options:"),
		OPT_UNSIGNED('n', "runs", "N", &calib.prof.plan.runs, 5, 100000,
			     "runs of each program (default 40)"),
		OPT_BOOL(0, "quick", &calib.quick,
			 "fewer and smaller programs (about a third of the time)"),
		OPT_STRING('o', "output", "FILE", &output,
			   "where to store it (default $XDG_CACHE_HOME/ldprof/\n"
			   "calibration-v2; $LDPROF_CALIBRATION is read first)"),
		OPT_BOOL(0, "dry-run", &dry_run, "fit and print, store nothing"),
		OPT_BOOL(0, "keep", &calib.keep, "keep the build directory"),
		OPT_BOOL(0, "cold-cache", &calib.prof.plan.cold_cache,
			 "empty the CPU caches before each run (see ldprof run)"),
		OPT_BOOL(0, "json", &json, "print the fit as JSON (schema ldprof-calibration/1)"),
		OPT_CALLBACK(0, "check", "'PROG ARGS'", &calib, add_check,
			     "also run PROG in the same rounds, not fitted, and\n"
			     "print its residual (repeatable)"),
		OPT_STRING(0, "verdict-error", "PCT,US", &verdict_error,
			   "store the static-link verdict's validated error\n"
			   "(tools/validate-verdict -s) in the calibration; no runs"),
		OPT_HELP(),
		OPT_END(),
	};
	int r;

	profile_opts_defaults(&calib.prof);
	calib.prof.plan.runs = 40;
	calib.prof.plan.plain = false;
	if ((r = parse_options(cmd, argc, argv, opts, &(int){0})) >= 0)
		goto out;
	if (verdict_error) {
		r = store_verdict_error(verdict_error, output);
		goto out;
	}
	path = output_path(output, dry_run, &r);
	if (r >= 0)
		goto out;
	calib.log = json ? NULL : stderr;
	r = calibrate(&calib, &res, &err);
	if (calib.keep && res.workdir && !access(res.workdir, F_OK))
		fprintf(stderr, "ldprof: calibrate: the build directory is kept in %s\n",
			res.workdir);
	for (size_t i = 0; !r && i < res.nwarnings; i++)
		fprintf(stderr, "ldprof: calibrate: warning: %s\n", res.warnings[i]);
	if (r) {
		error_msg("calibrate: %s", err.msg);
		calib_result_free(&res);
		free(path);
		r = EXIT_FAIL;
		goto out;
	}
	if (path && model_save(&res.coefs, path, &err)) {
		error_msg("%s", err.msg);
		r = EXIT_FAIL;
	}
	if (json)
		print_json(&res, path);
	else
		print_text(&res, path);
	free(path);
	calib_result_free(&res);
out:
	free_checks(&calib);
	return r;
}
