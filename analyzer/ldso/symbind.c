/*
 * Relocation as ld.so performs it at startup (glibc 2.36 elf/rtld.c,
 * elf/dl-reloc.c, elf/do-rel.h, sysdeps/x86_64/dl-machine.h): objects in
 * reverse initialisation order, ld.so itself skipped (it relocated itself
 * before it could look anything up), each object's DT_RELA then DT_JMPREL,
 * and RESOLVE_MAP's one-entry cache: a relocation naming the same symbol
 * with the same type class as the previous lookup reuses its answer.
 */
#include "ldso/symbind.h"

#include <stdlib.h>
#include <string.h>

/* The vDSO symbols glibc 2.36's setup_vdso_pointers looks up on x86-64,
   in its order, all with version LINUX_2.6 (marked hidden). */
static const char *const vdso_symbols[] = {
	"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time",
	"__vdso_getcpu",	"__vdso_clock_getres",
};

/* libc's IFUNCs whose resolvers ask the vDSO (dl_vdso_vsym), so every
   relocation bound to them costs one more lookup at a real start. */
static const struct {
	const char *ifunc, *vdso_symbol;
} vdso_resolvers[] = {
	{"gettimeofday", "__vdso_gettimeofday"},
	{"__gettimeofday", "__vdso_gettimeofday"},
	{"time", "__vdso_time"},
};

static void add_binding(struct bindset *bs, const struct binding *b)
{
	GROW(bs->b, bs->cap, bs->n);
	bs->b[bs->n++] = *b;
}

/* Lengths for ld.so's own lookups (relocations have them precomputed). */
static void add_lookup(struct bindset *bs, struct binding b)
{
	b.namelen = (uint16_t)strlen(b.name);
	b.verlen = b.version ? (uint16_t)strlen(b.version) : 0;
	add_binding(bs, &b);
}

/* dl_vdso_vsym: one lookup in the vDSO alone, version LINUX_2.6 (marked
   hidden). Its work is charged to w. */
static void vdso_lookup(struct process *p, struct unique_table *u, struct bindset *bs,
			const char *name, struct lookup_work *w, uint16_t flags)
{
	struct elf_version linux26 = {.name = "LINUX_2.6", .hidden = true};
	struct lookup_result res;
	int v = p->vdso;

	if (v < 0)
		return;
	linux26.hash = ldso_sysv_hash(linux26.name);
	struct lookup_req req = {.name = name,
				 .hash = ldso_gnu_hash(name),
				 .sysv = UINT32_MAX,
				 .undef = v,
				 .version = &linux26,
				 .version_hidden_req = true};
	if (symbol_lookup_in(p, u, &v, 1, &req, w, &res))
		add_lookup(bs, (struct binding){v, res.val.obj, 0, res.val.sym, 0, name,
						linux26.name, BIND_VDSO | flags, 0, 0});
}

/* The first bytes of an IFUNC resolver at vaddr in o: ld.so calls it, so
   its page is read (a fault in a window no earlier read mapped: libm's 21
   resolvers in three windows cost its relocation four times the model
   without them, by uprobe, docs/model.md). */
static void touch_resolver(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
			   uint64_t vaddr)
{
	const void *code = elfobj_table(o, vaddr, 1, 1, 1);

	if (code)
		lookup_touch_pages(u, w, o, code, 1);
}

static void ifunc_resolver_lookup(struct process *p, struct unique_table *u, struct bindset *bs,
				  const struct binding *b, struct lookup_work *w)
{
	const struct elfobj *def = p->obj[b->to]->elf;

	if (b->tsym < def->nsyms)
		touch_resolver(u, w, def, def->syms[b->tsym].st_value);
	if (!def->soname || strcmp(def->soname, "libc.so.6"))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(vdso_resolvers); i++)
		if (!strcmp(elfobj_sym_name(def, b->tsym), vdso_resolvers[i].ifunc))
			vdso_lookup(p, u, bs, vdso_resolvers[i].vdso_symbol, w, BIND_UNTRACED);
}

