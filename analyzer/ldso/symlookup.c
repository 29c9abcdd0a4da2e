/*
 * Symbol lookup, following glibc 2.36 elf/dl-lookup.c (do_lookup_x,
 * check_match, do_lookup_unique, _dl_lookup_symbol_x). The tables were
 * validated when the objects were opened (elfsym.c), so the walks here
 * need no bounds checks and always end.
 */
#include "ldso/symlookup.h"

#include <stdlib.h>
#include <string.h>

/* Symbol types that can satisfy a reference (check_match's ALLOWED_STT). */
#define ALLOWED_STT                                                                                \
	((1u << STT_NOTYPE) | (1u << STT_OBJECT) | (1u << STT_FUNC) | (1u << STT_COMMON) |         \
	 (1u << STT_TLS) | (1u << STT_GNU_IFUNC))

struct scan {
	const Elf64_Sym *versioned; /* the only versioned candidate so far */
	uint32_t versioned_idx;
	int num_versions;
};

static bool binds_local(const Elf64_Sym *s)
{
	unsigned v = ELF64_ST_VISIBILITY(s->st_other);

	return v == STV_HIDDEN || v == STV_INTERNAL;
}

/* An open-addressing set of line numbers, hand-rolled: base/strmap keys
   strings, and this runs for every probe of every lookup. */
static bool line_seen(const struct line_set *s, uint64_t line)
{
	if (!s->cap)
		return false;
	for (size_t i = (line * 0x9e3779b97f4a7c15u) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		if (!s->slot[i])
			return false;
		if (s->slot[i] == line + 1)
			return true;
	}
}

static void line_add(struct line_set *s, uint64_t line)
{
	if (2 * (s->n + 1) > s->cap) {
		struct line_set g = {xcalloc(s->cap ? 2 * s->cap : 1024, sizeof *g.slot),
				     s->cap ? 2 * s->cap : 1024, 0};
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				line_add(&g, s->slot[i] - 1);
		free(s->slot);
		*s = g;
	}
	size_t i = (line * 0x9e3779b97f4a7c15u) & (s->cap - 1);
	while (s->slot[i])
		i = (i + 1) & (s->cap - 1);
	s->slot[i] = line + 1;
	s->n++;
}

bool lookup_read_by_all(const struct elfobj *o)
{
	static const char *const everyones[] = {"libc.so.6", "ld-linux-x86-64.so.2",
						"linux-vdso.so.1"};

	for (size_t i = 0; o && o->soname && i < ARRAY_SIZE(everyones); i++)
		if (!strcmp(o->soname, everyones[i]))
			return true;
	return false;
}

/* Whether [p, p + len) lies in o's file: ld.so's own lookups (malloc, the
   vDSO's) name strings of ld.so's, which ldprof holds in its own memory. */
static bool in_image(const struct elfobj *o, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)o->image;

	return o->image && a >= lo && a - lo <= o->image_size && len <= o->image_size - (a - lo);
}

/* ld.so's own pages were read when it relocated itself, and the vDSO is
   mapped whole by the kernel: neither takes a fault in relocation. */
static bool mapped_already(const struct elfobj *o)
{
	static const char *const names[] = {"ld-linux-x86-64.so.2", "linux-vdso.so.1"};

	for (size_t i = 0; o && o->soname && i < ARRAY_SIZE(names); i++)
		if (!strcmp(o->soname, names[i]))
			return true;
	return false;
}

/* The kernel's fault-around (fault_around_bytes, 64 KiB): a read fault on
   a file mapping maps the page-cache pages of the aligned window around
   the faulting page. */
#define FAULT_WINDOW_PAGES 16

/*
 * A page of o's file read for the first time in the process is a page
 * fault, unless an earlier fault in its 64 KiB window mapped it already.
 * Either way its first read costs more than a cache miss (pages_read): on
 * the virtual machines ldprof was calibrated on, the first access to a
 * page that fault-around mapped takes 0.3 to 1.3 us and no fault
 * (make bench-vm; docs/model.md, "The first read of a page").
 * The window's alignment to the file follows the load address, which is
 * page-aligned at random, so w counts the mean over the 16 alignments, in
 * 16ths: each alignment keeps its own set of windows mapped. Keyed by the
 * page's address in our image of the file, which keeps the file's layout.
 */
