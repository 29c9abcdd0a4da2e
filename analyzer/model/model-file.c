/*
 * The calibration file: a few "key value" lines, versioned, under
 * $XDG_CACHE_HOME/ldprof/ (it describes this machine, so it is a cache:
 * `ldprof calibrate` can always make it again).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model.h"

#define MAGIC "ldprof-calibration"

/*
 * The verdict's RMS error over the seven validation pairs on the reference
 * machine, quiet (tools/validate-verdict, docs/model.md, 2026-12-01).
 */
#define VERDICT_REFERENCE_ERR_PCT 13.1
#define VERDICT_REFERENCE_ERR_US  44.0

/* The features' names: the calibration file's keys, and the JSON reports'. */
static const char *const feat_names[MODEL_NFEAT] = {
	[MF_RELATIVE] = "relative",
	[MF_RELR] = "relr",
	[MF_LOOKUPS] = "lookups",
	[MF_PROBES] = "probes",
	[MF_BLOOM] = "bloom",
	[MF_CHAIN] = "chain",
	[MF_STRCMPS] = "strcmps",
	[MF_CACHED] = "cached",
	[MF_TLS] = "tls",
	[MF_IFUNC] = "ifunc",
	[MF_PAGES] = "pages",
	[MF_OBJECTS] = "objects",
	[MF_HASH_BYTES] = "hash_bytes",
	[MF_CMP_BYTES] = "cmp_bytes",
	[MF_COLD_LINES] = "cold_lines",
	[MF_LIBC] = "libc",
	[MF_DEEP_PROBES] = "deep_probes",
};

const char *model_feat_name(enum model_feat f)
{
	return feat_names[f];
}

/*
 * Fallbacks when this machine was never calibrated: the coefficients of a
 * calibration on the reference machine (2-vCPU AMD EPYC VM, Linux 6.18,
 * glibc 2.36, 2026-12-01). Reports using them say "uncalibrated".
 */
void model_defaults(struct model_coefs *m)
{
	memset(m, 0, sizeof *m);
	m->valid = true;
	/* That calibration's per-process 37.7 us, which a program without libc
	   measures at none (its relocate phase is 2.5 us): libc's (MF_LIBC). */
	m->intercept_us = 0;
	m->coef_us[MF_LIBC] = 37.7;
	m->coef_us[MF_RELATIVE] = 0.0023;
	m->coef_us[MF_RELR] = 0.00083;
	m->coef_us[MF_PROBES] = 0.0014;
	m->coef_us[MF_CHAIN] = 0.010;
	m->coef_us[MF_STRCMPS] = 0.011;
	m->coef_us[MF_CACHED] = 0.0041;
	m->coef_us[MF_TLS] = 0.0067;
	m->coef_us[MF_IFUNC] = 0.020;
	m->coef_us[MF_PAGES] = 1.64;
	m->coef_us[MF_HASH_BYTES] = 0.00047;
	m->coef_us[MF_CMP_BYTES] = 0.00017;
	m->coef_us[MF_COLD_LINES] = 0.105;
	/* A later calibration with the depth-24 and depth-48 programs (0.0045 us). */
	m->coef_us[MF_DEEP_PROBES] = 0.0045;
	m->dynamic_fixed_us = 132;
	m->dynamic_fixed_lo = 89;
	m->dynamic_fixed_hi = 147;
	m->static_min_us = 445;
	m->load_per_object_us = 30;
	m->fault_us = m->fault_lo = m->fault_hi = m->fault_rest_us = 1.0;
	m->exit_per_object_us = 3.0;
	m->exit_per_page_us = 0.21;
	m->exit_per_kib_us = 0.0085;
	/* A static program with 6998 erratic FDEs, unwinding once against not: 1114 us. */
	m->fde_sort_us = 0.0124;
	m->fde_floor = 998; /* of those, libc's and libgcc_eh's: not its own 6000 */
	/* tools/validate-verdict on the reference machine, quiet (docs/model.md). */
	m->verdict_err_pct = VERDICT_REFERENCE_ERR_PCT;
	m->verdict_err_us = VERDICT_REFERENCE_ERR_US;
	snprintf(m->source, sizeof m->source, "built-in defaults");
	snprintf(m->machine, sizeof m->machine, "reference machine");
}

