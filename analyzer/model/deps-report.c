/*
 * Building a deps report: simulate loading and binding, then derive the
 * unused dependencies and explain each missing symbol.
 */
#include "model/deps-report.h"

#include <stdlib.h>
#include <string.h>

const char *reloc_type_name(uint32_t type)
{
	static const char *const names[] = {
		[R_X86_64_NONE] = "NONE",
		[R_X86_64_64] = "64",
		[R_X86_64_PC32] = "PC32",
		[R_X86_64_GOT32] = "GOT32",
		[R_X86_64_PLT32] = "PLT32",
		[R_X86_64_COPY] = "COPY",
		[R_X86_64_GLOB_DAT] = "GLOB_DAT",
		[R_X86_64_JUMP_SLOT] = "JUMP_SLOT",
		[R_X86_64_RELATIVE] = "RELATIVE",
		[R_X86_64_GOTPCREL] = "GOTPCREL",
		[R_X86_64_32] = "32",
		[R_X86_64_32S] = "32S",
		[R_X86_64_16] = "16",
		[R_X86_64_PC16] = "PC16",
		[R_X86_64_8] = "8",
		[R_X86_64_PC8] = "PC8",
		[R_X86_64_DTPMOD64] = "DTPMOD64",
		[R_X86_64_DTPOFF64] = "DTPOFF64",
		[R_X86_64_TPOFF64] = "TPOFF64",
		[R_X86_64_TLSGD] = "TLSGD",
		[R_X86_64_TLSLD] = "TLSLD",
		[R_X86_64_DTPOFF32] = "DTPOFF32",
		[R_X86_64_GOTTPOFF] = "GOTTPOFF",
		[R_X86_64_TPOFF32] = "TPOFF32",
		[R_X86_64_PC64] = "PC64",
		[R_X86_64_GOTOFF64] = "GOTOFF64",
		[R_X86_64_GOTPC32] = "GOTPC32",
		[R_X86_64_SIZE32] = "SIZE32",
		[R_X86_64_SIZE64] = "SIZE64",
		[R_X86_64_TLSDESC] = "TLSDESC",
		[R_X86_64_IRELATIVE] = "IRELATIVE",
		[R_X86_64_RELATIVE64] = "RELATIVE64",
	};
	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "unknown";
}

const char *dso_role(const struct dso *d)
{
	if (d->is_main)
		return "program";
	if (d->is_rtld)
		return "interpreter";
	if (d->is_vdso)
		return "vdso";
	if (d->is_preload)
		return "preload";
	return d->faked ? "missing" : "library";
}

const char *dso_display(const struct dso *d)
{
	return d->is_main ? d->name : d->path;
}

uint64_t dso_mapped_size(const struct dso *d)
{
	uint64_t sum = 0;

	for (size_t i = 0; d->elf && i < d->elf->nloads; i++)
		sum += d->elf->loads[i].memsz;
	return sum;
}

static uint32_t imported_by_others(const struct deps_report *r, int dep)
{
	uint32_t n = 0;

	for (size_t i = 0; i < r->p.nobj; i++)
		if ((int)i != dep)
			n += bind_imports(&r->bs, (int)i, dep);
	return n;
}

static void find_unused(struct deps_report *r)
{
	size_t cap = 0;

	for (size_t k = 0; k < r->p.nchain; k++) {
		const struct dso *d = r->p.obj[r->p.chain[k]];
		for (size_t i = 0; d->elf && i < d->ndeps; i++) {
			const struct dso_dep *dep = &d->deps[i];
			if (dep->obj < 0 || dep->filter || dep->auxiliary ||
			    r->p.obj[dep->obj]->faked ||
			    bind_imports(&r->bs, r->p.chain[k], dep->obj))
				continue;
			GROW(r->unused, cap, r->nunused);
			r->unused[r->nunused++] =
				(struct unused_dep){r->p.chain[k], dep->obj, dep->name,
						    !imported_by_others(r, dep->obj)};
		}
	}
}

/* A defined, exported-looking symbol named name in o, or UINT32_MAX. */
static uint32_t find_definition(const struct elfobj *o, const char *name)
{
	for (uint32_t i = 1; i < o->nsyms; i++)
		if (o->syms[i].st_shndx != SHN_UNDEF && !strcmp(elfobj_sym_name(o, i), name))
			return i;
	return UINT32_MAX;
}

/* Nothing defines it: name a library that was not found, the requester's
   own first, as the likely home of the symbol. */
static char *missing_library_hint(const struct deps_report *r, int from)
{
	const struct process *p = &r->p;
	const struct dso *d = p->obj[from];

	for (size_t i = 0; i < d->ndeps; i++)
		if (d->deps[i].obj >= 0 && p->obj[d->deps[i].obj]->faked)
			return xasprintf("no object in the global scope defines it; %s, which it "
					 "needs, was not found",
					 d->deps[i].name);
	for (size_t k = 0; k < p->nchain; k++)
		if (p->obj[p->chain[k]]->faked)
			return xasprintf("no object in the global scope defines it; %s was not "
					 "found",
					 p->obj[p->chain[k]]->name);
	return xstrdup("no object in the global scope defines it");
}

