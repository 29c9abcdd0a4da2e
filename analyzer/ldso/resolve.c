/*
 * Loading, as glibc 2.36's ld.so does it for a program it starts
 * (elf/rtld.c, elf/dl-load.c _dl_map_object, elf/dl-deps.c). The order of
 * the search steps, the name matching and the list bookkeeping follow the
 * loader; the comments name the function each part mirrors.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ldso/resolve.h"

/* The default directories on Debian's x86-64 glibc, in search order. */
static const char *const system_dirs[] = {
	"/lib/x86_64-linux-gnu/",
	"/usr/lib/x86_64-linux-gnu/",
	"/lib/",
	"/usr/lib/",
};

void process_finish_lists(struct process *p);

static void add_name(struct dso *d, const char *name)
{
	for (size_t i = 0; i < d->nnames; i++)
		if (!strcmp(d->names[i], name))
			return;
	GROW(d->names, d->capnames, d->nnames);
	d->names[d->nnames++] = xstrdup(name);
}

/* _dl_new_object's l_origin: the directory of the absolute file name. */
static char *origin_of(const char *realname)
{
	char cwd[PATH_MAX], *s, *slash;

	if (realname[0] == '/') {
		s = xstrdup(realname);
	} else {
		if (!getcwd(cwd, sizeof cwd))
			return NULL;
		s = xasprintf("%s%s%s", cwd, cwd[strlen(cwd) - 1] == '/' ? "" : "/", realname);
	}
	slash = strrchr(s, '/');
	if (slash == s)
		slash++;
	*slash = '\0';
	return s;
}

static int new_dso(struct process *p, const char *name, const char *path, struct elfobj *elf)
{
	struct dso *d = xcalloc(1, sizeof *d);

	d->elf = elf;
	d->name = xstrdup(name);
	d->path = xstrdup(path);
	d->loader = -1;
	d->scope_pos = -1;
	add_name(d, name);
	size_t cap = p->capobj;
	GROW(p->obj, p->capobj, p->nobj);
	if (cap != p->capobj)
		p->order = xrealloc(p->order, p->capobj * sizeof *p->order);
	p->obj[p->nobj] = d;
	p->order[p->nobj] = (int)p->nobj;
	return (int)p->nobj++;
}

/* _dl_name_match_p, then the lazy DT_SONAME match of _dl_map_object. */
static int match_loaded(struct process *p, const char *name, enum dep_how *how)
{
	for (size_t i = 0; i < p->nobj; i++) {
		struct dso *d = p->obj[i];
		if (d->faked)
			continue;
		if (!strcmp(name, d->path)) {
			*how = DEP_NAME;
			return (int)i;
		}
		for (size_t k = 0; k < d->nnames; k++)
			if (!strcmp(name, d->names[k])) {
				*how = DEP_NAME;
				return (int)i;
			}
		if (d->soname_added || !d->elf || !d->elf->soname || strcmp(name, d->elf->soname))
			continue;
		add_name(d, d->elf->soname);
		d->soname_added = true;
		*how = DEP_SONAME;
		return (int)i;
	}
	return -1;
}

/* cache_rpath: an object's RPATH or RUNPATH list, decomposed once. */
static struct spath *object_path(struct process *p, struct dso *d, bool runpath)
{
	const char *s = d->elf ? (runpath ? d->elf->runpath : d->elf->rpath) : NULL;

	if (runpath ? d->runpath_done : d->rpath_done)
		return runpath ? d->runpath : d->rpath;
	struct spath *sp =
		s && *s ? spath_new(&p->dirs, s, ":", runpath ? "RUNPATH" : "RPATH",
				    d->is_main ? d->name : d->path, d->origin, p->env->hw.platform)
			: NULL;
	if (runpath) {
		d->runpath = sp;
		d->runpath_done = true;
	} else {
		d->rpath = sp;
		d->rpath_done = true;
	}
	return sp;
}

struct search {
	struct dso *loader; /* NULL for none */
	int loader_idx;
	const char *name;
	struct tried *tried;
	size_t ntried, cap;
	struct search_result res;
	enum found_via via;
	const char *owner;
	bool other_class;
};

static bool try_list(struct process *p, struct search *s, struct spath *sp, enum found_via via,
		     const char *owner)
{
	if (!sp)
		return false;
	spath_search(&p->dirs, &p->env->fs, sp, s->name, &s->tried, &s->ntried, &s->cap, &s->res);
	s->other_class |= s->res.other_class;
	if (s->res.fatal)
		return true;
	if (s->res.path) {
		s->via = via;
		s->owner = owner;
		return true;
	}
	return false;
}