char *model_default_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/ldprof/calibration-v%d", xdg, MODEL_VERSION);
	return xasprintf("%s/.cache/ldprof/calibration-v%d", home && *home ? home : "/tmp",
			 MODEL_VERSION);
}

static int write_lines(FILE *f, void *arg, struct errbuf *err)
{
	const struct model_coefs *m = arg;

	(void)err;
	fprintf(f, "%s %d\n", MAGIC, MODEL_VERSION);
	fprintf(f, "created %s\nmachine %s\n", m->created, m->machine);
	fprintf(f, "programs %zu\nr2 %.6f\n", m->programs, m->r2);
	fprintf(f, "intercept_us %.9g\n", m->intercept_us);
	fprintf(f, "dynamic_fixed_us %.9g %.9g %.9g\n", m->dynamic_fixed_us, m->dynamic_fixed_lo,
		m->dynamic_fixed_hi);
	fprintf(f, "static_min_us %.9g\nload_per_object_us %.9g\n", m->static_min_us,
		m->load_per_object_us);
	fprintf(f, "fault_us %.9g %.9g %.9g %.9g\n", m->fault_us, m->fault_lo, m->fault_hi,
		m->fault_rest_us);
	fprintf(f, "noise_pct %.9g\nexit_us %.9g %.9g %.9g\n", m->noise_pct, m->exit_per_object_us,
		m->exit_per_page_us, m->exit_per_kib_us);
	fprintf(f, "fde_sort_us %.9g %.9g\n", m->fde_sort_us, m->fde_floor);
	if (m->line_ns > 0)
		fprintf(f, "line_ns %.9g %.9g %.9g\n", m->line_ns, m->line_hot_ns,
			m->line_contended_pct);
	if (m->verdict_err_pct > 0 || m->verdict_err_us > 0)
		fprintf(f, "verdict_error %.9g %.9g\n", m->verdict_err_pct, m->verdict_err_us);
	for (int k = 0; k < MODEL_NFEAT; k++)
		fprintf(f, "coef %s %.9g\n", model_feat_name(k), m->coef_us[k]);
	return 0;
}

/* mkdir -p for the file's directory. */
static int make_parent(const char *path, struct errbuf *err)
{
	char *dir = xstrdup(path);

	for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST) {
			int r = set_err(err, errno, "%s: %s", dir, strerror(errno));
			free(dir);
			return r;
		}
		*p = '/';
	}
	free(dir);
	return 0;
}

int model_save(const struct model_coefs *m, const char *path, struct errbuf *err)
{
	int r = make_parent(path, err);

	return r ? r : write_atomic(path, write_lines, (void *)m, err);
}

