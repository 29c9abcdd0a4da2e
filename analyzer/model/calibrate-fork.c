#include "model/calibrate-fork.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/interrupt.h"
#include "base/stats.h"
#include "model/minimal-pair.h"

/*
 * Forks a run of a program times, the median of them its figure; rounds
 * of the five, the median of their differences the price. With 9 rounds
 * of 40 the price with libc alone came out 71 and 149 us in two
 * calibrations an hour apart; with 25 of 100, 108 to 129 (about 8 s for
 * the five).
 */
#define FORKS_PER_RUN 100
#define ROUNDS	      25
#define ROUNDS_QUICK  7

/*
 * The child leaves by _exit at once. Built twice: bound at startup (-z
 * now), as the forking code of Debian's hardened libraries is (libgpgme's),
 * the price is the image's copy and teardown alone; bound lazily, as a
 * program whose own PLT slot for fork is, the child also looks _exit up
 * through every library, whose tables fork left unmapped in it: a page
 * fault each (docs/model.md, "The forks").
 */
static const char fork_source[] =
	"#include <stdio.h>\n#include <stdlib.h>\n#include <sys/wait.h>\n"
	"#include <time.h>\n#include <unistd.h>\n"
	"static double now(void)\n{\n\tstruct timespec t;\n"
	"\tclock_gettime(CLOCK_MONOTONIC, &t);\n\treturn t.tv_sec * 1e6 + t.tv_nsec / 1e3;\n}\n"
	"static int cmp(const void *a, const void *b)\n{\n"
	"\tdouble x = *(const double *)a, y = *(const double *)b;\n"
	"\treturn x < y ? -1 : x > y;\n}\n"
	"int main(int argc, char **argv)\n{\n"
	"\tint n = argc > 1 ? atoi(argv[1]) : 0;\n\tdouble t[1000];\n"
	"\tif (n < 1 || n > 1000)\n\t\treturn 2;\n"
	"\tfor (int i = 0; i < n; i++) {\n\t\tdouble a = now();\n\t\tpid_t p = fork();\n"
	"\t\tif (p == 0)\n\t\t\t_exit(0);\n\t\tif (p < 0 || waitpid(p, 0, 0) != p)\n"
	"\t\t\treturn 1;\n\t\tt[i] = now() - a;\n\t}\n"
	"\tqsort(t, n, sizeof t[0], cmp);\n\tprintf(\"%.3f\\n\", t[n / 2]);\n\treturn 0;\n}\n";

enum { P_STATIC, P_BASE, P_OBJECTS, P_BASE_LAZY, P_OBJECTS_LAZY, NPROGS };
static const char *const progs[NPROGS] = {"fork-static", "fork-base", "fork-objects",
					  "fork-base-lazy", "fork-objects-lazy"};

static int write_source(FILE *f, void *arg, struct errbuf *err)
{
	(void)arg, (void)err;
	fputs(fork_source, f);
	return 0;
}

int fork_build(const char *dir, struct errbuf *err)
{
	char *src = xasprintf("%s/fork.c", dir), *qd = sh_quote(dir), *libs = xstrdup(""), *cmd;
	int r = write_atomic(src, write_source, NULL, err);

	if (r)
		goto out;
	for (int i = 0; i < FORK_OBJECTS; i++) {
		char *more = xasprintf("%s -lfork-o%d", libs, i);
		free(libs);
		libs = more;
	}
	/* Each library one function: its mappings are what the fork copies. */
	cmd = xasprintf(
		"cd %s && i=0 && while [ $i -lt %d ]; do "
		"printf 'int fork_o%%d(void) { return %%d; }\n' $i $i > fork-o$i.c && "
		"%s -O1 -w -fPIC -shared -o libfork-o$i.so fork-o$i.c || exit 1; "
		"i=$((i + 1)); done && "
		"%s -O1 -w -static -o fork-static fork.c && "
		"%s -O1 -w -Wl,-z,now -o fork-base fork.c && "
		"%s -O1 -w -Wl,-z,now -o fork-objects fork.c -L. -Wl,--no-as-needed %s "
		"-Wl,-rpath,'$ORIGIN' && "
		"%s -O1 -w -Wl,-z,lazy -o fork-base-lazy fork.c && "
		"%s -O1 -w -Wl,-z,lazy -o fork-objects-lazy fork.c -L. -Wl,--no-as-needed %s "
		"-Wl,-rpath,'$ORIGIN'",
		qd, FORK_OBJECTS, calib_cc(), calib_cc(), calib_cc(), calib_cc(), libs, calib_cc(),
		calib_cc(), libs);
	r = calib_sh(cmd, err);
	free(cmd);
out:
	free(libs);
	free(qd);
	free(src);
	return r;
}

/* One run of prog: its median fork, in us. */
static int run_one(const char *dir, const char *prog, double *us, struct errbuf *err)
{
	char arg[16];

	snprintf(arg, sizeof arg, "%d", FORKS_PER_RUN);
	return calib_run_timed(dir, prog, arg, us, err);
}

int fork_measure(const char *dir, bool quick, struct fork_price *price, struct errbuf *err)
{
	size_t rounds = quick ? ROUNDS_QUICK : ROUNDS, k = 0;
	double fixed[ROUNDS], per[ROUNDS], lazy[ROUNDS], lazy_per[ROUNDS], us[NPROGS];
	int r = 0;

	for (size_t i = 0; i < rounds && !r; i++) {
		for (int p = 0; p < NPROGS && !r; p++)
			r = run_one(dir, progs[p], &us[p], err);
		if (!r && interrupt_requested())
			r = set_err(err, EINTR, "interrupted");
		if (r)
			break;
		fixed[k] = us[P_BASE] - us[P_STATIC];
		per[k] = (us[P_OBJECTS] - us[P_BASE]) / FORK_OBJECTS;
		lazy[k] = us[P_BASE_LAZY] - us[P_BASE];
		lazy_per[k++] =
			(us[P_OBJECTS_LAZY] - us[P_BASE_LAZY] - (us[P_OBJECTS] - us[P_BASE])) /
			FORK_OBJECTS;
	}
	if (!r) {
		price->fixed_us = fmax(0, median_picked(fixed, NULL, k, fixed));
		price->per_object_us = fmax(0, median_picked(per, NULL, k, per));
		price->lazy_fixed_us = fmax(0, median_picked(lazy, NULL, k, lazy));
		price->lazy_per_object_us = fmax(0, median_picked(lazy_per, NULL, k, lazy_per));
	}
	return r;
}

void fork_price_store(const struct fork_price *p, struct model_coefs *m)
{
	m->fork_fixed_us = p->fixed_us;
	m->fork_per_object_us = p->per_object_us;
	m->fork_lazy_fixed_us = p->lazy_fixed_us;
	m->fork_lazy_per_object_us = p->lazy_per_object_us;
}
