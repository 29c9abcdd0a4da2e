#include "model/static-side.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "model/fde-order.h"
#include "model/static-archives.h"
#include "trace/trace.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
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
		const Elf64_Rela *r = elfobj_table(e, at->d_un.d_ptr, cnt, sizeof(Elf64_Rela), 8);
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

/*
 * libc's functions that go through NSS: a static glibc build has only the
 * sources built into libc (files, dns) without the shared libc at run
 * time, and some static builds leave the lookups out. Debian's zsh-static
 * does: it never opens /etc/passwd, which dynamic zsh's getpwuid reads (a
 * getpwuid costs a dynamic program 74 us here, 1000 interleaved runs).
 */
static bool is_nss(const char *name)
{
	static const char *const prefixes[] = {
		"getpw",      "getgr",	  "getsp",	"getaddrinfo",	"gethostby", "getservby",
		"getprotoby", "getnetby", "initgroups", "getgrouplist", "getlogin",  "getnameinfo"};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * libc's functions that start a process by a fork: a dynamic process
 * forks slower than a static one (the kernel copies its many mappings,
 * and a child that execs tears them down), which the verdict cannot
 * count: a run does not say how often the program forks.
 */
static bool is_spawn(const char *name)
{
	static const char *const names[] = {"fork",	    "vfork",  "_Fork", "posix_spawn",
					    "posix_spawnp", "system", "popen", "clone"};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static void note_nss(struct static_facts *sf, const char *name)
{
	if (!sf->nss_calls++)
		snprintf(sf->nss_example, sizeof sf->nss_example, "%s", name);
}

/* Does the object define _Unwind_Find_FDE: is it the unwinder (libgcc_s)? */
static bool is_unwinder(const struct elfobj *e)
{
	for (uint32_t i = 0; e && i < e->nsyms; i++)
		if (e->syms[i].st_shndx != SHN_UNDEF &&
		    !strcmp(elfobj_sym_name(e, i), "_Unwind_Find_FDE"))
			return true;
	return false;
}

static uint32_t clamp32(uint64_t n)
{
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/*
 * The C and C++ runtime: general-purpose libraries of which a static link
 * keeps only the archive members the program needs, a small share (a
 * small C++ program: 1940 of their 8689 erratic FDEs; dar: about 5970).
 * Of any other library it keeps most or all.
 */
static bool is_runtime(const struct dso *d)
{
	static const char *const names[] = {"libc.so.",	    "libm.so.",	      "libstdc++.so.",
					    "libgcc_s.so.", "libpthread.so.", "libdl.so.",
					    "librt.so.",    "libmvec.so.",    "libatomic.so."};
	const char *so = d->elf ? d->elf->soname : NULL;

	for (size_t i = 0; so && i < ARRAY_SIZE(names); i++)
		if (!strncmp(so, names[i], strlen(names[i])))
			return true;
	return false;
}

/*
 * Which objects a static link would take whole, the objects outside the
 * runtime without an archive of their own (the executable among them),
 * and the archives of the others, in load order: the order of -l options.
 */
struct link_plan {
	bool *whole; /* by object */
	char **archives;
	size_t narchives;
};

static void plan_link(const struct process *p, struct link_plan *lp)
{
	lp->whole = xcalloc(p->nobj + 1, sizeof *lp->whole);
	lp->archives = xcalloc(p->nobj + 1, sizeof *lp->archives);
	lp->narchives = 0;
	for (size_t i = 0; i < p->nobj; i++) {
		const struct dso *d = p->obj[i];
		char *a;
		if (d->is_rtld || d->is_vdso || d->is_preload || !d->elf || is_runtime(d))
			continue;
		/* None: the library is counted whole. A static link keeps only
		   the members of an archive the program needs. */
		if (!d->is_main && (a = library_archive_path(d->path, d->elf->soname)))
			lp->archives[lp->narchives++] = a;
		else
			lp->whole[i] = true;
	}
}

static void free_plan(struct link_plan *lp)
{
	for (size_t i = 0; i < lp->narchives; i++)
		free(lp->archives[i]);
	free(lp->archives);
	free(lp->whole);
}

/* The strong undefined symbols of the objects linked whole: what the archives resolve. */
static size_t archive_wants(const struct process *p, const struct link_plan *lp,
			    const char ***names)
{
	size_t n = 0, cap = 0;

	*names = NULL;
	for (size_t i = 0; i < p->nobj; i++) {
		const struct elfobj *e = p->obj[i]->elf;
		if (!lp->whole[i])
			continue;
		for (uint32_t k = 1; k < e->nsyms; k++) {
			if (e->syms[k].st_shndx != SHN_UNDEF ||
			    GELF_ST_BIND(e->syms[k].st_info) != STB_GLOBAL)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				*names = xrealloc(*names, cap * sizeof **names);
			}
			(*names)[n++] = elfobj_sym_name(e, k);
		}
	}
	return n;
}

/* FDEs counted over a program's objects: all, and the cold ones (fde-order.h). */
struct fde_sums {
	uint64_t fdes, cold;
};

/*
 * The erratic FDEs a static link would keep, from a replay of its archive
 * resolution (static-archives.h): the objects linked whole, and the
 * archive members it pulls in (the runtime's, and those of the libraries
 * whose archives are installed). Linked as one image, all their FDEs go
 * erratic but the cold ones (fde-order.h): the whole objects' own, and the
 * members' at their shared objects' share. Each object's erratic share
 * instead put static-cxx's at 2755 against 3141 by its readelf, this
 * 3134. dar_static's came out 13208 against 12327 with its libraries
 * counted whole (its Debian build links 14013 FDEs, that replay 15079);
 * with every one of them replayed as an archive (libdar64.a, libgcrypt.a,
 * ...), 12555 (14123 FDEs). False without libc.a.
 */
static bool archive_estimate(const struct process *p, const struct link_plan *lp,
			     struct fde_sums ar, struct fde_sums own, struct static_facts *sf)
{
	const char **names;
	size_t n = archive_wants(p, lp, &names);
	uint64_t kept, cold;
	int r = static_archive_fdes((const char *const *)lp->archives, lp->narchives, names, n,
				    &kept);

	free(names);
	if (r || !ar.fdes)
		return false;
	cold = own.cold + kept * ar.cold / ar.fdes;
	sf->fdes_runtime_kept = clamp32(kept);
	sf->fdes_erratic_kept = clamp32(own.fdes + kept - fmin(cold, own.fdes + kept));
	return true;
}

/*
 * What a static build's first unwind sorts: the FDEs of every object it
 * would link, of those the ones each object's order leaves erratic (an
 * upper bound: a static link keeps only the archive members it needs),
 * and the erratic ones of the objects it would link whole (a lower bound,
 * with the runtime's floor); and which library unwinds in the dynamic
 * build.
 */
static void unwind_facts(const struct process *p, struct static_facts *sf, int *unwinder)
{
	uint64_t n = 0, erratic = 0, own = 0;
	struct fde_sums ar = {0}, own_sums = {0};
	struct link_plan lp;

	*unwinder = -1;
	plan_link(p, &lp);
	for (size_t i = 0; i < p->nobj; i++) {
		const struct dso *d = p->obj[i];
		struct fde_sums *s;
		struct fde_order fo;
		if (d->is_rtld || d->is_vdso || d->is_preload || !d->elf)
			continue;
		fde_order(d->elf, &fo);
		n += fo.fdes, erratic += fo.erratic;
		own += lp.whole[i] ? fo.erratic : 0;
		s = lp.whole[i] ? &own_sums : &ar;
		s->fdes += fo.fdes, s->cold += fo.cold;
		if (*unwinder < 0 && !d->is_main && is_unwinder(d->elf))
			*unwinder = (int)i;
	}
	sf->fdes = clamp32(n);
	sf->fdes_erratic = clamp32(erratic);
	sf->fdes_erratic_own = clamp32(own);
	/* Only a program with an unwinder can unwind: the replay is for it alone. */
	sf->have_kept = *unwinder >= 0 && archive_estimate(p, &lp, ar, own_sums, sf);
	free_plan(&lp);
}

void static_side_facts(const struct deps_report *r, struct static_facts *sf, int *unwinder)
{
	const struct process *p = &r->p;
	uint64_t *res = xcalloc(r->bs.n + 1, sizeof *res), *own = NULL;
	const char **nss = xcalloc(r->bs.n + 1, sizeof *nss);
	size_t nres = 0, nown = 0, nnss = 0;
	int libc = -1;

	memset(sf, 0, sizeof *sf);
	for (size_t i = 0; i < p->nobj; i++)
		if (p->obj[i]->elf && elf_soname_is_libc(p->obj[i]->elf->soname))
			libc = (int)i;
	for (size_t k = 0; libc >= 0 && k < r->bs.n; k++) {
		const struct binding *b = &r->bs.b[k];
		const struct elfobj *e = p->obj[libc]->elf;
		if (b->to != libc || b->from == libc || b->tsym >= e->nsyms)
			continue;
		if (b->flags & BIND_IFUNC)
			res[nres++] =
				e->syms[b->tsym].st_value; /* an IFUNC's value is its resolver */
		else if (b->name && is_nss(b->name))
			nss[nnss++] = b->name;
		else if (b->name && is_spawn(b->name)) {
			if (!sf->spawn_example[0])
				snprintf(sf->spawn_example, sizeof sf->spawn_example, "%s",
					 b->name);
			sf->fork_lazy |= (b->flags & BIND_DEFERRED) && !strcmp(b->name, "fork");
		}
	}
	nres = distinct(res, nres);
	if (libc >= 0)
		nown = own_irelative(p->obj[libc]->elf, &own);
	sf->ifunc_bound = (uint32_t)nres;
	for (size_t k = 0; k < nres; k++)
		sf->ifunc_extra += !bsearch(&res[k], own, nown, sizeof *own, cmp_u64);
	qsort(nss, nnss, sizeof *nss, cmp_str);
	for (size_t k = 0; k < nnss; k++)
		if (!k || strcmp(nss[k], nss[k - 1]))
			note_nss(sf, nss[k]);
	unwind_facts(p, sf, unwinder);
	sf->known = true;
	free(res);
	free(own);
	free(nss);
}

double static_side_us(const struct model_coefs *m, const struct static_facts *sf)
{
	return sf->known ? sf->ifunc_extra * m->coef_us[MF_IFUNC] : 0;
}

/*
 * The archive replay's error on the sort: it puts the static builds'
 * erratic FDEs 0.2% low (static-cxx: 3134 against 3141), 1.3% low
 * (static-zstd), 1.9% low (a program of zlib, liblzma, libbz2, libzstd and
 * libgcrypt) and 1.8% high (dar_static: 12555 against 12327; 4.7% when
 * only six of its libraries' archives are installed), at most about 5%
 * of the sort's cost; three times the 8% it once was bounds the estimate,
 * as it did when each object's erratic share put them 12% and 8% low.
 */
#define KEPT_ERR 0.25

uint32_t static_unwind_fdes(const struct model_coefs *m, const struct static_facts *sf,
			    uint32_t *fewest, uint32_t *most)
{
	*most = sf->fdes_erratic;
	/* The runtime's floor is part of the upper bound already (its FDEs are counted). */
	*fewest = (uint32_t)fmin(*most, sf->fdes_erratic_own + m->fde_floor);
	if (sf->have_kept)
		return (uint32_t)fmax(*fewest, fmin(*most, sf->fdes_erratic_kept));
	return (uint32_t)sqrt((double)*fewest * *most);
}

/*
 * The price's own range, the calibration's passes apart (calibrate-unwind.h),
 * widens the count's, in quadrature: the two errors are independent.
 */
static void price_range(const struct model_coefs *m, double est, double *lo, double *hi)
{
	double down, up;

	if (!(m->fde_sort_hi > 0) || !(m->fde_sort_us > 0) || !(est > 0))
		return;
	down = 1 - m->fde_sort_lo / m->fde_sort_us;
	up = m->fde_sort_hi / m->fde_sort_us - 1;
	*lo = fmax(0, est * (1 - hypot(1 - *lo / est, fmax(down, 0))));
	*hi = est * (1 + hypot(*hi / est - 1, fmax(up, 0)));
}

double static_unwind_us(const struct model_coefs *m, const struct static_facts *sf, double *lo,
			double *hi)
{
	uint32_t fewest, most, n;
	double est;

	*lo = *hi = 0;
	if (!sf->known || !sf->fdes_erratic)
		return 0;
	n = static_unwind_fdes(m, sf, &fewest, &most);
	est = fde_sort_cost(m, n);
	*lo = fde_sort_cost(m, fewest);
	*hi = fde_sort_cost(m, most);
	if (sf->have_kept) {
		*lo = fmax(*lo, est * (1 - KEPT_ERR));
		*hi = fmin(*hi, est * (1 + KEPT_ERR));
	}
	price_range(m, est, lo, hi);
	return est;
}

double fde_sort_cost(const struct model_coefs *m, uint32_t erratic)
{
	return erratic > 1 ? m->fde_sort_us * erratic * log2(erratic) : 0;
}

/*
 * Did the dynamic program unwind? Its unwinder library (libgcc_s) binds
 * its PLT slots (_Unwind_Find_FDE, _dl_find_object) only when it unwinds:
 * a program that never throws leaves them unbound (cmake, ninja, gdb,
 * apt-cache --version: 0 each; dar -V, which throws in main: 5). Bound at
 * startup (BIND_NOW), it cannot say: false, and caveats() tells.
 */
bool static_side_unwound(const struct trace *t)
{
	const struct static_facts *sf = &t->static_side;

	return sf->have_unwinder && sf->unwinder < t->nobj && t->obj[sf->unwinder].lazy_binds > 0;
}
