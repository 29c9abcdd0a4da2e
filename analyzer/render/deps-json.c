/*
 * JSON output of `ldprof deps`, schema "ldprof-deps/1" (docs/analyzer.md).
 * Objects are numbered by their position in the load list ("index"); every
 * reference to an object elsewhere in the document uses that number.
 */
#include <string.h>

#include "model/deps-report.h"
#include "base/out/json.h"

static void json_u(struct json *j, const char *key, uint64_t v)
{
	json_int(j, key, (long long)v);
}

/* An object by its index in the load list; null for none (and for ld.so
   when nothing needs it, as it is then not in the list). */
void json_obj_ref(struct json *j, const char *key, const struct deps_report *r, int obj);
void json_obj_ref(struct json *j, const char *key, const struct deps_report *r, int obj)
{
	if (obj < 0 || r->pos[obj] < 0)
		json_null(j, key);
	else
		json_int(j, key, r->pos[obj]);
}

void deps_json_loader(struct json *j, const struct ldenv *env, const struct deps_options *opt)
{
	json_obj_open(j, "loader");
	json_str(j, "model", "glibc 2.36 ld.so, x86-64");
	json_str(j, "platform", env->hw.platform);
	json_arr_open(j, "glibc_hwcaps");
	for (size_t i = 0; i < env->hw.nglibc_names; i++)
		json_str(j, NULL, env->hw.glibc_names[i]);
	json_arr_close(j);
	json_arr_open(j, "subdirectories");
	for (size_t i = 0; i < env->hw.nsubdir; i++)
		json_str(j, NULL, env->hw.subdir[i]);
	json_arr_close(j);
	json_str(j, "ld_so_cache", env->cache.absent ? NULL : env->cache.path);
	json_str(j, "library_path", env->library_path);
	json_arr_open(j, "preload");
	for (size_t i = 0; i < env->npreload; i++)
		json_str(j, NULL, env->preload[i]);
	json_arr_close(j);
	json_bool(j, "bind_now", opt->bind_now);
	json_bool(j, "vdso", env->vdso != NULL);
	json_obj_close(j);
}

static void relocations(struct json *j, const struct elfobj *o)
{
	const struct reloc_counts *c = &o->relocs;

	json_obj_open(j, "relocations");
	json_u(j, "total", reloc_counts_total(c));
	json_u(j, "relative", c->relative);
	json_u(j, "relr", c->relr);
	json_u(j, "glob_dat", c->glob_dat);
	json_u(j, "jump_slot", c->jump_slot);
	json_u(j, "symbolic", c->symbolic);
	json_u(j, "tls", c->tls);
	json_u(j, "irelative", c->irelative);
	json_u(j, "copy", c->copy);
	json_u(j, "other", c->other);
	json_u(j, "needing_lookup", o->nsymrefs);
	json_u(j, "pages_written", o->reloc_pages);
	json_u(j, "pages_faulted", o->reloc_pages_faulted);
	json_obj_close(j);
}

static void hash_facts(struct json *j, const struct elfobj *o)
{
	json_obj_open(j, "hash");
	json_str(j, "style", elf_hash_style_name(o->hash.style));
	json_bool(j, "has_gnu", o->hash.has_gnu);
	json_bool(j, "has_sysv", o->hash.has_sysv);
	json_u(j, "buckets", o->hash.nbuckets);
	json_u(j, "used_buckets", o->hash.used_buckets);
	json_num(j, "average_chain", o->hash.avg_chain);
	json_u(j, "longest_chain", o->hash.max_chain);
	json_u(j, "bloom_words", o->hash.bloom_words);
	json_u(j, "symbols", o->nsyms);
	json_obj_close(j);
}

static void binding_flags(struct json *j, const struct elfobj *o)
{
	json_obj_open(j, "flags");
	json_bool(j, "bind_now", o->bind_now);
	json_bool(j, "dt_bind_now", elfobj_dyn(o, DT_BIND_NOW) != NULL);
	json_bool(j, "df_bind_now", (o->dt_flags & DF_BIND_NOW) != 0);
	json_bool(j, "df_1_now", (o->dt_flags_1 & DF_1_NOW) != 0);
	json_bool(j, "textrel", o->textrel);
	json_bool(j, "relro", o->relro_size != 0);
	json_u(j, "relro_size", o->relro_size);
	json_bool(j, "symbolic", o->symbolic);
	json_bool(j, "nodeflib", (o->dt_flags_1 & DF_1_NODEFLIB) != 0);
	json_obj_close(j);
}

static void versions(struct json *j, const struct elfobj *o)
{
	json_arr_open(j, "versions_needed");
	for (size_t i = 0; i < o->nvneeds; i++) {
		json_obj_open(j, NULL);
		json_str(j, "file", o->vneeds[i].file);
		json_str(j, "version", o->vneeds[i].name);
		json_bool(j, "weak", o->vneeds[i].weak);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "versions_defined");
	for (size_t i = 0; i < o->nvdefs; i++)
		if (!o->vdefs[i].base)
			json_str(j, NULL, o->vdefs[i].name);
	json_arr_close(j);
}

