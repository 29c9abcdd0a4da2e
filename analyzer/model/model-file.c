/*
 * The calibration file: a few "key value" lines, versioned, under
 * $XDG_CACHE_HOME/ldprof/ (it describes this machine, so it is a cache:
 * `ldprof calibrate` can always make it again).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
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
/*
 * calibrate's NSS pair on the machine of 2026-12-06 (a page fault 14 to
 * 15 us), its program allocating before the lookup: two calibrations
 * there (117.5, 115.2). Before it did, the lookup held the first
 * allocation too: 213.1, 194.0, 166.1 that morning.
 */
#define NSS_DEFAULT_US 116.4
/*
 * calibrate's two minimal pairs, the one that allocates beyond the one
 * that does not, the same two calibrations: 76.6 and 70.3 us of the
 * allocating pair's 522.3 and 535.6, 13.9% of it together. The reference
 * machine's fixed cost (132 [89, 147] us) is the pair that does not
 * allocate: its built-in figures below are both scaled by that share.
 */
#define MALLOC_SHARE   0.139
#define ALLOC_FIXED(x) ((x) / (1 - MALLOC_SHARE))

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
	[MF_READ_FAULTS] = "read_faults",
	[MF_PAGES_READ] = "pages_read",
	[MF_RELRO_PAGES] = "relro_pages",
	[MF_WARM_LINES] = "warm_lines",
	[MF_VERSION_STEPS] = "version_steps",
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
	m->contended_blocks_pct = NAN; /* no calibration measured it */
	/* That calibration's per-process 37.7 us, which a program without libc
	   measures at none (its relocate phase is 2.5 us): libc's (MF_LIBC),
	   less the 25 lines a program with libc alone reads of other objects'
	   tables in libc's and ld.so's relocation, cold lines since 2026-12-08,
	   at the cold line's 0.105 us (2.6). */
	m->intercept_us = 0;
	m->coef_us[MF_LIBC] = 35.1;
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
	/* A line the run before left cached, as calibrate times it (2026-12-07: 16.2 to 17.7 ns).
	 */
	m->coef_us[MF_WARM_LINES] = 0.017;
	m->warm_priced = true;
	/* The version check's step, calibrated on versions-N (2026-12-07: 1.28 ns). */
	m->coef_us[MF_VERSION_STEPS] = 0.0013;
	m->dynamic_fixed_us = ALLOC_FIXED(132);
	m->dynamic_fixed_lo = ALLOC_FIXED(89);
	m->dynamic_fixed_hi = ALLOC_FIXED(147);
	m->static_min_us = 445;
	m->load_per_object_us = 30;
	/* A fault-around fault on a file held in single pages, at rest (2026-12-01). */
	m->fault_us = m->fault_lo = m->fault_hi = m->fault_rest_us = 2.8;
	m->exit_per_object_us = 3.0;
	m->exit_per_page_us = 0.21;
	m->exit_per_kib_us = 0.0085;
	/* munmap of a file's fault-around windows in single pages, 16 a window (2026-12-07). */
	m->unmap_page_us = 0.082;
	/* A static program with 6998 erratic FDEs, unwinding once against not: 1114 us. */
	m->fde_sort_us = 0.0124;
	m->fde_floor = 998; /* of those, libc's and libgcc_eh's: not its own 6000 */
	/*
	 * calibrate's fork programs, bound at startup, on the reference machine:
	 * the medians of six calibrations on 2026-12-05 (68.8 to 148.6 us with
	 * libc alone, 2.92 to 6.77 per library).
	 */
	m->fork_fixed_us = 80.65;
	m->fork_per_object_us = 4.37;
	/*
	 * Their lazily bound pair's children, more: the medians of a
	 * calibration (151.5, 8.87) and a run's price (141.9, 14.19) on
	 * 2026-12-06 and the programs of 2026-12-05 (164, 17.3).
	 */
	m->fork_lazy_fixed_us = 151.5;
	m->fork_lazy_per_object_us = 14.19;
	m->nss_us = NSS_DEFAULT_US; /* calibrate's NSS pair (above) */
	m->malloc_us = ALLOC_FIXED(132) * MALLOC_SHARE;
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
	fprintf(f, "unmap_page_us %.9g\n", m->unmap_page_us);
	fprintf(f, "fde_sort_us %.9g %.9g\n", m->fde_sort_us, m->fde_floor);
	if (m->fde_sort_hi > 0)
		fprintf(f, "fde_sort_range %.9g %.9g\n", m->fde_sort_lo, m->fde_sort_hi);
	if (m->line_ns > 0)
		fprintf(f, "line_ns %.9g %.9g %.9g\n", m->line_ns, m->line_hot_ns,
			m->line_contended_pct);
	if (m->priced_line_ns > 0)
		fprintf(f, "priced_line_ns %.9g\n", m->priced_line_ns);
	if (!isnan(m->contended_blocks_pct))
		fprintf(f, "contended_blocks_pct %.9g\n", m->contended_blocks_pct);
	if (m->preempted_pct > 0)
		fprintf(f, "preempted_pct %.9g\n", m->preempted_pct);
	if (m->fork_fixed_us > 0 || m->fork_per_object_us > 0)
		fprintf(f, "fork_us %.9g %.9g\n", m->fork_fixed_us, m->fork_per_object_us);
	if (m->fork_lazy_fixed_us > 0 || m->fork_lazy_per_object_us > 0)
		fprintf(f, "fork_lazy_us %.9g %.9g\n", m->fork_lazy_fixed_us,
			m->fork_lazy_per_object_us);
	if (m->nss_us > 0 && !m->nss_builtin)
		fprintf(f, "nss_us %.9g\n", m->nss_us);
	if (m->malloc_us >= 0)
		fprintf(f, "malloc_us %.9g\n", m->malloc_us);
	if (m->cold_cache)
		fputs("cold_cache 1\n", f);
	if (m->verdict_err_pct > 0 || m->verdict_err_us > 0)
		fprintf(f, "verdict_error %.9g %.9g\n", m->verdict_err_pct, m->verdict_err_us);
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (k != MF_WARM_LINES || m->warm_priced)
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

