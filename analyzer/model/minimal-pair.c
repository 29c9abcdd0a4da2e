#include "model/minimal-pair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/exit.h"
#include "base/pagecache.h"
#include "model/compare.h"

const char *calib_cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

int calib_sh(const char *cmd, struct errbuf *err)
{
	int st = system(cmd);

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		return set_err(err, ECHILD, "calibration build failed: %s", cmd);
	return 0;
}

int minimal_pair_build(const char *dir, struct errbuf *err)
{
	char *cmd = xasprintf("cd '%s' && printf 'int main(void){return 0;}\\n' > min.c && "
			      "%s -O1 -o min-dynamic min.c && %s -O1 -static -o min-static min.c",
			      dir, calib_cc(), calib_cc());
	int r = calib_sh(cmd, err);

	free(cmd);
	return r;
}

int minimal_pair_measure(const struct profile_opts *o, const char *dir, unsigned runs,
			 struct minimal_pair_cost *c)
{
	char *argv[4] = {xasprintf("%s/min-static", dir), NULL, xasprintf("%s/min-dynamic", dir),
			 NULL};
	struct profile_cmd cmds[2] = {{1, &argv[0]}, {1, &argv[2]}};
	struct profile_opts po = *o;
	struct trace t[2];
	struct compare cmp;
	int r;

	po.plan.runs = runs;
	po.follow = po.sample = po.sample_required = po.symbind = false;
	memset(t, 0, sizeof t);
	r = profile_programs(&po, 2, cmds, t, true);
	if (!r) {
		compare_totals(&t[0], &t[1], &cmp);
		*c = (struct minimal_pair_cost){cmp.diff.median, cmp.diff.lo, cmp.diff.hi,
						cmp.plain[0].median, cmp.pairs};
		compare_free(&cmp);
	}
	trace_free(&t[0]);
	trace_free(&t[1]);
	free(argv[0]);
	free(argv[2]);
	return r;
}

int minimal_pair_now(const struct profile_opts *o, unsigned runs, struct minimal_pair_cost *c)
{
	const char *tmpdir = getenv("TMPDIR");
	char *dir = xasprintf("%s/ldprof-fixed.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	struct errbuf err;
	int r = EXIT_FAIL;

	if (!mkdtemp(dir)) {
		error_msg("--fixed-runs: %s: %s", dir, strerror(errno));
		free(dir);
		return EXIT_FAIL;
	}
	/* Settled as calibrate's are: a fresh min-static ran 57 to 80 us faster. */
	if (minimal_pair_build(dir, &err) || page_cache_settle_dir(dir, &err))
		error_msg("--fixed-runs: the minimal pair: %s", err.msg);
	else
		r = minimal_pair_measure(o, dir, runs, c);
	char *rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm)) {
		/* A leftover temporary directory is not worth failing for. */
	}
	free(rm);
	free(dir);
	return r;
}
