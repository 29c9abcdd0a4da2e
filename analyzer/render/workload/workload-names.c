/*
 * What the workload's text renderers share (workload-render.h):
 * durations in the unit that suits them, paths as the user typed them,
 * an exec's command line, all fit for a terminal.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/out/textsafe.h"
#include "render/workload/workload-render.h"

const char *wl_short_path(const struct trace *t, const char *path)
{
	static char here[PATH_MAX];
	const char *cwd = t->cwd;
	size_t n;

	/* run does not record its directory (record does): then it is ours. */
	if (!cwd)
		cwd = here[0] || getcwd(here, sizeof here) ? here : "";
	n = strlen(cwd);
	if (n > 1 && path && !strncmp(path, cwd, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

void wl_command(const struct trace *t, const struct tree_exec *e, char *buf, size_t n)
{
	char **argv = e->argv;
	size_t argc = e->argc, used = 0;

	buf[0] = 0;
	if (!argv) {
		snprintf(buf, n, "%s", term_safe(e->path ? wl_short_path(t, e->path) : e->comm));
		return;
	}
	for (size_t i = 0; i < argc && used + 1 < n; i++) {
		int k = snprintf(buf + used, n - used, "%s%s", i ? " " : "", term_safe(argv[i]));
		if (k < 0)
			break;
		used += (size_t)k;
	}
	if (used >= n && n > 4)
		memcpy(buf + n - 4, "...", 4);
}