static void touch_pages(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
			const void *p, size_t len)
{
	uint64_t first = (uintptr_t)p >> 12, last = ((uintptr_t)p + (len ? len : 1) - 1) >> 12;

	if (mapped_already(o))
		return;
	for (uint64_t pg = first; pg <= last; pg++) {
		if (line_seen(&u->pages, pg))
			continue;
		line_add(&u->pages, pg);
		if (w)
			w->pages_read++;
		for (uint64_t r = 0; r < FAULT_WINDOW_PAGES; r++) {
			uint64_t window = (pg + r) / FAULT_WINDOW_PAGES * FAULT_WINDOW_PAGES + r;
			if (line_seen(&u->windows, window))
				continue;
			line_add(&u->windows, window);
			if (w)
				w->read_fault_16ths++;
		}
	}
}

void lookup_touch_pages(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
			const void *p, size_t len)
{
	if (u->count_lines && len && in_image(o, p, len))
		touch_pages(u, w, o, p, len);
}

/* Was LINE among the last STREAM_LINES lines read first? */
static bool in_stream(const struct unique_table *u, uint64_t line)
{
	unsigned n = u->nstream < STREAM_LINES ? u->nstream : STREAM_LINES;

	for (unsigned i = 1; i <= n; i++)
		if (u->stream[(u->nstream - i) % STREAM_LINES] == line)
			return true;
	return false;
}

/*
 * A line read for the first time in the process is a cache miss, unless
 * the prefetcher has it: the rest of one read (a name's next lines), or
 * the line after one of the last few read first (a table read in its
 * order, as the synthetic libraries' names are). So names and tables read
 * in their order cost little, and a name read out of order (a real
 * library's lookups) a miss, whatever its length, even when its
 * neighbour was read long before: shuffling 3000 references cost the same
 * with 64-byte names as with 160-byte ones, which a line counted warm
 * whenever its predecessor had ever been read put at 0.47 and 0.64 misses
 * a reference (docs/model.md, "A name read out of order"). The lines of
 * libc, ld.so and the vDSO that relocating libc and ld.so reads (u->
 * everyones) are read by every process on the machine, and stay cached;
 * the others the program's own lookups read of them are cold as any
 * library's: 800 references to libc's functions cost 8 to 25 us more
 * than 800 to a library of as many functions, which pricing no line of
 * libc's put 16 to 64 us below them (docs/model.md, "libc's lines"). The
 * set is keyed by the address in our image of the file, which keeps the
 * file's layout of each table.
 */
void lookup_touch(struct unique_table *u, struct lookup_work *w, const struct elfobj *o,
		  const void *p, size_t len)
{
	if (!u->count_lines || !in_image(o, p, len))
		return;
	touch_pages(u, w, o, p, len);
	uint64_t first = (uintptr_t)p >> 6, last = ((uintptr_t)p + (len ? len : 1) - 1) >> 6;

	for (uint64_t l = first; l <= last; l++) {
		if (line_seen(&u->lines, l))
			continue;
		if (l == first && !in_stream(u, l - 1) && !(u->everyones && lookup_read_by_all(o)))
			w->cold_lines++;
		line_add(&u->lines, l);
		u->stream[u->nstream++ % STREAM_LINES] = l;
	}
}

/*
 * strcmp, counting the bytes it reads: ld.so compares names a byte at a
 * time, so a long (mangled) name costs more. Hand-rolled because strcmp
 * does not say where it stopped.
 */
int lookup_name_cmp(const char *a, const char *b, uint64_t *bytes)
{
	size_t i = 0;

	while (a[i] && a[i] == b[i])
		i++;
	*bytes += i + 1;
	return (unsigned char)a[i] - (unsigned char)b[i];
}

/* check_match: is symbol i of o the definition req wants? */
static bool check_match(struct unique_table *u, const struct elfobj *o, int obj, uint32_t i,
			const struct lookup_req *req, int tclass, struct scan *sc,
			struct lookup_work *w)
{
	const Elf64_Sym *s = &o->syms[i];
	unsigned stt = ELF64_ST_TYPE(s->st_info);

	lookup_touch(u, w, o, s, sizeof *s);