/* parse_line's record of the fit's lines: a bit per count, and one more. */
#define SEEN_INTERCEPT (1u << 31)
_Static_assert(MODEL_NFEAT < 31, "a bit per count below SEEN_INTERCEPT");

/*
 * The coefficients a calibration file must have besides its intercept:
 * every count's but those counted after version 2's first files, which
 * priced them at 0 (libc's start sat in the intercept then, the read
 * faults in the other counts' prices; a file without warm_lines never
 * prices a line as warm).
 */
static uint32_t required_coefs(void)
{
	return ((1u << MODEL_NFEAT) - 1) & ~(1u << MF_LIBC) & ~(1u << MF_DEEP_PROBES) &
	       ~(1u << MF_READ_FAULTS) & ~(1u << MF_PAGES_READ) & ~(1u << MF_RELRO_PAGES) &
	       ~(1u << MF_WARM_LINES) & ~(1u << MF_VERSION_STEPS);
}

/* The first count whose coefficient the file lacked, or NULL. */
static const char *missing_coef(uint32_t seen)
{
	uint32_t lack = required_coefs() & ~seen;

	for (int k = 0; k < MODEL_NFEAT; k++)
		if (lack & (1u << k))
			return model_feat_name(k);
	return NULL;
}

/*
 * A key whose value is n numbers, each finite (or NaN: not measured, where
 * calibration writes it so) and each >= 0 if nonneg.
 */
struct number_key {
	const char *key;
	int n;
	bool nonneg, nan_ok;
	size_t at[4]; /* offsetof(struct model_coefs, ...) */
};

#define AT(f) offsetof(struct model_coefs, f)
static const struct number_key number_keys[] = {
	{"r2", 1, false, true, {AT(r2)}}, /* NaN: nothing varied */
	{"intercept_us", 1, true, false, {AT(intercept_us)}},
	{"static_min_us", 1, true, false, {AT(static_min_us)}},
	{"load_per_object_us", 1, true, false, {AT(load_per_object_us)}},
	/* A difference and its CI: the bounds may fall below zero. */
	{"dynamic_fixed_us",
	 3,
	 false,
	 false,
	 {AT(dynamic_fixed_us), AT(dynamic_fixed_lo), AT(dynamic_fixed_hi)}},
	{"fault_us", 4, true, false, {AT(fault_us), AT(fault_lo), AT(fault_hi), AT(fault_rest_us)}},
	{"noise_pct", 1, true, true, {AT(noise_pct)}}, /* NaN: no fixed cost to scale */
	{"exit_us",
	 3,
	 true,
	 false,
	 {AT(exit_per_object_us), AT(exit_per_page_us), AT(exit_per_kib_us)}},
	{"fde_sort_us", 2, true, false, {AT(fde_sort_us), AT(fde_floor)}},
	{"fde_sort_range", 2, true, false, {AT(fde_sort_lo), AT(fde_sort_hi)}},
	{"line_ns", 3, true, false, {AT(line_ns), AT(line_hot_ns), AT(line_contended_pct)}},
	{"priced_line_ns", 1, true, false, {AT(priced_line_ns)}},
	{"verdict_error", 2, true, false, {AT(verdict_err_pct), AT(verdict_err_us)}},
	{"preempted_pct", 1, true, false, {AT(preempted_pct)}},
	{"contended_blocks_pct", 1, true, false, {AT(contended_blocks_pct)}},
	{"fork_us", 2, true, false, {AT(fork_fixed_us), AT(fork_per_object_us)}},
	{"fork_lazy_us", 2, true, false, {AT(fork_lazy_fixed_us), AT(fork_lazy_per_object_us)}},
	{"nss_us", 1, true, false, {AT(nss_us)}},
	{"malloc_us", 1, true, false, {AT(malloc_us)}},
	{"unmap_page_us", 1, true, false, {AT(unmap_page_us)}},
};
#undef AT