static bool under_system_dir(const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(system_dirs); i++)
		if (!strncmp(path, system_dirs[i], strlen(system_dirs[i])))
			return true;
	return false;
}

/* The ld.so.cache step, skipped for a DF_1_NODEFLIB requester's system
   directories. */
static bool try_cache(struct process *p, struct search *s)
{
	struct dso *l = s->loader ? s->loader : p->obj[p->main];
	const char *hit = ldcache_lookup(&p->env->cache, s->name);
	const struct probe *pr;

	if (!hit)
		return false;
	/* ld.so reports the hit ("trying file=") before it rejects it. */
	if ((l->elf->dt_flags_1 & DF_1_NODEFLIB) && under_system_dir(hit)) {
		tried_add(&s->tried, &s->ntried, &s->cap, hit, "ld.so.cache, refused by NODEFLIB",
			  p->env->cache.path);
		return false;
	}
	tried_add(&s->tried, &s->ntried, &s->cap, hit, "ld.so.cache", p->env->cache.path);
	pr = ldfs_probe(&p->env->fs, hit);
	s->other_class |= pr->other_class;
	if (pr->kind == PROBE_FATAL) {
		s->res.fatal = xasprintf("%s: %s", hit, pr->fatal);
		return true;
	}
	if (pr->kind != PROBE_OK)
		return false;
	s->res.path = xstrdup(hit);
	s->via = VIA_CACHE;
	return true;
}

/* The search order of _dl_map_object for a name without '/'. */
static void search(struct process *p, struct search *s)
{
	struct dso *main = p->obj[p->main];

	if (!s->loader || !s->loader->elf || !s->loader->elf->runpath) {
		bool did_main = false;
		for (struct dso *l = s->loader; l; l = l->loader >= 0 ? p->obj[l->loader] : NULL) {
			struct spath *sp = object_path(p, l, false);
			if (!sp)
				continue;
			if (try_list(p, s, sp, VIA_RPATH, sp->where))
				return;
			did_main |= l == main;
		}
		if (!did_main && try_list(p, s, object_path(p, main, false), VIA_RPATH, main->name))
			return;
	}
	if (try_list(p, s, p->libpath, VIA_LIBPATH, NULL))
		return;
	if (s->loader && s->loader->elf &&
	    try_list(p, s, object_path(p, s->loader, true), VIA_RUNPATH, s->loader->path))
		return;
	if (!p->env->cache.absent && try_cache(p, s))
		return;
	struct dso *l = s->loader ? s->loader : main;
	if (!(l->elf->dt_flags_1 & DF_1_NODEFLIB))
		try_list(p, s, p->defaults, VIA_DEFAULT, NULL);
}

static void keep_tried(struct dso *d, struct search *s)
{
	d->tried = s->tried;
	d->ntried = s->ntried;
	d->captried = s->cap;
	s->tried = NULL;
	s->ntried = s->cap = 0;
}

static void free_tried(struct tried *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].path);
	free(t);
}

static int fail_fatal(struct process *p, struct search *s, char *msg)
{
	if (!p->fatal)
		p->fatal = msg;
	else
		free(msg);
	free_tried(s->tried, s->ntried);
	free(s->res.path);
	return -1;
}

/* A file that passed open_verify: the object already loaded from it
   (_dl_map_object_from_fd's file id check), or a new one. */
static int use_file(struct process *p, struct search *s, enum dep_how *how)
{
	const struct probe *pr = ldfs_probe(&p->env->fs, s->res.path);
	const char *error;
	struct elfobj *elf;
	int idx;

	for (size_t i = 0; i < p->nobj; i++) {
		struct dso *d = p->obj[i];
		if (d->faked || d->is_main || d->is_vdso || !d->elf)
			continue;
		if (d->elf->dev == pr->dev && d->elf->ino == pr->ino) {
			add_name(d, s->name);
			*how = DEP_SAME_FILE;
			free_tried(s->tried, s->ntried);
			free(s->res.path);
			return (int)i;
		}
	}
	elf = ldfs_object(&p->env->fs, s->res.path, pr, &error);
	if (!elf)
		return fail_fatal(p, s, xstrdup(error));
	idx = new_dso(p, s->name, s->res.path, elf);
	struct dso *d = p->obj[idx];
	d->loader = s->loader_idx;
	d->via = s->via;
	d->via_owner = s->owner;
	if (s->res.dir)
		d->via_dir = xasprintf("%s%s", s->res.dir->name, p->env->hw.subdir[s->res.subdir]);
	d->origin = origin_of(s->res.path);
	keep_tried(d, s);
	free(s->res.path);
	*how = DEP_LOADED;
	return idx;
}