static int parse_line(char *line, struct model_coefs *m)
{
	char key[64], rest[512];

	if (sscanf(line, "%63s %511[^\n]", key, rest) < 1)
		return 0;
	if (!strcmp(key, "created"))
		snprintf(m->created, sizeof m->created, "%.*s", (int)sizeof m->created - 1, rest);
	else if (!strcmp(key, "machine"))
		snprintf(m->machine, sizeof m->machine, "%.*s", (int)sizeof m->machine - 1, rest);
	else if (!strcmp(key, "programs"))
		m->programs = strtoul(rest, NULL, 10);
	else if (!strcmp(key, "r2"))
		m->r2 = strtod(rest, NULL);
	else if (!strcmp(key, "intercept_us"))
		m->intercept_us = strtod(rest, NULL);
	else if (!strcmp(key, "static_min_us"))
		m->static_min_us = strtod(rest, NULL);
	else if (!strcmp(key, "load_per_object_us"))
		m->load_per_object_us = strtod(rest, NULL);
	else if (!strcmp(key, "dynamic_fixed_us"))
		return sscanf(rest, "%lf %lf %lf", &m->dynamic_fixed_us, &m->dynamic_fixed_lo,
			      &m->dynamic_fixed_hi) == 3
			       ? 0
			       : -1;
	else if (!strcmp(key, "fault_us"))
		return sscanf(rest, "%lf %lf %lf %lf", &m->fault_us, &m->fault_lo, &m->fault_hi,
			      &m->fault_rest_us) == 4 &&
				       m->fault_us >= 0
			       ? 0
			       : -1;
	else if (!strcmp(key, "noise_pct"))
		m->noise_pct = strtod(rest, NULL);
	else if (!strcmp(key, "exit_us"))
		return sscanf(rest, "%lf %lf %lf", &m->exit_per_object_us, &m->exit_per_page_us,
			      &m->exit_per_kib_us) == 3 &&
				       m->exit_per_object_us >= 0 && m->exit_per_page_us >= 0 &&
				       m->exit_per_kib_us >= 0
			       ? 0
			       : -1;
	else if (!strcmp(key, "fde_sort_us"))
		return sscanf(rest, "%lf %lf", &m->fde_sort_us, &m->fde_floor) == 2 &&
				       m->fde_sort_us >= 0 && m->fde_floor >= 0
			       ? 0
			       : -1;
	else if (!strcmp(key, "line_ns"))
		return sscanf(rest, "%lf %lf %lf", &m->line_ns, &m->line_hot_ns,
			      &m->line_contended_pct) == 3 &&
				       m->line_ns >= 0 && m->line_hot_ns >= 0 &&
				       m->line_contended_pct >= 0 && m->line_contended_pct <= 100
			       ? 0
			       : -1;
	else if (!strcmp(key, "verdict_error"))
		return sscanf(rest, "%lf %lf", &m->verdict_err_pct, &m->verdict_err_us) == 2 &&
				       m->verdict_err_pct >= 0 && m->verdict_err_us >= 0
			       ? 0
			       : -1;
	else if (!strcmp(key, "coef")) {
		char name[32];
		double v;
		if (sscanf(rest, "%31s %lf", name, &v) != 2 || v < 0)
			return -1;
		for (int k = 0; k < MODEL_NFEAT; k++)
			if (!strcmp(name, model_feat_name(k)))
				m->coef_us[k] = v;
	}
	return 0; /* unknown keys: from a newer ldprof, ignored */
}

int model_read(const char *path, struct model_coefs *m, struct errbuf *err)
{
	FILE *f = fopen(path, "r");
	struct model_coefs d; /* for keys a calibration from before them lacks */
	char line[1024];
	int version = 0, r = 0;

	if (!f)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	memset(m, 0, sizeof *m);
	if (!fgets(line, sizeof line, f) || sscanf(line, MAGIC " %d", &version) != 1 ||
	    version != MODEL_VERSION) {
		r = set_err(err, EPROTO, "%s: not an ldprof calibration (version %d)", path,
			    MODEL_VERSION);
		goto out;
	}
	m->exit_per_object_us = -1; /* a calibration from before it was measured: the default */
	m->fde_sort_us = -1;
	while (fgets(line, sizeof line, f))
		if (parse_line(line, m)) {
			r = set_err(err, EPROTO, "%s: bad line: %s", path, line);
			goto out;
		}
	model_defaults(&d);
	if (m->exit_per_object_us < 0) {
		m->exit_per_object_us = d.exit_per_object_us;
		m->exit_per_page_us = d.exit_per_page_us;
		m->exit_per_kib_us = d.exit_per_kib_us;
	}
	if (m->fde_sort_us < 0)
		m->fde_sort_us = d.fde_sort_us, m->fde_floor = d.fde_floor;
	m->valid = m->calibrated = true;
	snprintf(m->source, sizeof m->source, "%s", path);
out:
	fclose(f);
	return r;
}

void model_load(struct model_coefs *m)
{
	const char *env = getenv("LDPROF_CALIBRATION");
	char *path = env && *env ? xstrdup(env) : model_default_path();
	struct errbuf err;

	int r = model_read(path, m, &err);
	if (r) {
		model_defaults(m);
		/* No file is the uncalibrated machine (tests name a missing one for
		   the defaults); one that is there and cannot be read is worth saying. */
		if (r != -ENOENT)
			snprintf(m->load_error, sizeof m->load_error, "%s", err.msg);
	}
	free(path);
}
