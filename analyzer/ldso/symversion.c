/*
 * The work of ld.so's version check (glibc 2.36 elf/dl-version.c,
 * _dl_check_all_versions), which the relocate phase runs before the first
 * relocation: for each object in load order, each file its DT_VERNEED
 * names is found among the loaded objects by name (find_needed), and each
 * version it needs by a walk of that file's DT_VERDEF list from its start,
 * hash first, then the names (match_symbol); then the object's own
 * definitions are walked for the highest index, and both lists again to
 * fill l_versions. Counted in the loader's terms, charged to the object
 * checked: its steps (the entries walked and the names compared, one
 * price, calibrated on versions-N: uprobes on _dl_check_all_versions put
 * an entry at 1.6 ns and a compare at 3.8, so cmake's 4392 compares, two
 * fifths of its steps, cost 11 us more than priced, ninja's 153 0.4), the
 * bytes compared, and the lines and pages of the
 * files those reads reach first (docs/model.md, "The version check").
 */
#include <string.h>

#include "ldso/symbind.h"

void version_check_work(const struct process *p, struct unique_table *u, struct bindset *bs);

/* A name compared: one step, and the bytes it reads (the most of file's
   any compare read in *longest). */
static bool name_matches(const char *file, const char *name, struct lookup_work *w,
			 uint64_t *longest)
{
	uint64_t bytes = 0;
	bool same = !lookup_name_cmp(file, name, &bytes);

	w->ver_entries++;
	w->cmp_bytes += bytes;
	if (bytes > *longest)
		*longest = bytes;
	return same;
}

/* find_needed: _dl_name_match_p over the loaded objects, in load order. */
static int find_needed(const struct process *p, const char *file, struct lookup_work *w,
		       uint64_t *longest)
{
	for (size_t k = 0; k < p->nchain; k++) {
		const struct dso *d = p->obj[p->chain[k]];
		if (name_matches(file, d->path, w, longest))
			return p->chain[k];
		for (size_t n = 0; n < d->nnames; n++)
			if (name_matches(file, d->names[n], w, longest))
				return p->chain[k];
	}
	return -1;
}

/* match_symbol: the needed file's definitions from the first, the hash
   compared, the names only when it agrees. */
static void match_version(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
			  const struct elf_vneed *vn, const struct elfobj *def)
{
	for (size_t i = 0; i < def->nvdefs; i++) {
		const struct elf_vdef *vd = &def->vdefs[i];
		w->ver_entries++;
		lookup_touch(u, w, def, vd->ent, sizeof(Elf64_Verdef));
		if (vd->hash != vn->hash)
			continue;
		uint64_t bytes = 0;
		lookup_touch(u, w, def, vd->aux, sizeof(Elf64_Verdaux));
		bool same = name_matches(vn->name, vd->name, w, &bytes);
		lookup_touch(u, w, o, vn->name, bytes);
		lookup_touch(u, w, def, vd->name, bytes);
		if (same)
			return;
	}
}

/*
 * l_versions, calloc'ed from ld.so's minimal malloc (the switch to libc's
 * comes after relocation), whose fresh pages, from mmap, take a fault at
 * their first write: a page of every 4096 bytes it takes, the mean over
 * where the array starts, in the 16ths the read faults count in and
 * priced as one of them.
 */
static void versions_array(const struct elfobj *o, struct lookup_work *w)
{
	/* struct r_found_version: name, hash, hidden, filename. */
	const uint64_t entry = 24;

	w->read_fault_16ths += ((uint64_t)o->nversions * entry * 16 + 2048) / 4096;
}

static void check_object(const struct process *p, struct unique_table *u, int oi,
			 struct lookup_work *w)
{
	const struct elfobj *o = p->obj[oi]->elf;
	const char *last_file = NULL;
	const struct elfobj *def = NULL;

	for (size_t i = 0; i < o->nvneeds; i++) {
		const struct elf_vneed *vn = &o->vneeds[i];
		if (vn->file != last_file) {
			uint64_t longest = 0;
			lookup_touch(u, w, o, vn->ent, sizeof(Elf64_Verneed));
			int needed = find_needed(p, vn->file, w, &longest);
			lookup_touch(u, w, o, vn->file, longest);
			def = needed >= 0 && !p->obj[needed]->faked ? p->obj[needed]->elf : NULL;
			last_file = vn->file;
		}
		lookup_touch(u, w, o, vn->aux, sizeof(Elf64_Vernaux));
		w->ver_entries++;
		if (def)
			match_version(u, w, o, vn, def);
	}
	for (size_t i = 0; i < o->nvdefs; i++)
		lookup_touch(u, w, o, o->vdefs[i].ent, sizeof(Elf64_Verdef));
	/* The highest index, then l_versions filled: both lists walked again,
	   their lines read already. */
	w->ver_entries += 2 * o->nvdefs + o->nvneeds;
	if (o->nvneeds || o->nvdefs)
		versions_array(o, w);
}

void version_check_work(const struct process *p, struct unique_table *u, struct bindset *bs)
{
	for (size_t k = 0; k < p->nchain; k++) {
		int oi = p->chain[k];
		if (p->obj[oi]->elf && !p->obj[oi]->faked)
			check_object(p, u, oi, &bs->obj[oi].versions);
	}
}