/* A name ld.so could not find: in trace mode it adds a stand-in ("not
   found") and goes on, which is how every missing library gets listed. */
static int add_faked(struct process *p, struct search *s)
{
	int idx = new_dso(p, s->name, s->name, NULL);
	struct dso *d = p->obj[idx];

	d->faked = true;
	d->loader = s->loader_idx;
	d->via = VIA_NOT_FOUND;
	d->other_class = s->other_class;
	keep_tried(d, s);
	return idx;
}

/*
 * _dl_map_object: name as requested by loader_idx (-1: none). Returns the
 * object, -1 when ld.so would stop (p->fatal), or -2 for a preload that is
 * not found (*why says why).
 */
static int map_object(struct process *p, int loader_idx, const char *name, bool trace,
		      enum dep_how *how, char **why)
{
	struct search s = {.loader = loader_idx >= 0 ? p->obj[loader_idx] : NULL,
			   .loader_idx = loader_idx,
			   .name = name};
	int idx = match_loaded(p, name, how);

	if (idx >= 0)
		return idx;
	if (!strchr(name, '/')) {
		search(p, &s);
	} else {
		char *real = s.loader ? dst_expand(name, s.loader->origin, p->env->hw.platform)
				      : xstrdup(name);
		const struct probe *pr = ldfs_probe(&p->env->fs, real);
		tried_add(&s.tried, &s.ntried, &s.cap, real, "path", NULL);
		s.other_class = pr->other_class;
		if (pr->kind == PROBE_FATAL)
			s.res.fatal = xasprintf("%s: %s", real, pr->fatal);
		if (pr->kind == PROBE_OK) {
			s.res.path = real;
			s.via = VIA_PATH;
		} else {
			free(real);
		}
	}
	if (s.res.fatal)
		return fail_fatal(p, &s, s.res.fatal);
	if (s.res.path)
		return use_file(p, &s, how);
	*how = DEP_MISSING;
	if (trace)
		return add_faked(p, &s);
	*why = xstrdup(s.other_class ? "wrong ELF class: ELFCLASS32"
				     : "cannot open shared object file: No such file or directory");
	free_tried(s.tried, s.ntried);
	return -2;
}

static void add_dep(struct dso *d, const char *name, int obj, enum dep_how how, int64_t tag)
{
	GROW(d->deps, d->capdeps, d->ndeps);
	d->deps[d->ndeps++] =
		(struct dso_dep){xstrdup(name), obj, how, tag == DT_FILTER, tag == DT_AUXILIARY};
}

/* The breadth-first list _dl_map_object_deps builds ("known"). */
struct bfs {
	int *obj;
	bool *done;
	size_t n, cap;
};

static void bfs_insert(struct bfs *b, size_t at, int obj)
{
	size_t cap = b->cap;

	GROW(b->obj, b->cap, b->n);
	if (cap != b->cap)
		b->done = xrealloc(b->done, b->cap * sizeof *b->done);
	memmove(b->obj + at + 1, b->obj + at, (b->n - at) * sizeof *b->obj);
	memmove(b->done + at + 1, b->done + at, (b->n - at) * sizeof *b->done);
	b->obj[at] = obj;
	b->done[at] = false;
	b->n++;
}

static bool bfs_has(const struct bfs *b, int obj, size_t *at)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->obj[i] == obj) {
			*at = i;
			return true;
		}
	return false;
}

/* The loader's list of objects: a filtee later than its filter moves to
   just before it, as _dl_map_object_deps relinks it. */
static void chain_move_before(struct process *p, int obj, int before)
{
	size_t from = 0, to = 0;

	for (size_t i = 0; i < p->nobj; i++) {
		if (p->order[i] == obj)
			from = i;
		if (p->order[i] == before)
			to = i;
	}
	if (from <= to)
		return;
	memmove(p->order + to + 1, p->order + to, (from - to) * sizeof *p->order);
	p->order[to] = obj;
}

/* DT_FILTER/DT_AUXILIARY: the filtee goes just before the filter, so its
   symbols are found first; a filtee already later in the list moves up. */
static size_t place_filtee(struct bfs *b, size_t cur, int obj)
{
	size_t at;

	if (bfs_has(b, obj, &at)) {
		if (at < cur)
			return cur;
		memmove(b->obj + at, b->obj + at + 1, (b->n - at - 1) * sizeof *b->obj);
		memmove(b->done + at, b->done + at + 1, (b->n - at - 1) * sizeof *b->done);
		b->n--;
	}
	bfs_insert(b, cur, obj);
	return cur + 1;
}

