/*
 * The per-file part of the "ldprof-deps/1" document: lists, totals,
 * unused dependencies, what is missing and, with --bindings, every
 * binding (deps-json.c writes the objects).
 */
#include <string.h>

#include "model/deps-report.h"
#include "base/out/json.h"

void deps_json_object(struct json *j, const struct deps_report *r, size_t k);
void json_obj_ref(struct json *j, const char *key, const struct deps_report *r, int obj);

static void index_list(struct json *j, const char *key, const struct deps_report *r,
		       const int *list, size_t n)
{
	json_arr_open(j, key);
	for (size_t i = 0; i < n; i++)
		json_obj_ref(j, NULL, r, list[i]);
	json_arr_close(j);
}

static void totals(struct json *j, const struct deps_report *r)
{
	uint64_t relocs = 0, pages = 0, init = 0, deferred = 0;

	for (size_t k = 0; k < r->p.nchain; k++) {
		int oi = r->p.chain[k];
		const struct elfobj *o = r->p.obj[oi]->elf;
		if (!o)
			continue;
		relocs += reloc_counts_total(&o->relocs);
		pages += o->reloc_pages;
		init += o->init_funcs;
		deferred += r->bs.obj[oi].deferred.lookups;
	}
	json_obj_open(j, "totals");
	json_int(j, "objects", (long long)r->p.nchain);
	json_int(j, "relocations", (long long)relocs);
	json_int(j, "pages_written", (long long)pages);
	json_int(j, "init_functions", (long long)init);
	json_int(j, "lookups", (long long)r->bs.total.lookups);
	json_int(j, "cached", (long long)r->bs.total.cached);
	json_int(j, "deferred_lookups", (long long)deferred);
	json_int(j, "probes", (long long)r->bs.total.probes);
	json_int(j, "bloom_rejects", (long long)r->bs.total.bloom_rejects);
	json_int(j, "chain_entries", (long long)r->bs.total.chain);
	json_int(j, "strcmps", (long long)r->bs.total.strcmps);
	json_obj_close(j);
}

