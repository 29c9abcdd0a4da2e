/*
 * The listings of `ldprof deps`: --bindings (one line per symbolic
 * relocation, in the order ld.so performs them), --unused and --missing.
 */
#include <stdlib.h>
#include <string.h>

#include "base/out/textsafe.h"
#include "model/deps-report.h"

struct line {
	char buf[4096];
	size_t n;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof l->buf - l->n)
		n = sizeof l->buf - l->n;
	memcpy(l->buf + l->n, s, n);
	l->n += n;
}

static void puts_(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void flag_names(struct line *l, uint16_t flags)
{
	for (unsigned bit = 0; bit < BIND_NFLAGS; bit++)
		if (flags & 1u << bit) {
			puts_(l, ",");
			puts_(l, bind_flag_name(bit));
		}
}

/*
 * Bindings grouped by the object whose relocations they are, one line per
 * relocation: "\tSYMBOL[@VERSION] -> TARGET TYPE[,flags]". A whole /usr/bin
 * is millions of lines, so each is assembled in a buffer with known
 * lengths and written with one fwrite, not printf.
 */
void deps_text_bindings(FILE *f, const struct deps_report *r)
{
	size_t *len = xcalloc(r->p.nobj + 1, sizeof *len);
	struct line l;
	int from = -2;

	for (size_t i = 0; i < r->p.nobj; i++)
		len[i] = strlen(dso_display(r->p.obj[i]));
	fprintf(f, "# %s\n", term_safe(r->file));
	for (size_t i = 0; i < r->bs.n; i++) {
		const struct binding *b = &r->bs.b[i];
		if (b->from != from) {
			from = b->from;
			fprintf(f, "%s:\n", term_safe(dso_display(r->p.obj[from])));
		}
		l.n = 0;
		put(&l, "\t", 1);
		put(&l, b->name, b->namelen == UINT16_MAX ? strlen(b->name) : b->namelen);
		if (b->version) {
			put(&l, "@", 1);
			put(&l, b->version,
			    b->verlen == UINT16_MAX ? strlen(b->version) : b->verlen);
		}
		put(&l, " -> ", 4);
		if (b->to >= 0)
			put(&l, dso_display(r->p.obj[b->to]), len[b->to]);
		else
			put(&l, "(none)", 6);
		put(&l, " ", 1);
		/* ld.so's own lookups are not relocations: "lookup". */
		puts_(&l, b->type ? reloc_type_name(b->type) : "lookup");
		flag_names(&l, b->flags);
		put(&l, "\n", 1);
		fwrite_unlocked(l.buf, 1, l.n, f);
	}
	free(len);
}

void deps_text_unused(FILE *f, const struct deps_report *r)
{
	for (size_t i = 0; i < r->nunused; i++) {
		const struct unused_dep *u = &r->unused[i];
		const struct dso *d = r->p.obj[u->dep];
		const struct elfobj *o = d->elf;
		fprintf(f,
			"%s: %s (needed by %s) provides no symbol to it%s; costs %.1f KiB mapped,"
			" %llu relocations, %u init functions\n",
			term_safe(r->file), term_safe(u->name),
			term_safe(dso_display(r->p.obj[u->obj])),
			u->unused_by_all ? " nor to anything else" : "",
			dso_mapped_size(d) / 1024.0,
			(unsigned long long)(o ? reloc_counts_total(&o->relocs) : 0),
			o ? o->init_funcs : 0);
	}
}

static void missing_libs(FILE *f, const struct deps_report *r)
{
	for (size_t k = 0; k < r->p.nchain; k++) {
		const struct dso *d = r->p.obj[r->p.chain[k]];
		if (!d->faked)
			continue;
		fprintf(f, "%s: library %s (needed by %s) not found%s; tried:\n",
			term_safe(r->file), term_safe(d->name),
			d->loader >= 0 ? term_safe(dso_display(r->p.obj[d->loader])) : "?",
			d->other_class ? " (only a 32-bit one)" : "");
		for (size_t i = 0; i < d->ntried; i++)
			fprintf(f, "  %s  (%s%s%s)\n", term_safe(d->tried[i].path),
				d->tried[i].what, d->tried[i].where ? " of " : "",
				d->tried[i].where ? d->tried[i].where : "");
	}
	for (size_t i = 0; i < r->p.npreload_failed; i++)
		fprintf(f, "%s: preload %s (from %s) cannot be loaded: %s\n", term_safe(r->file),
			term_safe(r->p.preload_failed[i].name),
			term_safe(r->p.preload_failed[i].from), r->p.preload_failed[i].why);
}

void deps_text_missing(FILE *f, const struct deps_report *r)
{
	static const char *const kinds[] = {"not found", "weak version not found (harmless)",
					    "no version information (harmless)"};

	if (r->p.fatal)
		fprintf(f, "%s: ld.so stops loading: %s\n", term_safe(r->file),
			term_clean(r->p.fatal));
	missing_libs(f, r);
	for (size_t i = 0; i < r->bs.nvp; i++) {
		const struct version_problem *v = &r->bs.vp[i];
		fprintf(f, "%s: version %s of %s (required by %s): %s\n", term_safe(r->file),
			v->version, term_safe(v->file), term_safe(dso_display(r->p.obj[v->obj])),
			kinds[v->kind]);
	}
	for (size_t i = 0; i < r->nmissing; i++) {
		const struct missing_symbol *m = &r->missing[i];
		fprintf(f, "%s: undefined symbol %s%s%s (%s, %u relocation%s): %s\n",
			term_safe(r->file), term_safe(m->name), m->version ? "@" : "",
			m->version ? m->version : "", term_safe(dso_display(r->p.obj[m->obj])),
			m->relocations, m->relocations == 1 ? "" : "s", m->why);
	}
}