static int64_t dep_tag(const struct elfobj *o, size_t i, const char **name)
{
	const GElf_Dyn *d = &o->dyn[i];

	if (d->d_tag != DT_NEEDED && d->d_tag != DT_FILTER && d->d_tag != DT_AUXILIARY)
		return 0;
	*name = elfobj_dynstr(o, d->d_un.d_val);
	return *name ? d->d_tag : 0;
}

/* One object's DT_NEEDED and filter entries, in .dynamic order. */
static void load_deps_of(struct process *p, struct bfs *b, size_t *cur)
{
	int li = b->obj[*cur];
	struct dso *l = p->obj[li];
	const char *raw;

	for (size_t i = 0; l->elf && i < l->elf->ndyn; i++) {
		int64_t tag = dep_tag(l->elf, i, &raw);
		enum dep_how how;
		char *why = NULL;
		if (!tag)
			continue;
		char *name = dst_present(raw) ? dst_expand(raw, l->origin, p->env->hw.platform)
					      : xstrdup(raw);
		if (!*name) { /* expand_dst: ld.so skips the entry */
			add_dep(l, raw, -1, DEP_SKIPPED, tag);
			free(name);
			continue;
		}
		bool had_fatal = p->fatal != NULL;
		int dep = map_object(p, li, name, true, &how, &why);
		l = p->obj[li];
		if (dep < 0 && tag == DT_AUXILIARY && !had_fatal) {
			/* ld.so ignores any error loading an auxiliary filtee. */
			free(p->fatal);
			p->fatal = NULL;
			add_dep(l, name, -1, DEP_MISSING, tag);
		} else if (dep >= 0) {
			add_dep(l, name, dep, how, tag);
			size_t at;
			if (tag != DT_NEEDED) {
				chain_move_before(p, dep, li);
				*cur = place_filtee(b, *cur, dep);
			} else if (!bfs_has(b, dep, &at))
				bfs_insert(b, b->n, dep);
		}
		free(name);
		if (p->fatal)
			return;
	}
}

/* Filtees inserted before the current object are processed next, as
   the loader leaves its cursor on the inserted entry. */
static void load_all_deps(struct process *p, struct bfs *b)
{
	for (size_t cur = 0; cur < b->n;) {
		size_t start = cur;
		load_deps_of(p, b, &cur);
		b->done[cur] = true;
		if (p->fatal)
			return;
		for (cur = start; cur < b->n && b->done[cur]; cur++)
			;
	}
}

static void do_preloads(struct process *p, struct bfs *b)
{
	struct ldenv *env = p->env;

	for (size_t i = 0; i < env->npreload && !p->fatal; i++) {
		enum dep_how how;
		char *why = NULL;
		size_t before = p->nobj;
		int idx = map_object(p, p->main, env->preload[i], false, &how, &why);
		if (idx == -2) {
			GROW(p->preload_failed, p->cappf, p->npreload_failed);
			p->preload_failed[p->npreload_failed++] = (struct preload_failure){
				xstrdup(env->preload[i]), why, env->preload_from[i]};
			continue;
		}
		if (idx >= 0 && p->nobj > before) { /* only new objects count */
			p->obj[idx]->is_preload = true;
			bfs_insert(b, b->n, idx);
		}
	}
}

static int add_main(struct process *p, const char *path, struct elfobj *elf, const char *origin,
		    struct errbuf *err)
{
	if (elf->kind == ELF_KIND_OTHER)
		return set_err(err, -ENOEXEC, "%s: not an executable or shared object", path);
	p->main = new_dso(p, path, path, elf);
	struct dso *m = p->obj[p->main];
	free(m->names[0]);
	m->names[0] = xstrdup(""); /* the kernel loaded it: l_name is "" */
	m->is_main = true;
	m->via = VIA_MAIN;
	m->origin = origin ? xstrdup(origin) : NULL;
	p->is_static = elf_kind_is_static(elf->kind) || !elf->dyn;
	return 0;
}

static int load_main(struct process *p, const char *path, struct errbuf *err)
{
	const struct probe *pr = ldfs_probe(&p->env->fs, path);
	const char *error;
	struct elfobj *elf;
	char real[PATH_MAX];

	if (pr->kind == PROBE_NONE)
		return set_err(err, -pr->err, "%s: %s", path, strerror(pr->err));
	if (pr->special) {
		struct stat st;
		bool dir = !stat(path, &st) && S_ISDIR(st.st_mode);
		return set_err(err, dir ? -EISDIR : -ENOEXEC, "%s: %s", path,
			       dir ? "is a directory" : "not a regular file");
	}
	elf = ldfs_object(&p->env->fs, path, pr, &error);
	if (!elf)
		return set_err(err, -ENOEXEC, "%s", error);
	/* $ORIGIN of a program started by the kernel: /proc/self/exe, which
	   has every symbolic link resolved. */
	char *origin = realpath(path, real) ? origin_of(real) : NULL;
	int r = add_main(p, path, elf, origin, err);
	free(origin);
	return r;
}

