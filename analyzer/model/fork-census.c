#include "model/fork-census.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/launch.h"

/* How many of p's executions had begun by ts. */
static size_t execs_by(const struct tree_proc *p, uint64_t ts)
{
	size_t k = 0;

	while (k < p->nexec && p->exec[k].ts <= ts)
		k++;
	return k;
}

/*
 * Whether process i ran the top program's image at ts: the top until its
 * second exec (its first is the program's own), any other process until
 * its first, inheriting its parent's image at its fork.
 */
static bool runs_top_image(const struct run_tree *t, uint32_t i, uint64_t ts)
{
	for (size_t hops = 0; hops <= t->nproc && i < t->nproc; hops++) {
		const struct tree_proc *p = &t->proc[i];
		size_t k = execs_by(p, ts);
		if (i == 0)
			return k <= 1;
		if (k)
			return false;
		ts = p->fork_ts;
		i = p->parent;
	}
	return false; /* a parent not seen forked: not the program's */
}

uint32_t tree_image_forks(const struct run_tree *t)
{
	uint32_t n = 0;

	for (size_t i = 1; i < t->nproc; i++) {
		const struct tree_proc *p = &t->proc[i];
		if (p->parent != TREE_NO_PROC && runs_top_image(t, p->parent, p->fork_ts))
			n++;
	}
	return n;
}

int fork_census(const struct trace *t, double timeout_s, uint32_t *forks, struct errbuf *err)
{
	struct launch_opts lo = {.path = t->program,
				 .argv = t->argv,
				 .timeout_s = timeout_s,
				 .profiled = true,
				 .follow = true};
	struct launcher l;
	struct trace scratch;
	struct trace_run *r;
	int ret;

	if ((ret = launcher_init(&l, &lo, err)))
		return ret;
	trace_init(&scratch, t->argc, t->argv);
	r = trace_add_run(&scratch);
	ret = launcher_run(&l, true, &scratch, r, err);
	if (!ret && !r->tree)
		ret = set_err(err, EIO, "no process tree came back");
	if (!ret)
		*forks = tree_image_forks(r->tree);
	trace_free(&scratch);
	launcher_fini(&l);
	return ret;
}