static char *explain(const struct deps_report *r, const struct binding *b)
{
	const struct process *p = &r->p;
	const struct elfobj *o = p->obj[b->from]->elf;
	const struct elf_version *v = elfobj_sym_version(o, b->sym);

	for (size_t k = 0; v->file && k < p->nchain; k++) {
		const struct dso *d = p->obj[p->chain[k]];
		if (d->faked && !strcmp(d->name, v->file))
			return xasprintf("version %s belongs to %s, which was not found", v->name,
					 v->file);
	}
	for (size_t k = 0; b->version && k < r->bs.nvp; k++) {
		const struct version_problem *vp = &r->bs.vp[k];
		if (vp->obj == b->from && vp->kind == VP_NOT_FOUND &&
		    !strcmp(vp->version, b->version))
			return xasprintf("%s has no version %s", vp->file, vp->version);
	}
	for (size_t k = 0; k < p->nscope; k++) {
		const struct dso *d = p->obj[p->scope[k]];
		uint32_t i = d->elf ? find_definition(d->elf, b->name) : UINT32_MAX;
		if (i == UINT32_MAX)
			continue;
		const Elf64_Sym *s = &d->elf->syms[i];
		const struct elf_version *dv = elfobj_sym_version(d->elf, i);
		unsigned vis = ELF64_ST_VISIBILITY(s->st_other);
		if (ELF64_ST_BIND(s->st_info) == STB_LOCAL || vis == STV_HIDDEN ||
		    vis == STV_INTERNAL)
			return xasprintf("%s has it, but not exported (local or hidden)",
					 dso_display(d));
		if (b->version && dv->name && strcmp(dv->name, b->version))
			return xasprintf("%s defines it only as version %s", dso_display(d),
					 dv->name);
		if (d->elf->versym && (d->elf->versym[i] & 0x8000) && !b->version)
			return xasprintf("%s defines it only as a hidden version (%s)",
					 dso_display(d), dv->name ? dv->name : "?");
	}
	return missing_library_hint(r, b->from);
}

static void find_missing(struct deps_report *r)
{
	size_t cap = 0;

	for (size_t i = 0; i < r->bs.n; i++) {
		const struct binding *b = &r->bs.b[i];
		struct missing_symbol *m = NULL;
		if (!(b->flags & BIND_MISSING))
			continue;
		for (size_t k = 0; k < r->nmissing; k++)
			if (r->missing[k].obj == b->from && !strcmp(r->missing[k].name, b->name) &&
			    (r->missing[k].version == b->version ||
			     (r->missing[k].version && b->version &&
			      !strcmp(r->missing[k].version, b->version))))
				m = &r->missing[k];
		if (!m) {
			GROW(r->missing, cap, r->nmissing);
			m = &r->missing[r->nmissing++];
			*m = (struct missing_symbol){b->from, b->name, b->version,
						     0,	      true,    explain(r, b)};
		}
		m->relocations++;
		m->untraced &= (b->flags & BIND_UNTRACED) != 0;
	}
}

int deps_report_build(struct ldenv *env, const char *file, const struct deps_options *opt,
		      struct deps_report *r, struct errbuf *err)
{
	struct bind_options bo = {opt->bind_now, opt->cold_lines};
	int ret;

	memset(r, 0, sizeof *r);
	r->file = file;
	if ((ret = process_load(env, file, &r->p, err)))
		return ret;
	bind_process(&r->p, &bo, &r->bs);
	r->pos = xcalloc(r->p.nobj + 1, sizeof *r->pos);
	for (size_t i = 0; i < r->p.nobj; i++)
		r->pos[i] = -1;
	for (size_t k = 0; k < r->p.nchain; k++) {
		r->pos[r->p.chain[k]] = (int)k;
		if (r->p.obj[r->p.chain[k]]->faked)
			r->missing_libs++;
	}
	for (size_t i = 0; i < r->bs.nvp; i++)
		r->version_errors += r->bs.vp[i].kind == VP_NOT_FOUND;
	find_unused(r);
	find_missing(r);
	return 0;
}

bool deps_report_has_missing(const struct deps_report *r)
{
	return r->missing_libs || r->nmissing || r->version_errors || r->p.fatal ||
	       r->p.npreload_failed;
}

void deps_report_free(struct deps_report *r)
{
	for (size_t i = 0; i < r->nmissing; i++)
		free(r->missing[i].why);
	free(r->missing);
	free(r->unused);
	free(r->pos);
	bindset_free(&r->bs);
	process_free(&r->p);
	memset(r, 0, sizeof *r);
}
