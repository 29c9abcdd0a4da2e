#include "model/calibrate-nss.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/minimal-pair.h"
#include "run/profile.h"
#include "trace/trace.h"

/*
 * Rounds of the four programs: about 0.5 ms a run here. The difference of
 * two differences of medians wants many: 200 rounds gave 19.7 to 29.0 us
 * in three runs a minute apart, 500 rounds 20.1 to 22.0 in four (about 3 s
 * in all).
 */
#define RUNS	   500
#define RUNS_QUICK 100

/*
 * The lookup of the process's own user, given an argument; without one,
 * the same program but for the lookup. Both allocate first: a dynamic
 * build initializes malloc at its first allocation, a static one at its
 * start, and the minimal pair prices that (malloc_us); both print, as a
 * program goes on after a lookup. Bound at startup (-z now): a lazily
 * bound program's lookups of getpwuid and getuid are priced apart (the
 * lazy binds the shim counts).
 */
static const char nss_source[] =
	"#include <pwd.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
	"int main(int argc, char **argv)\n{\n\tvoid *volatile q = malloc(1);\n\tfree(q);\n"
	"\tuid_t u = getuid();\n\tstruct passwd *p = argc > 1 ? getpwuid(u) : NULL;\n"
	"\t(void)argv;\n\tprintf(\"%d\\n\", p != NULL);\n\treturn 0;\n}\n";

static int write_source(FILE *f, void *arg, struct errbuf *err)
{
	(void)arg, (void)err;
	fputs(nss_source, f);
	return 0;
}

int nss_build(const char *dir, struct errbuf *err)
{
	char *src = xasprintf("%s/nss.c", dir), *qd = sh_quote(dir), *cmd;
	int r = write_atomic(src, write_source, NULL, err);

	/* The static link warns that NSS modules would need the shared libc: files needs none. */
	if (!r) {
		cmd = xasprintf("cd %s && %s -O1 -w -static -o nss-static nss.c 2>/dev/null && "
				"%s -O1 -w -Wl,-z,now -o nss-dynamic nss.c",
				qd, calib_cc(), calib_cc());
		r = calib_sh(cmd, err);
		free(cmd);
	}
	free(qd);
	free(src);
	return r;
}

int nss_measure(const struct profile_opts *o, const char *dir, bool quick, double *us,
		struct errbuf *err)
{
	char *st = xasprintf("%s/nss-static", dir), *dyn = xasprintf("%s/nss-dynamic", dir);
	char *argv[] = {st, NULL, st, "lookup", NULL, dyn, NULL, dyn, "lookup", NULL};
	struct profile_cmd cmds[4] = {{1, &argv[0]}, {2, &argv[2]}, {1, &argv[5]}, {2, &argv[7]}};
	struct profile_opts po;
	struct interval ds, dd;
	struct trace t[4];
	int r;

	/* No fixed cost, no census, nothing sampled: whole runs, plain. */
	profile_opts_timed_only(o, quick ? RUNS_QUICK : RUNS, &po);
	memset(t, 0, sizeof t);
	if ((r = profile_programs(&po, 4, cmds, t, true)))
		r = r == 130 ? set_err(err, EINTR, "interrupted")
			     : set_err(err, EIO, "the NSS pair's runs failed");
	/* Each side's lookup from the runs no other task preempted on a busy machine. */
	if (!r && (!calm_pair_difference(&t[0], &ds) || !calm_pair_difference(&t[2], &dd)))
		r = set_err(err, EAGAIN,
			    "the machine is busy: too few of the NSS programs' runs escaped "
			    "preemption");
	if (!r)
		*us = fmax(0, dd.median - ds.median);

	for (size_t i = 0; i < 4; i++)
		trace_free(&t[i]);
	free(st);
	free(dyn);
	return r;
}