static void loads(struct json *j, const struct elfobj *o)
{
	json_arr_open(j, "load_segments");
	for (size_t i = 0; i < o->nloads; i++) {
		const struct elf_load_seg *s = &o->loads[i];
		char fl[4] = {s->flags & PF_R ? 'r' : '-', s->flags & PF_W ? 'w' : '-',
			      s->flags & PF_X ? 'x' : '-', '\0'};
		json_obj_open(j, NULL);
		json_str(j, "flags", fl);
		json_u(j, "file_size", s->filesz);
		json_u(j, "memory_size", s->memsz);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void facts(struct json *j, const struct elfobj *o)
{
	json_obj_open(j, "facts");
	json_str(j, "kind", elf_kind_name(o->kind));
	json_str(j, "soname", o->soname);
	json_str(j, "rpath", o->rpath);
	json_str(j, "runpath", o->runpath);
	relocations(j, o);
	binding_flags(j, o);
	hash_facts(j, o);
	json_u(j, "init_functions", o->init_funcs);
	json_u(j, "fini_functions", o->fini_funcs);
	loads(j, o);
	versions(j, o);
	json_obj_close(j);
}

static void work(struct json *j, const char *key, const struct lookup_work *w)
{
	json_obj_open(j, key);
	json_u(j, "lookups", w->lookups);
	json_u(j, "cached", w->cached);
	json_u(j, "probes", w->probes);
	json_u(j, "bloom_rejects", w->bloom_rejects);
	json_u(j, "chain_entries", w->chain);
	json_u(j, "strcmps", w->strcmps);
	json_obj_close(j);
}

static void binding(struct json *j, const struct obj_binding *b)
{
	json_obj_open(j, "binding");
	json_bool(j, "relocated", b->relocated);
	json_bool(j, "lazy", b->lazy);
	work(j, "startup", &b->work);
	work(j, "deferred", &b->deferred);
	json_u(j, "ifunc_calls", b->ifunc_calls);
	json_u(j, "undefined", b->missing);
	json_u(j, "weak_undefined", b->weak_undef);
	json_obj_close(j);
}

static void found(struct json *j, const struct dso *d)
{
	json_obj_open(j, "found");
	json_str(j, "via", found_via_name(d->via));
	json_str(j, "from", d->via_owner);
	json_str(j, "directory", d->via_dir);
	json_obj_close(j);
}

static void tried(struct json *j, const struct dso *d)
{
	json_arr_open(j, "tried");
	for (size_t i = 0; i < d->ntried; i++) {
		json_obj_open(j, NULL);
		json_str(j, "path", d->tried[i].path);
		json_str(j, "step", d->tried[i].what);
		json_str(j, "of", d->tried[i].where);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void needed(struct json *j, const struct deps_report *r, int oi, const struct dso *d)
{
	json_arr_open(j, "needed");
	for (size_t i = 0; i < d->ndeps; i++) {
		const struct dso_dep *dep = &d->deps[i];
		json_obj_open(j, NULL);
		json_str(j, "name", dep->name);
		json_obj_ref(j, "object", r, dep->obj);
		json_str(j, "how", dep_how_name(dep->how));
		json_str(j, "tag",
			 dep->filter	  ? "DT_FILTER"
			 : dep->auxiliary ? "DT_AUXILIARY"
					  : "DT_NEEDED");
		json_u(j, "symbols", bind_imports(&r->bs, oi, dep->obj));
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void imports(struct json *j, const struct deps_report *r, int oi)
{
	json_arr_open(j, "imports");
	for (size_t k = 0; k < r->p.nchain; k++) {
		uint32_t n = bind_imports(&r->bs, oi, r->p.chain[k]);
		if (!n)
			continue;
		json_obj_open(j, NULL);
		json_int(j, "object", (long long)k);
		json_u(j, "symbols", n);
		json_obj_close(j);
	}
	json_arr_close(j);
}

void deps_json_object(struct json *j, const struct deps_report *r, size_t k);
void deps_json_object(struct json *j, const struct deps_report *r, size_t k)
{
	int oi = r->p.chain[k];
	const struct dso *d = r->p.obj[oi];

	json_obj_open(j, NULL);
	json_int(j, "index", (long long)k);
	json_str(j, "name", d->name);
	json_str(j, "path", d->faked ? NULL : dso_display(d));
	json_str(j, "role", dso_role(d));
	json_bool(j, "missing", d->faked);
	found(j, d);
	if (d->faked)
		tried(j, d);
	json_obj_ref(j, "loaded_by", r, d->loader);
	json_int(j, "scope_position", d->scope_pos);
	needed(j, r, oi, d);
	if (d->elf) {
		facts(j, d->elf);
		binding(j, &r->bs.obj[oi]);
		imports(j, r, oi);
	}
	json_obj_close(j);
}