/* The memo of this library in this scope: one to use, or one to build. */
struct memo_use {
	const struct reloc_memo *use;
	struct reloc_memo *build;
	char *key;
};

static void memo_start(struct process *p, int oi, struct memo_use *mu)
{
	const struct elfobj *o = p->obj[oi]->elf;
	const void **objs;

	memset(mu, 0, sizeof *mu);
	/* Only libraries: each program is relocated once, and one that is not
	   the environment's own (the fuzzer's input) would not outlive its key. */
	if (oi == p->main || o->symbolic || p->nscope < 1 || !o->nsymrefs)
		return;
	objs = xcalloc(p->nscope, sizeof *objs);
	for (size_t i = 1; i < p->nscope; i++)
		objs[i - 1] = p->obj[p->scope[i]]->elf;
	mu->key = memo_key(o, objs, p->nscope - 1);
	free(objs);
	mu->use = memo_find(&p->env->memo, mu->key);
	if (mu->use && mu->use->n != o->nsymrefs)
		mu->use = NULL; /* cannot happen for one object; never trust it blindly */
	if (!mu->use) {
		mu->build = xmalloc(sizeof *mu->build);
		mu->build->n = o->nsymrefs;
		mu->build->slot = xcalloc(o->nsymrefs, sizeof *mu->build->slot);
	}
}

static void memo_finish(struct process *p, struct memo_use *mu)
{
	if (mu->build)
		memo_publish(&p->env->memo, mu->key, mu->build);
	free(mu->key);
}

/* dst += src, every count. */
static void work_sum(struct lookup_work *dst, const struct lookup_work *src)
{
	dst->lookups += src->lookups;
	dst->cached += src->cached;
	dst->probes += src->probes;
	dst->deep_probes += src->deep_probes;
	dst->bloom_rejects += src->bloom_rejects;
	dst->chain += src->chain;
	dst->strcmps += src->strcmps;
	dst->hash_bytes += src->hash_bytes;
	dst->cmp_bytes += src->cmp_bytes;
	dst->cold_lines += src->cold_lines;
	dst->read_fault_16ths += src->read_fault_16ths;
	dst->pages_read += src->pages_read;
	dst->ver_entries += src->ver_entries;
}

static void add_work(struct lookup_work *w, const struct memo_slot *s)
{
	w->probes += s->probes;
	w->deep_probes += s->deep_probes;
	w->bloom_rejects += s->bloom_rejects;
	w->chain += s->chain;
	w->strcmps += s->strcmps;
	w->cmp_bytes += s->cmp_bytes;
	w->cold_lines += s->cold_lines;
	w->read_fault_16ths += s->read_fault_16ths;
	w->pages_read += s->pages_read;
}

static bool is_ifunc(const struct process *p, const struct lookup_result *res)
{
	if (res->ifunc >= 0)
		return res->ifunc;
	const Elf64_Sym *def = &p->obj[res->val.obj]->elf->syms[res->val.sym];
	return ELF64_ST_TYPE(def->st_info) == STT_GNU_IFUNC && def->st_shndx != SHN_UNDEF;
}

/* symbol_lookup, reusing or recording the part past the program. */
static bool lookup_ref(struct process *p, struct unique_table *u, struct lookup_req *req,
		       struct lookup_work *w, struct lookup_result *res, struct memo_use *mu,
		       size_t i)
{
	struct lookup_work wr = {0};

	if ((!mu->use && !mu->build) || ELF64_ST_VISIBILITY(req->ref_other) == STV_PROTECTED)
		return symbol_lookup(p, u, req, w, res);
	lookup_count(u, w, p->obj[req->undef]->elf, req);
	if (symbol_lookup_program(p, u, req, w, res))
		return true;
	if (mu->use && mu->use->slot[i].ok) {
		const struct memo_slot *s = &mu->use->slot[i];
		add_work(w, s);
		res->val = (struct sym_val){s->pos >= 0 ? p->scope[s->pos] : -1, s->sym};
		res->ifunc = s->ifunc;
		return s->pos >= 0;
	}
	/* wr: the lookup past the program (lookup_count put the call in w). */
	bool found = symbol_lookup_rest(p, u, req, &wr, res);
	work_sum(w, &wr);
	if (mu->build && !res->unique)
		mu->build->slot[i] =
			(struct memo_slot){found ? p->obj[res->val.obj]->scope_pos : -1,
					   res->val.sym,
					   (uint32_t)wr.probes,
					   (uint32_t)wr.deep_probes,
					   (uint32_t)wr.bloom_rejects,
					   (uint32_t)wr.chain,
					   (uint32_t)wr.strcmps,
					   (uint32_t)wr.cmp_bytes,
					   (uint32_t)wr.cold_lines,
					   (uint32_t)wr.read_fault_16ths,
					   (uint32_t)wr.pages_read,
					   true,
					   found && is_ifunc(p, res)};
	return found;
}