/* ld.so itself, mapped by the kernel: named by PT_INTERP and its soname. */
static void load_rtld(struct process *p)
{
	const char *interp = p->obj[p->main]->elf->interp;
	const struct probe *pr;
	const char *error = NULL;
	struct elfobj *elf = NULL;

	if (!interp)
		interp = p->env->default_interp;
	pr = ldfs_probe(&p->env->fs, interp);
	if (pr->kind == PROBE_OK)
		elf = ldfs_object(&p->env->fs, interp, pr, &error);
	if (!elf) {
		p->fatal = xasprintf("%s: %s", interp,
				     error ? error : "cannot open the program interpreter");
		return;
	}
	p->rtld = new_dso(p, interp, interp, elf);
	struct dso *r = p->obj[p->rtld];
	r->is_rtld = true;
	r->via = VIA_INTERP;
	if (elf->soname)
		add_name(r, elf->soname);
	r->origin = origin_of(interp);
}

static void load_vdso(struct process *p)
{
	struct elfobj *v = p->env->vdso;
	const char *name = v->soname ? v->soname : "linux-vdso.so.1";

	p->vdso = new_dso(p, name, name, v);
	p->obj[p->vdso]->is_vdso = true;
	p->obj[p->vdso]->via = VIA_VDSO;
}

/* _dl_init_paths: the program's own RPATH/RUNPATH, LD_LIBRARY_PATH (whose
   tokens expand for the program) and the default directories. */
static void init_paths(struct process *p)
{
	struct dso *m = p->obj[p->main];
	char *defaults;

	dirstate_init(&p->dirs, &p->env->hw);
	object_path(p, m, true);
	object_path(p, m, false);
	if (p->env->library_path && *p->env->library_path)
		p->libpath = spath_new(&p->dirs, p->env->library_path, ":;", "LD_LIBRARY_PATH",
				       NULL, m->origin, p->env->hw.platform);
	if (p->libpath)
		p->libpath->permanent = true;
	defaults = xasprintf("%s:%s:%s:%s", system_dirs[0], system_dirs[1], system_dirs[2],
			     system_dirs[3]);
	p->defaults = spath_new(&p->dirs, defaults, ":", "system search path", NULL, NULL, NULL);
	p->defaults->permanent = true;
	free(defaults);
}

/* Everything after the program itself is in place. */
static void load_rest(struct process *p)
{
	struct bfs b = {0};

	load_rtld(p);
	if (p->fatal)
		goto out;
	/* ld.so given itself as the program: nothing to load (ldd says
	   "statically linked"). */
	if (p->obj[p->rtld]->elf == p->obj[p->main]->elf) {
		p->is_static = true;
		goto out;
	}
	if (p->env->vdso)
		load_vdso(p);
	init_paths(p);
	bfs_insert(&b, 0, p->main);
	do_preloads(p, &b);
	if (!p->fatal)
		load_all_deps(p, &b);
	p->scope = xcalloc(b.n + 1, sizeof *p->scope);
	for (size_t i = 0; i < b.n; i++)
		if (!p->obj[b.obj[i]]->faked) {
			p->obj[b.obj[i]]->scope_pos = (int)p->nscope;
			p->scope[p->nscope++] = b.obj[i];
		}
	process_finish_lists(p);
out:
	free(b.obj);
	free(b.done);
}

static void process_init(struct process *p, struct ldenv *env)
{
	memset(p, 0, sizeof *p);
	p->env = env;
	p->rtld = p->vdso = -1;
}

int process_load(struct ldenv *env, const char *path, struct process *p, struct errbuf *err)
{
	int r;

	process_init(p, env);
	if ((r = load_main(p, path, err))) {
		process_free(p);
		return r;
	}
	if (!p->is_static)
		load_rest(p);
	return 0;
}

int process_load_elf(struct ldenv *env, const char *name, struct elfobj *elf, const char *origin,
		     struct process *p, struct errbuf *err)
{
	int r;

	process_init(p, env);
	if ((r = add_main(p, name, elf, origin, err))) {
		process_free(p);
		return r;
	}
	if (!p->is_static)
		load_rest(p);
	return 0;
}
