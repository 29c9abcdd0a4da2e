#include "model/calibrate-unwind.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "elf/elfobj.h"
#include "model/compare.h"
#include "model/fde-order.h"
#include "model/minimal-pair.h"
#include "model/model.h"
#include "model/static-side.h"
#include "run/profile.h"

int unwind_write_source(const char *path, unsigned nfuncs, struct errbuf *err)
{
	FILE *f = fopen(path, "w");
	int r = 0;

	if (!f)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	fprintf(f, "#include <unwind.h>\n");
	/* noinline and used: each keeps its own FDE; none is ever called. */
	for (unsigned i = 0; i < nfuncs; i++)
		fprintf(f,
			"__attribute__((noinline, used)) int f%u(int x) { return x * %u + 1; }\n",
			i, i);
	fprintf(f, "static _Unwind_Reason_Code frame(struct _Unwind_Context *c, void *n)\n"
		   "{ (void)c; ++*(int *)n; return _URC_NO_REASON; }\n"
		   "int main(int argc, char **argv)\n"
		   "{ int n = 0; (void)argv; if (argc > 1) _Unwind_Backtrace(frame, &n);"
		   " return n > 1000; }\n");
	if (ferror(f))
		r = set_err(err, EIO, "%s: write failed", path);
	if (fclose(f) && !r)
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
	return r;
}

/* The FDEs the program's first unwind sorts (its erratic ones, fde-order.h). */
static int count_fdes(const char *prog, uint32_t *n, struct errbuf *err)
{
	struct elfobj *e;
	struct fde_order fo;
	int r = elfobj_open(prog, &e, err);

	if (r)
		return r;
	fde_order(e, &fo);
	elfobj_close(e);
	*n = fo.erratic;
	return *n > 1 ? 0 : set_err(err, ENOEXEC, "%s: no FDEs out of order to sort", prog);
}

int unwind_build(const char *dir, bool quick, struct errbuf *err)
{
	char *src = xasprintf("%s/unwind.c", dir), *cmd;
	int r = unwind_write_source(src, quick ? UNWIND_FUNCS_QUICK : UNWIND_FUNCS, err);

	if (!r) {
		char *qd = sh_quote(dir);
		cmd = xasprintf("cd %s && %s -O1 -w -static -o unwind-static unwind.c", qd,
				calib_cc());
		free(qd);
		r = calib_sh(cmd, err);
		free(cmd);
	}
	free(src);
	return r;
}

int unwind_measure(const struct profile_opts *o, unsigned runs, const char *prog,
		   struct unwind_prices *up, struct errbuf *err)
{
	char *argv[5] = {(char *)prog, NULL, (char *)prog, "unwind", NULL};
	struct profile_cmd cmds[2] = {{1, &argv[0]}, {2, &argv[2]}};
	struct profile_opts po;
	struct trace t[2];
	uint32_t n;
	int r = count_fdes(prog, &n, err);

	if (r)
		return r;
	/* Two static programs: no fixed cost, no census, nothing sampled. */
	profile_opts_timed_only(o, runs, &po);
	memset(t, 0, sizeof t);
	if ((r = profile_programs(&po, 2, cmds, t, true)))
		r = set_err(err, EIO, "the unwind pair's runs failed");
	if (!r) {
		double per = n * log2(n);
		struct interval d;
		up->fdes = n;
		bool calm = calm_pair_difference(t, &d);
		up->busy += !calm;
		if (calm && d.lo > 0 && up->n < UNWIND_PASSES) {
			up->lo[up->n] = d.lo / per;
			up->hi[up->n] = d.hi / per;
			up->price[up->n++] = d.median / per;
		}
	}
	trace_free(&t[0]);
	trace_free(&t[1]);
	return r;
}

void unwind_prices_apply(const struct unwind_prices *up, unsigned nfuncs, struct model_coefs *m)
{
	double p[UNWIND_PASSES];

	/* What libc and libgcc_eh add to the program's own functions. */
	if (up->fdes)
		m->fde_floor = up->fdes > nfuncs ? up->fdes - nfuncs : 0;
	if (!up->n)
		return;
	memcpy(p, up->price, up->n * sizeof *p);
	qsort(p, up->n, sizeof *p, cmp_double);
	m->fde_sort_us = up->n % 2 ? p[up->n / 2] : (p[up->n / 2 - 1] + p[up->n / 2]) / 2;
	/* One pass has no range of passes: its own CI stands for it. */
	m->fde_sort_lo = up->n > 1 ? p[0] : up->lo[0];
	m->fde_sort_hi = up->n > 1 ? p[up->n - 1] : up->hi[0];
}