struct lookup_cache {
	bool valid, found;
	uint32_t sym;
	uint8_t tclass;
	struct lookup_result res;
};

static uint16_t result_flags(const struct process *p, const struct lookup_result *res, bool found,
			     const struct elf_symref *r)
{
	uint16_t f = 0;

	if (!found)
		return ELF64_ST_BIND(r->info) == STB_WEAK ? BIND_WEAK_UNDEF : BIND_MISSING;
	if (res->protected_ref)
		f |= BIND_PROTECTED;
	if (res->unique)
		f |= BIND_UNIQUE;
	if (is_ifunc(p, res))
		f |= BIND_IFUNC;
	return f;
}

static void bind_ref(struct process *p, struct unique_table *u, struct bindset *bs, int oi,
		     size_t ri, bool deferred, struct lookup_cache *cache, uint16_t extra,
		     struct memo_use *mu)
{
	const struct elfobj *o = p->obj[oi]->elf;
	const struct elf_symref *r = &o->symrefs[ri];
	struct obj_binding *ob = &bs->obj[oi];
	struct lookup_work *w = deferred ? &ob->deferred : &ob->work;
	struct lookup_result res;
	bool found;
	uint16_t flags = deferred ? BIND_DEFERRED : 0;

	/* Every relocation reads its symbol's entry (the cache compares it)
	   and its version index. */
	if (!deferred) {
		lookup_touch(u, w, o, &o->syms[r->sym], sizeof o->syms[r->sym]);
		if (o->versym)
			lookup_touch_pages(u, w, o, &o->versym[r->sym], sizeof *o->versym);
	}
	if (!deferred && cache->valid && cache->sym == r->sym && cache->tclass == r->tclass) {
		w->cached++;
		res = cache->res;
		found = cache->found;
		flags |= BIND_CACHED;
	} else {
		struct lookup_req req = {.name = r->name,
					 .namelen = r->namelen == UINT16_MAX ? 0 : r->namelen,
					 .hash = r->hash,
					 .sysv = UINT32_MAX,
					 .undef = oi,
					 .ref = &o->syms[r->sym],
					 .ref_idx = r->sym,
					 .ref_other = r->other,
					 .version = r->version,
					 .version_hidden_req = r->version && r->version->hidden,
					 .tclass = r->tclass};
		found = lookup_ref(p, u, &req, w, &res, mu, ri);
		if (!deferred)
			*cache = (struct lookup_cache){true, found, r->sym, r->tclass, res};
	}
	flags |= result_flags(p, &res, found, r);
	if (flags & BIND_MISSING)
		ob->missing++;
	if (flags & BIND_WEAK_UNDEF)
		ob->weak_undef++;
	struct binding b = {oi,
			    found ? res.val.obj : -1,
			    r->sym,
			    res.val.sym,
			    r->type,
			    r->name,
			    r->version ? r->version->name : NULL,
			    (uint16_t)(flags | extra),
			    r->namelen,
			    r->version ? r->version->namelen : 0};
	add_binding(bs, &b);
	if ((flags & BIND_IFUNC) && !deferred) {
		ob->ifunc_calls++;
		ifunc_resolver_lookup(p, u, bs, &b, w);
	}
}

/* ld.so ends its startup by calling libc's __libc_early_init, whose first
   call through libc's PLT (__tunable_get_val) is bound then, before main,
   when libc binds lazily. */