	if ((!s->st_value && s->st_shndx != SHN_ABS && stt != STT_TLS) ||
	    ((tclass & RTYPE_CLASS_PLT) && s->st_shndx == SHN_UNDEF))
		return false;
	if (stt >= 32 || !((1u << stt) & ALLOWED_STT))
		return false;
	/* The reference itself needs no comparison (same table entry). */
	if (!(obj == req->undef && i == req->ref_idx && req->ref)) {
		const char *name = elfobj_sym_name(o, i);
		uint64_t before = w->cmp_bytes;
		w->strcmps++;
		int differ = lookup_name_cmp(name, req->name, &w->cmp_bytes);
		lookup_touch(u, w, o, name, w->cmp_bytes - before);
		if (differ)
			return false;
	}
	if (!o->versym)
		return true;
	lookup_touch(u, w, o, &o->versym[i], sizeof *o->versym);
	uint16_t raw = o->versym[i];
	const struct elf_version *v = elfobj_sym_version(o, i);
	if (req->version) {
		/* The version names compared when the hashes agree: in a C++
		   program nearly every lookup's (GLIBCXX_3.4.21), which the
		   calibration's unversioned names never had. */
		bool same = v->hash == req->version->hash && v->name &&
			    !lookup_name_cmp(v->name, req->version->name, &w->cmp_bytes);
		return same || !(req->version_hidden_req || v->hash || (raw & 0x8000));
	}
	/* An unversioned reference takes the base/global definition, or the
	   only non-hidden versioned one (decided after the scan). */
	if ((raw & 0x7fff) >= 3) {
		if (!(raw & 0x8000) && sc->num_versions++ == 0) {
			sc->versioned = s;
			sc->versioned_idx = i;
		}
		return false;
	}
	return true;
}

/* The candidates of one object: returns the symbol index or UINT32_MAX. */
static uint32_t scan_object(struct unique_table *u, struct lookup_req *req, const struct elfobj *o,
			    int obj, int tclass, struct lookup_work *w)
{
	struct scan sc = {NULL, 0, 0};

	if (o->hash.style == HASH_GNU) {
		const struct elf_gnu_hash *g = &o->gnu;
		uint64_t h = req->hash, word = g->bloom[(h / 64) & g->bloom_mask];
		lookup_touch(u, w, o, &g->bloom[(h / 64) & g->bloom_mask], sizeof word);
		if (!((word >> (h & 63)) & (word >> ((h >> (g->shift & 63)) & 63)) & 1)) {
			w->bloom_rejects++;
			return UINT32_MAX;
		}
		uint32_t i = g->buckets[h % g->nbuckets];
		lookup_touch(u, w, o, &g->buckets[h % g->nbuckets], sizeof i);
		if (i) {
			uint32_t e;
			do {
				e = g->chain[i - g->symoffset];
				lookup_touch(u, w, o, &g->chain[i - g->symoffset], sizeof e);
				w->chain++;
				if (!((e ^ h) >> 1) &&
				    check_match(u, o, obj, i, req, tclass, &sc, w))
					return i;
				i++;
			} while (!(e & 1));
		}
	} else {
		const struct elf_sysv_hash *s = &o->sysv;
		if (req->sysv == UINT32_MAX)
			req->sysv = ldso_sysv_hash(req->name);
		lookup_touch(u, w, o, &s->buckets[req->sysv % s->nbuckets], sizeof *s->buckets);
		for (uint32_t i = s->buckets[req->sysv % s->nbuckets]; i; i = s->chain[i]) {
			lookup_touch(u, w, o, &s->chain[i], sizeof *s->chain);
			w->chain++;
			if (check_match(u, o, obj, i, req, tclass, &sc, w))
				return i;
		}
	}
	return sc.num_versions == 1 ? sc.versioned_idx : UINT32_MAX;
}

static void unique(struct unique_table *u, const struct lookup_req *req, int obj, uint32_t sym,
		   int tclass, struct sym_val *res)
{
	struct sym_val *e = strmap_get(&u->map, req->name);

	*res = (struct sym_val){obj, sym};
	if (e) {
		if (!(tclass & RTYPE_CLASS_COPY))
			*res = *e;
		return;
	}
	e = xmalloc(sizeof *e);
	/* A copy relocation enters the executable's copy for everyone. */
	*e = (tclass & RTYPE_CLASS_COPY) ? (struct sym_val){req->undef, req->ref_idx}
					 : (struct sym_val){obj, sym};
	strmap_put(&u->map, req->name, e);
}

/* do_lookup_x over list[0..n): returns true with *res when found. */
static bool lookup_list(struct process *p, struct unique_table *u, const int *list, size_t n,
			struct lookup_req *req, int tclass, struct lookup_work *w,
			struct lookup_result *res)
{
	for (size_t k = 0; k < n; k++) {
		const struct dso *d = p->obj[list[k]];
		if ((tclass & RTYPE_CLASS_COPY) && d->is_main)
			continue;
		w->probes++;
		w->deep_probes += d->scope_pos >= LOOKUP_DEEP_FROM;
		const struct elfobj *o = d->elf;
		if (!o || !o->hash.nbuckets || !o->nsyms)
			continue;
		uint32_t i = scan_object(u, req, o, list[k], tclass, w);
		if (i == UINT32_MAX)
			continue;
		const Elf64_Sym *s = &o->syms[i];
		if (binds_local(s))
			continue;
		switch (ELF64_ST_BIND(s->st_info)) {
		case STB_WEAK:
		case STB_GLOBAL:
			res->val = (struct sym_val){list[k], i};
			return true;
		case STB_GNU_UNIQUE:
			unique(u, req, list[k], i, tclass, &res->val);
			res->unique = true;
			return true;
		default:
			continue;
		}
	}
	return false;
}

