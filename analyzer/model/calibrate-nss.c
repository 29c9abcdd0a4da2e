#include "model/calibrate-nss.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/interrupt.h"
#include "base/stats.h"
#include "model/minimal-pair.h"

/* Each run is one lookup; about 2 ms a round of the two with the shell popen starts. */
#define ROUNDS	     41
#define ROUNDS_QUICK 11

/*
 * The lookup of the process's own user, timed around the call alone: what
 * runs before it (the start) is what the minimal pair prices, and so is
 * the first allocation (malloc_us), made before it: a dynamic build makes
 * it then, a static one at its start, and the lookup's own allocations
 * would otherwise price it twice. Bound at
 * startup (-z now): a lazily bound program's lookups of getpwuid and
 * getuid are priced apart (the lazy binds the shim counts).
 */
static const char nss_source[] =
	"#include <pwd.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
	"#include <sys/resource.h>\n#include <unistd.h>\n"
	"static double now(void)\n{\n\tstruct timespec t;\n"
	"\tclock_gettime(CLOCK_MONOTONIC, &t);\n\treturn t.tv_sec * 1e6 + t.tv_nsec / 1e3;\n}\n"
	"static long preempted(void)\n{\n\tstruct rusage u;\n"
	"\treturn getrusage(RUSAGE_SELF, &u) ? 0 : u.ru_nivcsw;\n}\n"
	"int main(void)\n{\n\tvoid *volatile q = malloc(1);\n\tfree(q);\n"
	"\tlong c = preempted();\n"
	"\tdouble a = now();\n\tstruct passwd *p = getpwuid(getuid());\n"
	"\tdouble b = now();\n"
	"\tprintf(\"%.3f %ld\\n\", b - a, preempted() - c);\n\treturn p ? 0 : 1;\n}\n";

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

/*
 * Rounds go on past the count wanted while others were preempted, up to
 * ROUNDS_TRIES times it, so that a machine busy for a moment (a shared
 * CI runner) still gives the price measured now.
 */
#define ROUNDS_TRIES 3

int nss_measure(const char *dir, bool quick, double *us, struct errbuf *err)
{
	size_t rounds = quick ? ROUNDS_QUICK : ROUNDS, k = 0, i;
	double diff[ROUNDS], st, dyn;
	long pst = 0, pdyn = 0;
	int r = 0;

	for (i = 0; i < ROUNDS_TRIES * rounds && k < rounds && !r; i++) {
		r = calib_run_timed(dir, "nss-static", "", &st, &pst, err);
		if (!r)
			r = calib_run_timed(dir, "nss-dynamic", "", &dyn, &pdyn, err);
		if (!r && interrupt_requested())
			r = set_err(err, EINTR, "interrupted");
		/*
		 * A round in which another task preempted either lookup holds
		 * that task's turn (3 to 7 ms beside a busy loop, a lookup's
		 * price being 100 to 200 us): left out.
		 */
		if (!r && !pst && !pdyn)
			diff[k++] = dyn - st;
	}
	if (!r && k < (rounds + 1) / 2)
		r = set_err(err, EAGAIN,
			    "the machine is busy: another task preempted the lookup in %zu of %zu "
			    "rounds",
			    i - k, i);
	if (!r)
		*us = fmax(0, median_picked(diff, NULL, k, diff));
	return r;
}
