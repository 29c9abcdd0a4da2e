/*
 * What follows from the bindings: the imports matrix, and ld.so's version
 * checks (glibc 2.36 elf/dl-version.c, _dl_check_map_versions), which run
 * before relocation and stop a normal start when a required version is
 * missing.
 */
#include <stdlib.h>
#include <string.h>

#include "ldso/symbind.h"

void bind_versions(struct process *p, struct bindset *bs);
void bind_imports_compute(struct process *p, struct bindset *bs);

/*
 * Distinct symbols per (importer, exporter): bindings come grouped by
 * importer (relocation order), so a stamp per symbol index of the importer
 * tells whether a symbol was counted already.
 */
void bind_imports_compute(struct process *p, struct bindset *bs)
{
	uint32_t *stamp = NULL;
	size_t cap = 0;
	uint32_t round = 0;
	int cur = -1;

	bs->imports = xcalloc(p->nobj * p->nobj + 1, sizeof *bs->imports);
	for (size_t i = 0; i < bs->n; i++) {
		const struct binding *b = &bs->b[i];
		if (b->to < 0 || (b->flags & (BIND_VDSO | BIND_LDSO)))
			continue;
		if (b->from != cur) {
			uint32_t n = p->obj[b->from]->elf->nsyms;
			if (n > cap) {
				free(stamp);
				cap = n;
				stamp = xcalloc(cap, sizeof *stamp);
				round = 0;
			}
			cur = b->from;
			round++;
		}
		if (stamp[b->sym] == round)
			continue;
		stamp[b->sym] = round;
		bs->imports[(size_t)b->from * p->nobj + (size_t)b->to]++;
	}
	free(stamp);
}

/* find_needed: the first loaded object (stand-ins included) the name
   matches, as _dl_name_match_p. */
static int find_needed(const struct process *p, const char *file)
{
	for (size_t k = 0; k < p->nchain; k++) {
		const struct dso *d = p->obj[p->chain[k]];
		if (!strcmp(d->path, file))
			return p->chain[k];
		for (size_t n = 0; n < d->nnames; n++)
			if (!strcmp(d->names[n], file))
				return p->chain[k];
	}
	return -1;
}

static bool defines_version(const struct elfobj *o, uint32_t hash, const char *name)
{
	for (size_t i = 0; i < o->nvdefs; i++)
		if (o->vdefs[i].hash == hash && !strcmp(o->vdefs[i].name, name))
			return true;
	return false;
}

static void add_problem(struct bindset *bs, int obj, const struct elf_vneed *vn, int kind)
{
	GROW(bs->vp, bs->capvp, bs->nvp);
	bs->vp[bs->nvp++] = (struct version_problem){obj, vn->file, vn->name, kind};
}

static void check_object(struct process *p, struct bindset *bs, int oi)
{
	const struct elfobj *o = p->obj[oi]->elf;
	const char *last_file = NULL;
	int needed = -1;

	for (size_t i = 0; i < o->nvneeds; i++) {
		const struct elf_vneed *vn = &o->vneeds[i];
		if (vn->file != last_file) {
			needed = find_needed(p, vn->file);
			last_file = vn->file;
			/* "no version information available": reported once per file */
			if (needed >= 0 && p->obj[needed]->elf && !p->obj[needed]->elf->nvdefs)
				add_problem(bs, oi, vn, VP_NO_VERSION_INFO);
		}
		/* A stand-in for a missing library is not checked (trace mode). */
		if (needed < 0 || !p->obj[needed]->elf || !p->obj[needed]->elf->nvdefs)
			continue;
		if (!defines_version(p->obj[needed]->elf, vn->hash, vn->name))
			add_problem(bs, oi, vn, vn->weak ? VP_WEAK_NOT_FOUND : VP_NOT_FOUND);
	}
}

void bind_versions(struct process *p, struct bindset *bs)
{
	for (size_t k = 0; k < p->nchain; k++) {
		int oi = p->chain[k];
		if (p->obj[oi]->elf && !p->obj[oi]->faked)
			check_object(p, bs, oi);
	}
}
