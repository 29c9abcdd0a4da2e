#include "base/tsc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int tsc_check(struct errbuf *err)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int constant = 0, nonstop = 0, found = 0;

	if (!f) {
		int e = errno;
		return set_err(err, e, "/proc/cpuinfo: %s%s", strerror(e), fd_limit_hint(e));
	}
	while (!found && fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5))
			continue;
		found = 1;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
	}
	fclose(f);
	if (!constant || !nonstop)
		return set_err(err, ENOTSUP,
			       "this CPU has no invariant TSC (constant_tsc and nonstop_tsc), "
			       "which ldprof's shim uses as its clock");
	return 0;
}

/* A (ns, tsc) pair taken as close together as we can manage. */
static void pair(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = mono_ns(), t = tsc_now(), b = mono_ns();
		if (b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*tsc = t;
		}
	}
}

void tsc_cal_begin(struct tsc_cal *c)
{
	pair(&c->ns0, &c->tsc0);
}

double tsc_cal_end(const struct tsc_cal *c)
{
	uint64_t ns = 0, tsc = 0;

	while (mono_ns() - c->ns0 < 20000000u)
		;
	pair(&ns, &tsc);
	return (double)(tsc - c->tsc0) * 1e9 / (double)(ns - c->ns0);
}