static bool early_plt_call(const struct elfobj *o, const struct elf_symref *r)
{
	return o->soname && !strcmp(o->soname, "libc.so.6") &&
	       !strcmp(r->name, "__tunable_get_val");
}

/* _dl_relocate_object for one object; lazy is false for ld.so's own
   second relocation, which binds everything. */
static void relocate(struct process *p, struct unique_table *u, struct bindset *bs, int oi,
		     bool lazy, uint16_t extra)
{
	const struct elfobj *o = p->obj[oi]->elf;
	struct obj_binding *ob = &bs->obj[oi];
	struct lookup_cache cache = {0};
	struct memo_use mu;

	ob->relocated = true;
	ob->lazy = lazy;
	u->everyones = lookup_read_by_all(o); /* libc and ld.so relocating */
	ob->ifunc_calls = o->relocs.irelative;
	/* It walks its relocation tables whole, the lazy PLT's too. */
	for (size_t t = 0; t < ARRAY_SIZE(o->reloc_tables); t++)
		lookup_touch_pages(u, &ob->work, o, o->reloc_tables[t].p, o->reloc_tables[t].size);
	for (size_t k = 0; k < o->nirel_resolvers; k++)
		touch_resolver(u, &ob->work, o, o->irel_resolvers[k]);
	memo_start(p, oi, &mu);
	for (size_t i = 0; i < o->nsymrefs; i++) {
		const struct elf_symref *r = &o->symrefs[i];
		bool deferred = lazy && r->in_jmprel && r->type == R_X86_64_JUMP_SLOT;
		if (deferred && early_plt_call(o, r)) {
			/* _dl_fixup: a lookup at startup that bypasses the cache */
			struct lookup_cache none = {0};
			bind_ref(p, u, bs, oi, i, false, &none, extra | BIND_EARLY, &mu);
			continue;
		}
		bind_ref(p, u, bs, oi, i, deferred, &cache, extra, &mu);
	}
	memo_finish(p, &mu);
	u->everyones = false;
}

/* After relocation ld.so switches from its minimal malloc to the program's
   (__rtld_malloc_init_real: four lookups from the program, version
   GLIBC_2.2.5) and relocates itself again in the global scope, so that
   libc may interpose its GLIBC_PRIVATE functions. Neither happens under
   LD_TRACE_LOADED_OBJECTS. */
static void ldso_after_relocation(struct process *p, struct unique_table *u, struct bindset *bs)
{
	static const char *const names[] = {"calloc", "free", "malloc", "realloc"};
	struct elf_version v = {.name = "GLIBC_2.2.5"};
	struct lookup_work *w = &bs->obj[p->main].work;

	v.hash = ldso_sysv_hash(v.name);
	u->everyones = true; /* every process's four */
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct lookup_req req = {.name = names[i],
					 .hash = ldso_gnu_hash(names[i]),
					 .sysv = UINT32_MAX,
					 .undef = p->main,
					 .version = &v};
		struct lookup_result res;
		bool found = symbol_lookup(p, u, &req, w, &res);
		add_lookup(bs,
			   (struct binding){p->main, found ? res.val.obj : -1, 0, res.val.sym, 0,
					    names[i], v.name,
					    BIND_UNTRACED | BIND_LDSO | (found ? 0 : BIND_MISSING),
					    0, 0});
	}
	u->everyones = false;
	if (p->rtld >= 0)
		relocate(p, u, bs, p->rtld, false, BIND_UNTRACED | BIND_LDSO);
}

/* The strings of a dynamic entry's kind (DT_NEEDED, ...) of o. */
static void touch_dyn_strings(struct unique_table *u, const struct elfobj *o, int64_t tag)
{
	for (size_t k = 0; k < o->ndyn; k++) {
		const char *s = o->dyn[k].d_tag == tag ? elfobj_dynstr(o, o->dyn[k].d_un.d_val) : NULL;
		if (s)
			lookup_touch_pages(u, NULL, o, s, strlen(s) + 1);
	}
}

