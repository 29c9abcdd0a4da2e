/*
 * Text output of `ldprof deps`: the dependency tree with the per-object
 * cost and fact tables, the ldd-like list, and the binding, unused and
 * missing listings.
 */
#include <stdlib.h>
#include <string.h>

#include "base/out/textsafe.h"
#include "model/deps-report.h"

static const char *short_name(const struct dso *d)
{
	return d->faked ? d->name : path_basename(dso_display(d));
}

/* "ld.so.cache", "RUNPATH of /x/liba.so, glibc-hwcaps/x86-64-v3/", ... */
static void print_via(FILE *f, const struct deps_report *r, const struct dso *d)
{
	const char *sub = "";

	if (d->via_dir && d->via_dir[0]) {
		const char *g = strstr(d->via_dir, "glibc-hwcaps/");
		sub = g ? g : "";
	}
	switch (d->via) {
	case VIA_RPATH:
	case VIA_RUNPATH:
		fprintf(f, "%s of %s", d->via == VIA_RPATH ? "RPATH" : "RUNPATH",
			term_safe(d->via_owner));
		break;
	case VIA_LIBPATH:
		fputs("--library-path", f);
		break;
	case VIA_CACHE:
		fputs("ld.so.cache", f);
		break;
	case VIA_DEFAULT:
		fputs("default directory", f);
		break;
	case VIA_PATH:
		fputs("path in DT_NEEDED", f);
		break;
	default:
		fputs(found_via_name(d->via), f);
	}
	if (*sub)
		fprintf(f, ", %.*s", (int)strlen(sub) - 1, sub);
	if (d->is_preload)
		fputs(", preload", f);
	(void)r;
}

/* "N symbols": what the requester takes from this dependency (the imports
   matrix along the tree's edges). */
static void print_symbols(FILE *f, const struct deps_report *r, int from, int obj)
{
	uint32_t n = bind_imports(&r->bs, from, obj);

	fprintf(f, "; %u symbol%s", n, n == 1 ? "" : "s");
}

static void tree_node(FILE *f, const struct deps_report *r, const char *name, int from, int obj,
		      int depth, bool *shown)
{
	const struct dso *d = r->p.obj[obj];

	fprintf(f, "%*s", 2 * depth, "");
	if (d->faked) {
		fprintf(f, "%s => not found (%zu paths tried)\n", term_safe(name), d->ntried);
		return;
	}
	if (shown[obj]) {
		fprintf(f, "%s (see above", term_safe(name));
		print_symbols(f, r, from, obj);
		fputs(")\n", f);
		return;
	}
	shown[obj] = true;
	if (strcmp(name, d->path))
		fprintf(f, "%s => %s (", term_safe(name), term_safe(d->path));
	else
		fprintf(f, "%s (", term_safe(name));
	print_via(f, r, d);
	print_symbols(f, r, from, obj);
	fputs(")\n", f);
	for (size_t i = 0; i < d->ndeps; i++) {
		const struct dso_dep *dep = &d->deps[i];
		if (dep->obj >= 0)
			tree_node(f, r, dep->name, obj, dep->obj, depth + 1, shown);
		else
			fprintf(f, "%*s%s (%s)\n", 2 * depth + 2, "", term_safe(dep->name),
				dep->how == DEP_SKIPPED ? "skipped: empty token expansion"
							: "not found");
	}
}

static void print_tree(FILE *f, const struct deps_report *r)
{
	const struct process *p = &r->p;
	const struct dso *m = p->obj[p->main];
	bool *shown = xcalloc(p->nobj + 1, sizeof *shown);

	shown[p->main] = true;
	for (size_t k = 0; k < p->nchain; k++) {
		const struct dso *d = p->obj[p->chain[k]];
		if (d->is_preload)
			tree_node(f, r, d->name, p->main, p->chain[k], 1, shown);
	}
	for (size_t i = 0; i < m->ndeps; i++) {
		if (m->deps[i].obj >= 0)
			tree_node(f, r, m->deps[i].name, p->main, m->deps[i].obj, 1, shown);
		else
			fprintf(f, "  %s (not found)\n", term_safe(m->deps[i].name));
	}
	if (p->vdso >= 0)
		fprintf(f, "  %s (vDSO, no file)\n", term_safe(p->obj[p->vdso]->path));
	free(shown);
}

static int name_width(const struct deps_report *r)
{
	int w = 6;

	for (size_t k = 0; k < r->p.nchain; k++) {
		int n = (int)strlen(short_name(r->p.obj[r->p.chain[k]]));
		if (n > w)
			w = n;
	}
	return w > 40 ? 40 : w;
}

static void cost_row(FILE *f, int w, const char *idx, const char *name, uint64_t relocs,
		     uint64_t relative, const struct lookup_work *l, uint64_t lazy, uint64_t pages,
		     uint64_t init)
{
	fprintf(f,
		"  %3s %-*.*s %7llu %8llu %7llu %6llu %5llu %7llu %9llu %7llu %7llu %5llu %4llu\n",
		idx, w, w, term_safe(name), (unsigned long long)relocs,
		(unsigned long long)relative, (unsigned long long)l->lookups,
		(unsigned long long)l->cached, (unsigned long long)lazy,
		(unsigned long long)l->probes, (unsigned long long)l->bloom_rejects,
		(unsigned long long)l->chain, (unsigned long long)l->strcmps,
		(unsigned long long)pages, (unsigned long long)init);
}

