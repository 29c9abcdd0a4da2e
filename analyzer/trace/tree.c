/* Freeing a run's process tree (tree.h). */
#include <stdlib.h>

#include "trace/tree.h"

static void exec_free(struct tree_exec *e)
{
	free(e->path);
	free(e->comm);
	for (size_t i = 0; i < e->argc; i++)
		free(e->argv[i]);
	free(e->argv);
	free(e->ev);
}

void run_tree_free(struct run_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nproc; i++) {
		for (size_t k = 0; k < t->proc[i].nexec; k++)
			exec_free(&t->proc[i].exec[k]);
		free(t->proc[i].exec);
	}
	free(t->proc);
	*t = (struct run_tree){ 0 };
}

const char *tree_exec_kind_name(enum tree_exec_kind k)
{
	static const char *const name[] = {
		[TREE_EXEC_SHIM] = "shim",     [TREE_EXEC_STATIC] = "static",
		[TREE_EXEC_SETUID] = "setuid", [TREE_EXEC_NO_SHIM] = "no_shim",
		[TREE_EXEC_LOST] = "lost",     [TREE_EXEC_UNKNOWN] = "unknown",
	};

	return (unsigned)k < sizeof name / sizeof *name ? name[k] : NULL;
}
