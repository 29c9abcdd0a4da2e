/*
 * The lists ld.so derives once everything is loaded: the list of loaded
 * objects as LD_TRACE_LOADED_OBJECTS prints it (ld.so moved to where the
 * global scope has it), and the initialisation order, which relocation
 * walks backwards: glibc 2.36's default depth-first sort (elf/dl-sort-maps.c
 * _dl_sort_maps_dfs) of the scope, the program kept first.
 */
#include <stdlib.h>
#include <string.h>

#include "ldso/resolve.h"

void process_finish_lists(struct process *p);

/* rtld.c: ld.so leaves the list, then goes back right after the object
   that precedes it in the global scope (if anything needs it). */
static void build_chain(struct process *p)
{
	struct dso *rtld = p->rtld >= 0 ? p->obj[p->rtld] : NULL;

	p->chain = xcalloc(p->nobj + 1, sizeof *p->chain);
	for (size_t i = 0; i < p->nobj; i++)
		if (p->order[i] != p->rtld)
			p->chain[p->nchain++] = p->order[i];
	if (!rtld || rtld->scope_pos <= 0)
		return;
	int before = p->scope[rtld->scope_pos - 1];
	for (size_t i = 0; i < p->nchain; i++)
		if (p->chain[i] == before) {
			memmove(p->chain + i + 2, p->chain + i + 1,
				(p->nchain - i - 1) * sizeof *p->chain);
			p->chain[i + 1] = p->rtld;
			p->nchain++;
			return;
		}
}

struct dfs {
	struct process *p;
	bool *visited;
	int *rpo;
	size_t head; /* rpo is filled from the end */
};

static void dfs_visit(struct dfs *d, int obj)
{
	struct dso *o = d->p->obj[obj];

	if (d->visited[obj] || o->faked)
		return;
	d->visited[obj] = true;
	/* The program's own dependency list is still being built when ld.so
	   sorts, so the program contributes no edges. */
	if (!o->is_main)
		for (size_t i = 0; i < o->ndeps; i++) {
			int dep = o->deps[i].obj;
			if (dep >= 0 && !d->visited[dep] && !d->p->obj[dep]->is_main)
				dfs_visit(d, dep);
		}
	d->rpo[--d->head] = obj;
}

static void build_initorder(struct process *p)
{
	struct dfs d = {p, xcalloc(p->nobj, sizeof *d.visited), NULL, p->nscope};
	struct dso *m = p->obj[p->main];
	bool force_first = !(m->elf && m->elf->soname && !strcmp(m->elf->soname, "libc.so.6"));

	d.rpo = xcalloc(p->nscope + 1, sizeof *d.rpo);
	for (size_t i = p->nscope; i-- > 0 && d.head > 0;)
		dfs_visit(&d, p->scope[i]);
	if (force_first && p->nscope && d.rpo[0] != p->scope[0]) {
		size_t at = 0;
		while (at < p->nscope && d.rpo[at] != p->scope[0])
			at++;
		memmove(d.rpo + 1, d.rpo, at * sizeof *d.rpo);
		d.rpo[0] = p->scope[0];
	}
	p->initorder = d.rpo;
	p->ninit = p->nscope;
	free(d.visited);
}

void process_finish_lists(struct process *p)
{
	build_chain(p);
	build_initorder(p);
}

static void free_dso(struct dso *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nnames; i++)
		free(d->names[i]);
	for (size_t i = 0; i < d->ntried; i++)
		free(d->tried[i].path);
	for (size_t i = 0; i < d->ndeps; i++)
		free(d->deps[i].name);
	free(d->names);
	free(d->tried);
	free(d->deps);
	free(d->name);
	free(d->path);
	free(d->via_dir);
	free(d->origin);
	spath_free(d->rpath);
	spath_free(d->runpath);
	free(d);
}

void process_free(struct process *p)
{
	for (size_t i = 0; i < p->nobj; i++)
		free_dso(p->obj[i]);
	for (size_t i = 0; i < p->npreload_failed; i++) {
		free(p->preload_failed[i].name);
		free(p->preload_failed[i].why);
	}
	free(p->preload_failed);
	free(p->obj);
	free(p->order);
	free(p->chain);
	free(p->scope);
	free(p->initorder);
	spath_free(p->libpath);
	spath_free(p->defaults);
	if (p->dirs.hw)
		dirstate_free(&p->dirs);
	free(p->fatal);
	memset(p, 0, sizeof *p);
}

const char *found_via_name(enum found_via v)
{
	static const char *const names[] = {
		[VIA_MAIN] = "program",	   [VIA_INTERP] = "interpreter",
		[VIA_VDSO] = "vdso",	   [VIA_PATH] = "path",
		[VIA_RPATH] = "rpath",	   [VIA_LIBPATH] = "library-path",
		[VIA_RUNPATH] = "runpath", [VIA_CACHE] = "ld.so.cache",
		[VIA_DEFAULT] = "default", [VIA_NOT_FOUND] = "not-found",
	};
	return names[v];
}

const char *dep_how_name(enum dep_how h)
{
	static const char *const names[] = {
		[DEP_LOADED] = "loaded",       [DEP_NAME] = "name",	  [DEP_SONAME] = "soname",
		[DEP_SAME_FILE] = "same-file", [DEP_MISSING] = "missing", [DEP_SKIPPED] = "skipped",
	};
	return names[h];
}
