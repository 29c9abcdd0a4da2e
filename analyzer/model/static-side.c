#include "model/static-side.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static bool is_libc(const struct dso *d)
{
	return d->elf && d->elf->soname && !strncmp(d->elf->soname, "libc.so.", 8);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The resolvers libc's own IRELATIVE relocations call (their addends):
 * the IFUNCs libc resolves for itself, which a static start runs anyway.
 * Read here, not kept by elfobj, because only this prediction needs them.
 */
static size_t own_irelative(const struct elfobj *e, uint64_t **out)
{
	static const int64_t tab[][2] = {{DT_RELA, DT_RELASZ}, {DT_JMPREL, DT_PLTRELSZ}};
	size_t n = 0;

	*out = NULL;
	for (size_t t = 0; t < ARRAY_SIZE(tab); t++) {
		const GElf_Dyn *at = elfobj_dyn(e, tab[t][0]), *sz = elfobj_dyn(e, tab[t][1]);
		if (!at || !sz)
			continue;
		size_t cnt = sz->d_un.d_val / sizeof(Elf64_Rela);
		const Elf64_Rela *r =
			elfobj_table(e, at->d_un.d_ptr, cnt, sizeof(Elf64_Rela), 8);
		for (size_t i = 0; r && i < cnt; i++) {
			if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_IRELATIVE)
				continue;
			*out = xrealloc(*out, (n + 1) * sizeof **out);
			(*out)[n++] = (uint64_t)r[i].r_addend;
		}
	}
	if (n)
		qsort(*out, n, sizeof **out, cmp_u64);
	return n;
}

/* Sort and count the distinct values of v[0..n); v is reordered. */
static size_t distinct(uint64_t *v, size_t n)
{
	size_t k = 0;

	if (n)
		qsort(v, n, sizeof *v, cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

void static_side_facts(const struct deps_report *r, struct static_facts *sf)
{
	const struct process *p = &r->p;
	uint64_t *res = xcalloc(r->bs.n + 1, sizeof *res), *own = NULL;
	size_t nres = 0, nown = 0;
	int libc = -1;

	memset(sf, 0, sizeof *sf);
	for (size_t i = 0; i < p->nobj; i++)
		if (is_libc(p->obj[i]))
			libc = (int)i;
	for (size_t k = 0; libc >= 0 && k < r->bs.n; k++) {
		const struct binding *b = &r->bs.b[k];
		const struct elfobj *e = p->obj[libc]->elf;
		if (b->to != libc || b->from == libc || !(b->flags & BIND_IFUNC) || b->tsym >= e->nsyms)
			continue;
		res[nres++] = e->syms[b->tsym].st_value; /* an IFUNC's value is its resolver */
	}
	nres = distinct(res, nres);
	if (libc >= 0)
		nown = own_irelative(p->obj[libc]->elf, &own);
	sf->ifunc_bound = (uint32_t)nres;
	for (size_t k = 0; k < nres; k++)
		sf->ifunc_extra += !bsearch(&res[k], own, nown, sizeof *own, cmp_u64);
	sf->known = true;
	free(res);
	free(own);
}

double static_side_us(const struct model_coefs *m, const struct static_facts *sf)
{
	return sf->known ? sf->ifunc_extra * m->coef_us[MF_IFUNC] : 0;
}