static void print_costs(FILE *f, const struct deps_report *r)
{
	int w = name_width(r);
	uint64_t tot[5] = {0};
	char idx[24];

	fputs("\nLoad order and startup cost (relocation work in ld.so's terms):\n", f);
	fprintf(f, "  %3s %-*s %7s %8s %7s %6s %5s %7s %9s %7s %7s %5s %4s\n", "#", w, "object",
		"relocs", "relative", "lookups", "cached", "lazy", "probes", "bloom-rej", "chain",
		"strcmp", "pages", "init");
	for (size_t k = 0; k < r->p.nchain; k++) {
		int oi = r->p.chain[k];
		const struct dso *d = r->p.obj[oi];
		const struct obj_binding *b = &r->bs.obj[oi];
		const struct elfobj *o = d->elf;
		uint64_t relocs = o ? reloc_counts_total(&o->relocs) : 0;
		uint64_t rel = o ? o->relocs.relative + o->relocs.relr : 0;
		snprintf(idx, sizeof idx, "%zu", k);
		cost_row(f, w, idx, short_name(d), relocs, rel, &b->work, b->deferred.lookups,
			 o ? o->reloc_pages : 0, o ? o->init_funcs : 0);
		tot[0] += relocs;
		tot[1] += rel;
		tot[2] += b->deferred.lookups;
		tot[3] += o ? o->reloc_pages : 0;
		tot[4] += o ? o->init_funcs : 0;
	}
	cost_row(f, w, "", "total", tot[0], tot[1], &r->bs.total, tot[2], tot[3], tot[4]);
}

static void fmt_size(char *buf, size_t n, uint64_t v)
{
	if (v >= 10u << 20)
		snprintf(buf, n, "%.1f MiB", v / 1048576.0);
	else
		snprintf(buf, n, "%.1f KiB", v / 1024.0);
}

static void facts_row(FILE *f, int w, size_t k, const struct dso *d, const struct obj_binding *b)
{
	const struct elfobj *o = d->elf;
	char hash[32], size[32];

	if (!o) {
		fprintf(f, "  %3zu %-*.*s not found\n", k, w, w, short_name(d));
		return;
	}
	if (o->hash.style == HASH_NONE)
		snprintf(hash, sizeof hash, "none");
	else
		snprintf(hash, sizeof hash, "%s %u/%.2f", elf_hash_style_name(o->hash.style),
			 o->hash.nbuckets, o->hash.avg_chain);
	fmt_size(size, sizeof size, dso_mapped_size(d));
	fprintf(f, "  %3zu %-*.*s %-14s %-9s %-5s %-7s %4u/%-4u %10s %5u %5zu\n", k, w, w,
		short_name(d), hash,
		!b->relocated ? "self"
		: b->lazy     ? "lazy"
			      : "now",
		o->relro_size ? "yes" : "no", o->textrel ? "yes" : "no", o->init_funcs,
		o->fini_funcs, size, (unsigned)o->nloads, o->nvneeds);
}

static void print_facts(FILE *f, const struct deps_report *r)
{
	int w = name_width(r);

	fputs("\nObjects (hash: style buckets/average chain; binding of PLT slots):\n", f);
	fprintf(f, "  %3s %-*s %-14s %-9s %-5s %-7s %9s %10s %5s %5s\n", "#", w, "object", "hash",
		"binding", "relro", "textrel", "init/fini", "mapped", "loads", "vers");
	for (size_t k = 0; k < r->p.nchain; k++) {
		int oi = r->p.chain[k];
		facts_row(f, w, k, r->p.obj[oi], &r->bs.obj[oi]);
	}
}

void deps_text_tree(FILE *f, const struct deps_report *r)
{
	const struct dso *m = r->p.obj[r->p.main];

	fprintf(f, "%s: %s", term_safe(r->file), elf_kind_name(m->elf->kind));
	if (m->elf->interp)
		fprintf(f, ", interpreter %s", term_safe(m->elf->interp));
	fputc('\n', f);
	if (r->p.is_static) {
		fputs("  statically linked: ld.so loads and binds nothing\n", f);
		return;
	}
	print_tree(f, r);
	if (r->p.fatal)
		fprintf(f, "  ld.so stops here: %s\n", term_clean(r->p.fatal));
	print_costs(f, r);
	print_facts(f, r);
	if (deps_report_has_missing(r))
		fputs("\nSomething is missing: see ldprof deps --missing.\n", f);
}

void deps_text_list(FILE *f, const struct deps_report *r, bool header)
{
	if (header)
		fprintf(f, "%s:\n", term_safe(r->file));
	if (r->p.is_static) {
		fputs("\tstatically linked\n", f);
		return;
	}
	for (size_t k = 1; k < r->p.nchain; k++) {
		const struct dso *d = r->p.obj[r->p.chain[k]];
		if (d->faked)
			fprintf(f, "\t%s => not found\n", term_safe(d->name));
		else if (!strcmp(d->name, d->path))
			fprintf(f, "\t%s (", term_safe(d->name));
		else
			fprintf(f, "\t%s => %s (", term_safe(d->name), term_safe(d->path));
		if (!d->faked) {
			print_via(f, r, d);
			fputs(")\n", f);
		}
	}
	if (r->p.fatal)
		fprintf(f, "\tld.so stops here: %s\n", term_clean(r->p.fatal));
}