static bool number_ok(double v, bool nonneg, bool nan_ok)
{
	if (isnan(v))
		return nan_ok;
	return isfinite(v) && (!nonneg || v >= 0);
}

/* k's numbers from rest into m: 0, or -1 when they are not all there and sane. */
static int parse_numbers(const struct number_key *k, const char *rest, struct model_coefs *m)
{
	double v[4];

	if (sscanf(rest, "%lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3]) < k->n)
		return -1;
	for (int i = 0; i < k->n; i++) {
		if (!number_ok(v[i], k->nonneg, k->nan_ok))
			return -1;
		memcpy((char *)m + k->at[i], &v[i], sizeof v[i]);
	}
	return 0;
}

static int parse_coef(const char *rest, struct model_coefs *m, uint32_t *seen)
{
	char name[32];
	double v;

	if (sscanf(rest, "%31s %lf", name, &v) != 2 || !number_ok(v, true, false))
		return -1;
	for (int k = 0; k < MODEL_NFEAT; k++)
		if (!strcmp(name, model_feat_name(k))) {
			m->coef_us[k] = v;
			*seen |= 1u << k;
		}
	return 0; /* a count of a newer ldprof's: ignored */
}

static int parse_line(char *line, struct model_coefs *m, uint32_t *seen)
{
	char key[64], rest[512] = ""; /* a key alone leaves rest as it was */

	if (sscanf(line, "%63s %511[^\n]", key, rest) < 1)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(number_keys); i++)
		if (!strcmp(key, number_keys[i].key)) {
			if (parse_numbers(&number_keys[i], rest, m))
				return -1;
			if (!strcmp(key, "intercept_us"))
				*seen |= SEEN_INTERCEPT;
			if (!strcmp(key, "contended_blocks_pct") && m->contended_blocks_pct > 100)
				return -1;
			return !strcmp(key, "line_ns") && m->line_contended_pct > 100 ? -1 : 0;
		}
	if (!strcmp(key, "created"))
		snprintf(m->created, sizeof m->created, "%.*s", (int)sizeof m->created - 1, rest);
	else if (!strcmp(key, "machine"))
		snprintf(m->machine, sizeof m->machine, "%.*s", (int)sizeof m->machine - 1, rest);
	else if (!strcmp(key, "programs"))
		m->programs = strtoul(rest, NULL, 10);
	else if (!strcmp(key, "cold_cache"))
		m->cold_cache = strtoul(rest, NULL, 10) != 0;
	else if (!strcmp(key, "coef"))
		return parse_coef(rest, m, seen);
	return 0; /* unknown keys: from a newer ldprof, ignored */
}

int model_read(const char *path, struct model_coefs *m, struct errbuf *err)
{
	FILE *f = fopen(path, "r");
	struct model_coefs d; /* for keys a calibration from before them lacks */
	char line[1024];
	const char *lacks;
	uint32_t seen = 0;
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
	m->contended_blocks_pct = NAN;
	m->fde_sort_us = -1;
	m->fork_fixed_us = -1;
	m->fork_lazy_fixed_us = -1;
	m->nss_us = -1;
	m->malloc_us = -1;
	m->unmap_page_us = -1;
	while (fgets(line, sizeof line, f))
		if (parse_line(line, m, &seen)) {
			r = set_err(err, EPROTO, "%s: bad line: %s", path, line);
			goto out;
		}
	/* Without the fit the model would price every count at 0 us. */
	if (!(seen & SEEN_INTERCEPT)) {
		r = set_err(err, EPROTO, "%s: no intercept_us line: not a whole calibration", path);
		goto out;
	}
	if ((lacks = missing_coef(seen))) {
		r = set_err(err, EPROTO, "%s: no 'coef %s' line: not a whole calibration", path,
			    lacks);
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
	if (m->fork_fixed_us < 0)
		m->fork_fixed_us = d.fork_fixed_us, m->fork_per_object_us = d.fork_per_object_us;
	if (m->fork_lazy_fixed_us < 0)
		m->fork_lazy_fixed_us = d.fork_lazy_fixed_us,
		m->fork_lazy_per_object_us = d.fork_lazy_per_object_us;
	if (m->nss_us < 0)
		m->nss_us = d.nss_us, m->nss_builtin = true;
	if (m->malloc_us < 0)
		m->malloc_us = d.malloc_us;
	if (m->unmap_page_us < 0)
		m->unmap_page_us = d.unmap_page_us;
	m->warm_priced = (seen >> MF_WARM_LINES) & 1;
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
