/*
 * Unit tests for counting the forks of a program's own image in its
 * process tree (model/fork-census.h): the top's forks before it executes
 * anything else, and the forks of those forks before they execute (a
 * double fork's middle); not the forks of what they executed, nor the
 * top's after an exec of its own, nor a process whose parent was never
 * seen.
 */
#include <stdlib.h>

#include "model/fork-census.h"
#include "unit.h"

static struct tree_exec *execs(size_t n, const uint64_t *ts)
{
	struct tree_exec *e = xcalloc(n, sizeof *e);

	for (size_t i = 0; i < n; i++)
		e[i].ts = ts[i];
	return e;
}

static struct tree_proc proc(uint32_t parent, uint64_t fork_ts, size_t nexec, const uint64_t *ts)
{
	return (struct tree_proc){.parent = parent, .fork_ts = fork_ts,
				  .exec = nexec ? execs(nexec, ts) : NULL, .nexec = nexec};
}

static void test_double_fork(void)
{
	static const uint64_t top_ts[] = {100, 400}, mid_ts[] = {260};
	struct tree_proc p[] = {
		proc(TREE_NO_PROC, 100, 2, top_ts), /* the program, then an exec at 400 */
		proc(0, 200, 0, NULL),		     /* the top's fork: counted */
		proc(1, 250, 1, mid_ts),	     /* the middle's fork: counted; it execs at 260 */
		proc(2, 300, 0, NULL),		     /* forked by what 2 executed: not */
		proc(0, 500, 0, NULL),		     /* after the top's own exec: not */
		proc(TREE_NO_PROC, 600, 0, NULL),    /* parent never seen: not */
		proc(0, 390, 0, NULL),		     /* the top's, just before its exec: counted */
	};
	struct run_tree t = {.proc = p, .nproc = sizeof p / sizeof p[0]};

	CHECK(tree_image_forks(&t) == 3);
	for (size_t i = 0; i < t.nproc; i++)
		free(p[i].exec);
}

static void test_no_forks(void)
{
	static const uint64_t top_ts[] = {100};
	struct tree_proc p[] = {proc(TREE_NO_PROC, 100, 1, top_ts)};
	struct run_tree t = {.proc = p, .nproc = 1};

	CHECK(tree_image_forks(&t) == 0);
	free(p[0].exec);
}

/* A parent index out of range (a damaged tree) ends the walk: not counted, no read past. */
static void test_bad_parent(void)
{
	static const uint64_t top_ts[] = {100};
	struct tree_proc p[] = {proc(TREE_NO_PROC, 100, 1, top_ts), proc(7, 200, 0, NULL),
				proc(1, 300, 0, NULL)};
	struct run_tree t = {.proc = p, .nproc = 3};

	CHECK(tree_image_forks(&t) == 0);
	free(p[0].exec);
}

int main(void)
{
	test_double_fork();
	test_no_forks();
	test_bad_parent();
	return unit_done("fork_census_test");
}
