#include "model/calibrate-machine.h"
#include "model/cache-state.h"
#include "model/sched-state.h"

#include "base/nnls.h"
#include "model/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Windows per round: enough faults that the clock's resolution is lost. */
#define FAULT_WINDOWS 256
#define WINDOW	      (64 * 1024)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * A temporary file of n bytes, written so that it is in the page cache, and
 * unlinked. Written a page at a time, so that the page cache holds it in
 * single pages, as it holds a program that exec's faults read from disk
 * (base/pagecache.h): written 64 KiB at a time, it sat in 64 KiB folios and
 * a fault cost 1.2 us, against 2.8 us in single pages.
 */
static int cached_file(size_t n, struct errbuf *err)
{
	const char *dir = getenv("TMPDIR");
	char *path = xasprintf("%s/ldprof-faults.XXXXXX", dir && *dir ? dir : "/tmp");
	char buf[4096];
	int fd = mkstemp(path), r = 0;

	if (fd < 0) {
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	unlink(path);
	memset(buf, 0x5a, sizeof buf);
	for (size_t done = 0; done < n && !r; done += sizeof buf)
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			r = set_err(err, errno ? errno : EIO, "%s: write: %s", path,
				    strerror(errno ? errno : EIO));
	if (r) {
		close(fd);
		fd = r;
	}
out:
	free(path);
	return fd;
}

/* One round: map the file afresh, touch one byte per window, and unmap it. */
static int fault_round(int fd, size_t n, double *us_per_fault, double *us_per_page_unmapped)
{
	volatile const unsigned char *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	unsigned sum = 0;
	double t0, t1;

	if (p == MAP_FAILED)
		return -errno;
	t0 = now_us();
	for (size_t off = 0; off < n; off += WINDOW)
		sum += p[off];
	*us_per_fault = (now_us() - t0) / (double)(n / WINDOW);
	t1 = now_us();
	munmap((void *)p, n);
	*us_per_page_unmapped = (now_us() - t1) / (double)(n / 4096);
	return sum == 0 ? -EIO : 0; /* the file is 0x5a throughout */
}

int machine_fault_cost(unsigned rounds, struct summary *s, double *rest, double *unmap_page,
		       struct errbuf *err)
{
	size_t n = (size_t)FAULT_WINDOWS * WINDOW;
	double *v = xcalloc(rounds, sizeof *v), *u = xcalloc(rounds, sizeof *u);
	int fd = cached_file(n, err), r = 0;
	struct summary us;

	if (fd < 0) {
		free(v);
		free(u);
		return fd;
	}
	for (unsigned i = 0; i < rounds && !r; i++)
		if ((r = fault_round(fd, n, &v[i], &u[i])))
			r = set_err(err, -r, "page-fault measurement: mmap: %s", strerror(-r));
	close(fd);
	if (!r) {
		summarize(v, rounds, s); /* sorts v */
		*rest = v[rounds / 10];
		summarize(u, rounds, &us);
		if (unmap_page)
			*unmap_page = us.median;
	}
	free(v);
	free(u);
	return r;
}

double model_table_kib(const double f[MODEL_NFEAT])
{
	double relocs = f[MF_RELATIVE] + f[MF_LOOKUPS] + f[MF_CACHED] + f[MF_TLS] + f[MF_IFUNC];

	return (24 * relocs + 48 * f[MF_LOOKUPS]) / 1024;
}

static void warn(struct calib_result *res, char *msg)
{
	res->warnings = xrealloc(res->warnings, (res->nwarnings + 1) * sizeof *res->warnings);
	res->warnings[res->nwarnings++] = msg;
}

/*
 * What the exit path costs (_dl_fini walking the objects, the kernel
 * unmapping them): per object, per page relocation wrote (a private copy
 * freed at exit, which a static build never made), and per KiB of the
 * relocation and symbol tables ld.so read (page-cache pages mapped, and
 * unmapped at exit). The exit phase of every calibration program fitted on
 * them with an intercept by NNLS; objects-K, pages-N, relative-N and
 * symbolic-N vary them.
 */
static void exit_costs(const struct calib_result *res, struct model_coefs *m)
{
	double *A = xcalloc(res->n * 4 + 1, sizeof *A), *b = xcalloc(res->n + 1, sizeof *b), x[4];
	size_t k = 0;

	for (size_t i = 0; i < res->n; i++) {
		const double *f = &res->features[i * MODEL_NFEAT];
		if (isnan(res->exit_us[i]))
			continue;
		A[k * 4] = f[MF_OBJECTS];
		A[k * 4 + 1] = f[MF_PAGES];
		A[k * 4 + 2] = model_table_kib(f);
		A[k * 4 + 3] = 1;
		b[k++] = res->exit_us[i];
	}
	if (k >= 4 && !nnls(A, b, k, 4, x)) {
		m->exit_per_object_us = x[0];
		m->exit_per_page_us = x[1];
		m->exit_per_kib_us = x[2];
	}
	free(A);
	free(b);
}

int calibrate_machine(struct calib_result *res, struct errbuf *err)
{
	struct model_coefs *m = &res->coefs;
	struct summary f;
	double rest, hw = fmax(m->dynamic_fixed_hi - m->dynamic_fixed_us,
			       m->dynamic_fixed_us - m->dynamic_fixed_lo);
	int r = machine_fault_cost(41, &f, &rest, &m->unmap_page_us, err);

	if (r)
		return r;
	m->fault_us = f.median;
	m->fault_lo = f.ci_lo;
	m->fault_hi = f.ci_hi;
	m->fault_rest_us = rest;
	m->noise_pct = m->dynamic_fixed_us > 0 ? 100 * hw / m->dynamic_fixed_us : NAN;
	exit_costs(res, m);
	if (!(m->noise_pct <= CALIB_NOISE_MAX_PCT))
		warn(res,
		     xasprintf("the machine was busy: the fixed cost of being dynamic is known "
			       "only to \u00b1%.0f%% (more than %.0f%%); calibrate again on a "
			       "quiet machine",
			       m->noise_pct, CALIB_NOISE_MAX_PCT));
	if (m->line_contended_pct > CACHE_BUSY_PCT)
		warn(res, xasprintf("the machine was busy: the shared cache was contended in "
				    "%.0f%% of the runs (a line "
				    "read after an idle spell took %.0f ns, %.0f when hot): another "
				    "tenant streams through it; the fit kept the uncontended runs "
				    "where there were enough; calibrate again on a quieter machine",
				    m->line_contended_pct, m->line_ns, m->line_hot_ns));
	if (m->preempted_pct >= SCHED_BUSY_PCT)
		warn(res, xasprintf("the machine was busy: the scheduler preempted %.0f%% of the "
				    "runs for another task; calibrate again on a quieter machine",
				    m->preempted_pct));
	if (m->fault_us > CALIB_FAULT_BUSY_RATIO * rest)
		warn(res, xasprintf("the machine was busy: a page fault took %.2f us, %.1fx "
				    "its %.2f us at rest; calibrate again on a quiet machine",
				    m->fault_us, m->fault_us / rest, rest));
	return 0;
}