/*
 * What ld.so reads of an object's file before it relocates anything, so
 * that those pages cost the relocation no fault: while loading it, its
 * notes (PT_NOTE, PT_GNU_PROPERTY), its program headers and the names of
 * its needs, soname and search paths (measured: ninja's libraries take
 * their first read faults there, at .note.gnu.property and the end of
 * .dynstr). The version check, in the relocate phase, reads more
 * (symversion.c).
 */
static void loading_reads(struct process *p, struct unique_table *u)
{
	static const int64_t name_tags[] = {DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH};

	for (size_t i = 0; i < p->nobj; i++) {
		const struct elfobj *o = p->obj[i]->elf;
		if (!o || p->obj[i]->faked)
			continue;
		for (size_t k = 0; k < o->nphdr; k++)
			if (o->phdr[k].p_type == PT_NOTE || o->phdr[k].p_type == PT_GNU_PROPERTY ||
			    o->phdr[k].p_type == PT_PHDR)
				lookup_touch_pages(u, NULL, o, elfobj_bytes(o, o->phdr[k].p_offset,
									    o->phdr[k].p_filesz),
						   o->phdr[k].p_filesz);
		for (size_t k = 0; k < ARRAY_SIZE(name_tags); k++)
			touch_dyn_strings(u, o, name_tags[k]);
	}
}

void bind_versions(struct process *p, struct bindset *bs);
void version_check_work(const struct process *p, struct unique_table *u, struct bindset *bs);
void bind_imports_compute(struct process *p, struct bindset *bs);

void bind_process(struct process *p, const struct bind_options *opt, struct bindset *bs)
{
	struct unique_table u = {.count_lines = opt->cold_lines};

	memset(bs, 0, sizeof *bs);
	bs->nobj = p->nobj;
	bs->obj = xcalloc(p->nobj + 1, sizeof *bs->obj);
	if (p->is_static)
		return;
	/* One binding per symbolic relocation, plus ld.so's own few. */
	size_t want = 64;
	for (size_t i = 0; i < p->nobj; i++)
		want += p->obj[i]->elf && !p->obj[i]->faked ? p->obj[i]->elf->nsymrefs : 0;
	GROW(bs->b, bs->cap, want);
	loading_reads(p, &u);
	version_check_work(p, &u, bs);
	for (size_t i = 0; i < p->nobj; i++)
		work_sum(&bs->obj[i].work, &bs->obj[i].versions);
	u.everyones = true; /* libc's start, in every process */
	for (size_t i = 0; i < ARRAY_SIZE(vdso_symbols); i++)
		if (p->vdso >= 0)
			vdso_lookup(p, &u, bs, vdso_symbols[i], &bs->obj[p->vdso].work, 0);
	u.everyones = false;
	for (size_t i = p->ninit; i-- > 0;) {
		int oi = p->initorder[i];
		const struct elfobj *o = p->obj[oi]->elf;
		if (oi != p->rtld && o)
			relocate(p, &u, bs, oi, !opt->bind_now && !o->bind_now, 0);
	}
	if (!p->fatal)
		ldso_after_relocation(p, &u, bs);
	unique_table_free(&u);
	for (size_t i = 0; i < p->nobj; i++)
		work_sum(&bs->total, &bs->obj[i].work);
	bind_versions(p, bs);
	bind_imports_compute(p, bs);
}

void bindset_free(struct bindset *bs)
{
	free(bs->b);
	free(bs->obj);
	free(bs->imports);
	free(bs->vp);
	memset(bs, 0, sizeof *bs);
}

uint32_t bind_imports(const struct bindset *bs, int obj, int dep)
{
	if (!bs->imports || obj < 0 || dep < 0)
		return 0;
	return bs->imports[(size_t)obj * bs->nobj + (size_t)dep];
}

const char *bind_flag_name(unsigned bit)
{
	static const char *const names[BIND_NFLAGS] = {
		"cached",    "lazy", "protected", "ifunc", "unique",	 "weak-undefined",
		"undefined", "vdso", "untraced",  "ld.so", "early-init",
	};

	return bit < BIND_NFLAGS ? names[bit] : NULL;
}
