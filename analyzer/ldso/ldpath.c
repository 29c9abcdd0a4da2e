#include "ldso/ldpath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static bool ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Length of the token ref at s (just after '$'), as is_dst: the longest
   identifier must be exactly ref, or "{ref}". 0 if it is not ref. */
static size_t is_dst(const char *s, const char *ref)
{
	size_t n = strlen(ref);
	bool curly = *s == '{';

	if (curly)
		s++;
	if (strncmp(s, ref, n) || (curly && s[n] != '}') || (!curly && ident_char(s[n])))
		return 0;
	return curly ? n + 2 : n;
}

bool dst_present(const char *s)
{
	for (s = strchr(s, '$'); s; s = strchr(s + 1, '$'))
		if (is_dst(s + 1, "ORIGIN") || is_dst(s + 1, "PLATFORM") || is_dst(s + 1, "LIB"))
			return true;
	return false;
}

char *dst_expand(const char *s, const char *origin, const char *platform)
{
	struct sbuf sb = {0};

	sbuf_printf(&sb, "%s", "");
	while (*s) {
		size_t n;
		const char *repl = NULL;
		if (*s != '$') {
			sbuf_putc(&sb, *s++);
			continue;
		}
		if ((n = is_dst(s + 1, "ORIGIN"))) {
			if (!origin) { /* unknown origin: the whole path goes */
				sb.len = 0;
				sb.buf[0] = '\0';
				return sb.buf;
			}
			repl = origin;
		} else if ((n = is_dst(s + 1, "PLATFORM"))) {
			repl = platform;
		} else if ((n = is_dst(s + 1, "LIB"))) {
			repl = DST_LIB;
		}
		if (repl) {
			sbuf_printf(&sb, "%s", repl);
			s += 1 + n;
		} else {
			sbuf_putc(&sb, *s++);
		}
	}
	return sb.buf;
}

void dirstate_init(struct dirstate *ds, const struct hwcaps *hw)
{
	memset(ds, 0, sizeof *ds);
	ds->hw = hw;
}

static void free_sdir(void *v)
{
	struct sdir *d = v;

	free(d->name);
	free(d->status);
	free(d);
}

void dirstate_free(struct dirstate *ds)
{
	strmap_free(&ds->dirs, free_sdir);
}

/* The process-wide entry for a directory (ld.so's dl_all_dirs). */
static struct sdir *dir_get(struct dirstate *ds, const char *name)
{
	struct sdir *d = strmap_get(&ds->dirs, name);

	if (d)
		return d;
	d = xcalloc(1, sizeof *d);
	d->name = xstrdup(name);
	d->status = xcalloc(ds->hw->nsubdir, 1);
	/* Relative directories are never written off: the working
	   directory may change. */
	if (name[0] != '/')
		memset(d->status, DIR_EXISTS, ds->hw->nsubdir);
	strmap_put(&ds->dirs, name, d);
	return d;
}

/* One element of a list, normalised: trailing slashes folded into one. */
static char *normalise(const char *elem, size_t len, const char *origin, const char *platform)
{
	char *raw = xmalloc(len + 1), *dir;
	size_t n;

	memcpy(raw, elem, len);
	raw[len] = '\0';
	if (!len)
		return raw; /* an empty element is the current directory */
	dir = dst_expand(raw, origin, platform);
	free(raw);
	n = strlen(dir);
	if (!n) {
		free(dir);
		return NULL;
	}
	while (n > 1 && dir[n - 1] == '/')
		n--;
	dir = xrealloc(dir, n + 2);
	if (dir[n - 1] != '/')
		dir[n++] = '/';
	dir[n] = '\0';
	return dir;
}

struct spath *spath_new(struct dirstate *ds, const char *list, const char *seps, const char *what,
			const char *where, const char *origin, const char *platform)
{
	struct spath *sp = xcalloc(1, sizeof *sp);
	size_t cap = 0;

	sp->what = what;
	sp->where = where;
	for (const char *p = list;;) {
		size_t len = strcspn(p, seps);
		char *name = normalise(p, len, origin, platform);
		if (name) {
			struct sdir *d = dir_get(ds, name);
			size_t i;
			for (i = 0; i < sp->n && sp->dir[i] != d; i++)
				;
			if (i == sp->n) {
				GROW(sp->dir, cap, sp->n);
				sp->dir[sp->n++] = d;
			}
			free(name);
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	if (!sp->n) {
		spath_free(sp);
		return NULL;
	}
	return sp;
}

void spath_free(struct spath *sp)
{
	if (sp)
		free(sp->dir);
	free(sp);
}

void tried_add(struct tried **t, size_t *n, size_t *cap, const char *path, const char *what,
	       const char *where)
{
	GROW(*t, *cap, *n);
	(*t)[(*n)++] = (struct tried){xstrdup(path), what, where};
}

/* One directory: every subdirectory not known to be missing, in order.
   Returns true when a file was found or the search must stop. */
static bool search_dir(struct dirstate *ds, struct ldfs *fs, struct spath *sp, struct sdir *d,
		       const char *name, struct tried **tried, size_t *nt, size_t *tcap,
		       struct search_result *res, bool *any)
{
	const struct hwcaps *hw = ds->hw;
	bool here_any = false;
	int last_errno = 0;

	for (size_t c = 0; c < hw->nsubdir; c++) {
		if (d->status[c] == DIR_MISSING)
			continue;
		char *path = xasprintf("%s%s%s", d->name, hw->subdir[c], name);
		const struct probe *p = ldfs_probe(fs, path);
		tried_add(tried, nt, tcap, path, sp->what, sp->where);
		if (p->kind == PROBE_FATAL) {
			res->fatal = xasprintf("%s: %s", path, p->fatal);
			free(path);
			return true;
		}
		res->other_class |= p->other_class;
		last_errno = p->kind == PROBE_NONE ? p->err : ENOENT;
		if (d->status[c] == DIR_UNKNOWN) {
			if (p->kind == PROBE_OK) {
				d->status[c] = DIR_EXISTS;
			} else {
				char *dir = xasprintf("%s%s", d->name, hw->subdir[c]);
				int serr;
				d->status[c] =
					ldfs_is_dir(fs, dir, &serr) ? DIR_EXISTS : DIR_MISSING;
				if (serr)
					last_errno = serr;
				free(dir);
			}
		}
		here_any |= d->status[c] != DIR_MISSING;
		if (p->kind == PROBE_OK) {
			res->path = path;
			res->dir = d;
			res->subdir = c;
			return true;
		}
		free(path);
	}
	*any |= here_any;
	/* ld.so abandons the list when a file exists but opening it failed
	   for another reason than "no such file" or "permission denied". */
	if (here_any && last_errno != ENOENT && last_errno != EACCES)
		return true;
	return false;
}

void spath_search(struct dirstate *ds, struct ldfs *fs, struct spath *sp, const char *name,
		  struct tried **tried, size_t *ntried, size_t *tcap, struct search_result *res)
{
	bool any = false;

	memset(res, 0, sizeof *res);
	if (!sp || sp->dead)
		return;
	for (size_t i = 0; i < sp->n; i++)
		if (search_dir(ds, fs, sp, sp->dir[i], name, tried, ntried, tcap, res, &any))
			return;
	if (!any && !sp->permanent)
		sp->dead = true;
}