static void unused(struct json *j, const struct deps_report *r)
{
	json_arr_open(j, "unused");
	for (size_t i = 0; i < r->nunused; i++) {
		const struct unused_dep *u = &r->unused[i];
		json_obj_open(j, NULL);
		json_obj_ref(j, "object", r, u->obj);
		json_obj_ref(j, "needed", r, u->dep);
		json_str(j, "name", u->name);
		json_bool(j, "unused_by_all", u->unused_by_all);
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void missing(struct json *j, const struct deps_report *r)
{
	static const char *const kinds[] = {"not-found", "weak-not-found", "no-version-info"};

	json_obj_open(j, "missing");
	json_arr_open(j, "libraries");
	for (size_t k = 0; k < r->p.nchain; k++)
		if (r->p.obj[r->p.chain[k]]->faked)
			json_int(j, NULL, (long long)k);
	json_arr_close(j);
	json_arr_open(j, "preloads");
	for (size_t i = 0; i < r->p.npreload_failed; i++) {
		json_obj_open(j, NULL);
		json_str(j, "name", r->p.preload_failed[i].name);
		json_str(j, "from", r->p.preload_failed[i].from);
		json_str(j, "why", r->p.preload_failed[i].why);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "versions");
	for (size_t i = 0; i < r->bs.nvp; i++) {
		json_obj_open(j, NULL);
		json_obj_ref(j, "object", r, r->bs.vp[i].obj);
		json_str(j, "file", r->bs.vp[i].file);
		json_str(j, "version", r->bs.vp[i].version);
		json_str(j, "kind", kinds[r->bs.vp[i].kind]);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_arr_open(j, "symbols");
	for (size_t i = 0; i < r->nmissing; i++) {
		json_obj_open(j, NULL);
		json_obj_ref(j, "object", r, r->missing[i].obj);
		json_str(j, "symbol", r->missing[i].name);
		json_str(j, "version", r->missing[i].version);
		json_int(j, "relocations", r->missing[i].relocations);
		json_bool(j, "untraced", r->missing[i].untraced);
		json_str(j, "why", r->missing[i].why);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* An object's index in the load list, or null (json_obj_ref's, raw). */
static void raw_ref(struct json *j, const struct deps_report *r, int obj)
{
	if (obj < 0 || r->pos[obj] < 0)
		JSON_RAW_LIT(j, "null");
	else
		json_raw_int(j, r->pos[obj]);
}

static size_t name_len(const char *s, uint16_t n)
{
	return n == UINT16_MAX ? strlen(s) : n;
}

/* The constant pieces of a binding in the document's layout. */
enum piece {
	P_OPEN,	  /* the member's '{' */
	P_FROM,	  /* up to the value of "from" */
	P_SYMBOL, /* between a value and the value of "symbol" */
	P_VERSION,
	P_TO,
	P_TYPE,
	P_FLAGS,      /* up to the flags array's '[' */
	P_FLAG_FIRST, /* before the first flag */
	P_FLAG_NEXT,  /* before every other */
	P_FLAGS_END,  /* the ']' after at least one flag */
	P_CLOSE,
	NPIECES
};

struct pieces {
	char s[NPIECES][96]; /* indentation of at most JSON_MAX_DEPTH + 2 levels fits */
	size_t n[NPIECES];
};

/* pre, then the indentation of level (when pretty), then post. */
static void piece(struct pieces *p, enum piece k, bool pretty, int level, const char *pre,
		  const char *post)
{
	int n = snprintf(p->s[k], sizeof p->s[k], "%s%*s%s", pretty ? pre : "",
			 pretty ? 2 * level : 0, "", post);

	p->n[k] = (size_t)n;
}

/* What json_obj_open, the key calls and the closes would write there. */
static void pieces_for(struct pieces *p, const struct json *j)
{
	bool pt = j->pretty;
	int d = j->depth; /* the array's members' level */

	piece(p, P_OPEN, pt, d, "\n", "{");
	piece(p, P_FROM, pt, d + 1, "\n", pt ? "\"from\": " : "\"from\":");
	piece(p, P_SYMBOL, pt, d + 1, ",\n", pt ? "\"symbol\": " : ",\"symbol\":");
	piece(p, P_VERSION, pt, d + 1, ",\n", pt ? "\"version\": " : ",\"version\":");
	piece(p, P_TO, pt, d + 1, ",\n", pt ? "\"to\": " : ",\"to\":");
	piece(p, P_TYPE, pt, d + 1, ",\n", pt ? "\"type\": " : ",\"type\":");
	piece(p, P_FLAGS, pt, d + 1, ",\n", pt ? "\"flags\": [" : ",\"flags\":[");
	piece(p, P_FLAG_FIRST, pt, d + 2, "\n", "");
	piece(p, P_FLAG_NEXT, pt, d + 2, ",\n", pt ? "" : ",");
	piece(p, P_FLAGS_END, pt, d + 1, "\n", "]");
	piece(p, P_CLOSE, pt, d, "\n", "}");
}

static void put_piece(struct json *j, const struct pieces *p, enum piece k)
{
	json_raw(j, p->s[k], p->n[k]);
}

/*
 * One binding, assembled from known pieces rather than a writer call per
 * key and value: a whole /usr/bin has millions, and the calls cost twice
 * the text listing's time (docs/json.md). The bytes are those the calls
 * would write: t2065 checks both layouts against Python's json.dumps.
 */
static void binding(struct json *j, const struct pieces *p, const struct deps_report *r,
		    const struct binding *b)
{
	const char *type = b->type ? reloc_type_name(b->type) : "lookup";
	bool any = false;

	json_raw_member(j, p->s[P_OPEN], p->n[P_OPEN]);
	put_piece(j, p, P_FROM);
	raw_ref(j, r, b->from);
	put_piece(j, p, P_SYMBOL);
	json_raw_str(j, b->name, name_len(b->name, b->namelen));
	put_piece(j, p, P_VERSION);
	if (b->version)
		json_raw_str(j, b->version, name_len(b->version, b->verlen));
	else
		JSON_RAW_LIT(j, "null");
	put_piece(j, p, P_TO);
	raw_ref(j, r, b->to);
	put_piece(j, p, P_TYPE);
	json_raw_str(j, type, strlen(type));
	put_piece(j, p, P_FLAGS);
	for (unsigned bit = 0; bit < BIND_NFLAGS; bit++)
		if (b->flags & 1u << bit) {
			const char *f = bind_flag_name(bit);
			put_piece(j, p, any ? P_FLAG_NEXT : P_FLAG_FIRST);
			json_raw_str(j, f, strlen(f));
			any = true;
		}
	if (any)
		put_piece(j, p, P_FLAGS_END);
	else
		JSON_RAW_LIT(j, "]");
	put_piece(j, p, P_CLOSE);
}

static void bindings(struct json *j, const struct deps_report *r)
{
	struct pieces p;

	json_arr_open(j, "bindings");
	pieces_for(&p, j);
	for (size_t i = 0; i < r->bs.n; i++)
		binding(j, &p, r, &r->bs.b[i]);
	json_arr_close(j);
}

void deps_json_file(struct json *j, const struct deps_report *r, const struct deps_options *opt)
{
	const struct dso *m = r->p.obj[r->p.main];

	json_obj_open(j, NULL);
	json_str(j, "file", r->file);
	json_str(j, "kind", elf_kind_name(m->elf->kind));
	json_str(j, "interpreter", m->elf->interp);
	json_bool(j, "static", r->p.is_static);
	json_str(j, "fatal", r->p.fatal);
	json_arr_open(j, "objects");
	for (size_t k = 0; k < r->p.nchain; k++)
		deps_json_object(j, r, k);
	json_arr_close(j);
	index_list(j, "scope", r, r->p.scope, r->p.nscope);
	index_list(j, "init_order", r, r->p.initorder, r->p.ninit);
	totals(j, r);
	unused(j, r);
	missing(j, r);
	if (opt->bindings)
		bindings(j, r);
	json_obj_close(j);
}