static bool lookup_scopes(struct process *p, struct unique_table *u, struct lookup_req *req,
			  int tclass, struct lookup_work *w, struct lookup_result *res)
{
	const struct dso *d = p->obj[req->undef];

	/* A DT_SYMBOLIC object's own symbols come first (dl-load.c puts its
	   l_symbolic_searchlist before the global scope); not the program. */
	if (d->elf && d->elf->symbolic && !d->is_main) {
		int self = req->undef;
		if (lookup_list(p, u, &self, 1, req, tclass, w, res))
			return true;
	}
	return lookup_list(p, u, p->scope, p->nscope, req, tclass, w, res);
}

/* The protected rule: a protected definition in the requester wins over
   any other, judged by a PLT-class lookup for non-PLT relocations. */
static void apply_protected(struct process *p, struct unique_table *u, struct lookup_req *req,
			    struct lookup_work *w, struct lookup_result *res)
{
	if (!req->ref || ELF64_ST_VISIBILITY(req->ref_other) != STV_PROTECTED)
		return;
	res->protected_ref = true;
	if (req->tclass == RTYPE_CLASS_PLT) {
		if (res->val.obj != req->undef)
			res->val = (struct sym_val){req->undef, req->ref_idx};
		return;
	}
	struct lookup_result pv = {{-1, 0}, false, false, -1};
	if (lookup_scopes(p, u, req, RTYPE_CLASS_PLT, w, &pv) && pv.val.obj != req->undef)
		res->val = (struct sym_val){req->undef, req->ref_idx};
}

void lookup_count(struct unique_table *u, struct lookup_work *w, const struct elfobj *from,
		  struct lookup_req *req)
{
	/* _dl_lookup_symbol_x hashes the whole name (dl_new_hash) every time. */
	if (!req->namelen)
		req->namelen = (uint32_t)strlen(req->name);
	w->lookups++;
	w->hash_bytes += req->namelen;
	lookup_touch(u, w, from, req->name, req->namelen + 1);
}

bool symbol_lookup(struct process *p, struct unique_table *u, struct lookup_req *req,
		   struct lookup_work *w, struct lookup_result *res)
{
	*res = (struct lookup_result){{-1, 0}, false, false, -1};
	lookup_count(u, w, p->obj[req->undef]->elf, req);
	if (!lookup_scopes(p, u, req, req->tclass, w, res))
		return false;
	apply_protected(p, u, req, w, res);
	return true;
}

bool symbol_lookup_program(struct process *p, struct unique_table *u, struct lookup_req *req,
			   struct lookup_work *w, struct lookup_result *res)
{
	*res = (struct lookup_result){{-1, 0}, false, false, -1};
	if (req->tclass & RTYPE_CLASS_COPY)
		return false; /* a copy relocation never looks in the program */
	return lookup_list(p, u, p->scope, 1, req, req->tclass, w, res);
}

bool symbol_lookup_rest(struct process *p, struct unique_table *u, struct lookup_req *req,
			struct lookup_work *w, struct lookup_result *res)
{
	*res = (struct lookup_result){{-1, 0}, false, false, -1};
	return lookup_list(p, u, p->scope + 1, p->nscope - 1, req, req->tclass, w, res);
}

bool symbol_lookup_in(struct process *p, struct unique_table *u, const int *list, size_t n,
		      struct lookup_req *req, struct lookup_work *w, struct lookup_result *res)
{
	*res = (struct lookup_result){{-1, 0}, false, false, -1};
	lookup_count(u, w, p->obj[req->undef]->elf, req);
	return lookup_list(p, u, list, n, req, req->tclass, w, res);
}

void unique_table_free(struct unique_table *u)
{
	strmap_free(&u->map, free);
	free(u->lines.slot);
	free(u->pages.slot);
	free(u->windows.slot);
	memset(&u->lines, 0, sizeof u->lines);
	u->nstream = 0;
	memset(&u->pages, 0, sizeof u->pages);
	memset(&u->windows, 0, sizeof u->windows);
}
