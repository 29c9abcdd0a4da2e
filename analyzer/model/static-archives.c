#include "model/static-archives.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strmap.h"
#include "base/util.h"

#define MAX_ARCHIVES 64

struct archive {
	int fd;
	Elf *elf;
};

struct closure {
	struct archive ar[MAX_ARCHIVES];
	size_t nar;
	struct strmap defs; /* symbol -> archive and member offset, + 1 */
	struct strmap done; /* symbols looked for, and members pulled ("#i:off") */
	struct strmap groups; /* COMDAT group signatures brought in */
	char **todo;
	size_t ntodo, cap;
	uint64_t fdes;
};

/*
 * An archive opened for reading, its symbol index checked: NULL unless
 * every name of the index ends inside the file. Mapped, so that libelf's
 * names point into the file's image: it does not bound them itself, and
 * a corrupt index's last name ran past its buffer (AddressSanitizer).
 */
static Elf *open_archive(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t size = 0, n = 0;
	const char *raw = e ? elf_rawfile(e, &size) : NULL;
	Elf_Arsym *s;

	if (!raw || elf_kind(e) != ELF_K_AR || !(s = elf_getarsym(e, &n)) || n < 2)
		goto bad;
	for (size_t k = 0; k + 1 < n; k++) {
		const char *name = s[k].as_name;
		if (!name || name < raw || name >= raw + size ||
		    !memchr(name, 0, raw + size - name))
			goto bad;
	}
	return e;
bad:
	if (e)
		elf_end(e);
	return NULL;
}

static void add_archive(struct closure *c, const char *path)
{
	int fd;
	Elf *e;

	if (c->nar == MAX_ARCHIVES || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (!(e = open_archive(fd))) {
		close(fd);
		return;
	}
	c->ar[c->nar++] = (struct archive){fd, e};
}

/* Where -lNAME finds libNAME.a (the -dev packages' archives, libc.a among them). */
static const char *const libdirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"};

bool static_archive_usable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e = NULL;

	if (fd >= 0 && elf_version(EV_CURRENT) != EV_NONE)
		e = open_archive(fd);
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return e != NULL;
}

/* dir/STEM.a when it is an archive a link would use, else NULL. */
static char *archive_in(const char *dir, int dirlen, const char *stem, int stemlen)
{
	char *p = xasprintf("%.*s/%.*s.a", dirlen, dir, stemlen, stem);

	if (static_archive_usable(p))
		return p;
	free(p);
	return NULL;
}

char *library_archive_path(const char *path, const char *soname)
{
	const char *dot = soname ? strstr(soname, ".so") : NULL;
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *p = NULL;

	if (!dot || strncmp(soname, "lib", 3))
		return NULL;
	if (slash)
		p = archive_in(path, (int)(slash - path), soname, (int)(dot - soname));
	for (size_t i = 0; i < ARRAY_SIZE(libdirs) && !p; i++)
		p = archive_in(libdirs[i], (int)strlen(libdirs[i]), soname, (int)(dot - soname));
	return p;
}

/*
 * libm.a is a linker script on glibc 2.36 ("GROUP ( .../libm-2.36.a
 * .../libmvec.a )"): the archives it names. Read by hand: it is a
 * parenthesised list of paths, and only ld parses the language.
 */
static void add_script_or_archive(struct closure *c, const char *path)
{
	char buf[1024], *tok, *save;
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n >= 8 && !memcmp(buf, "!<arch>\n", 8)) {
		add_archive(c, path);
		return;
	}
	for (tok = strtok_r(buf, " \t\n()", &save); tok; tok = strtok_r(NULL, " \t\n()", &save))
		if (tok[0] == '/' && strlen(tok) > 2 && !strcmp(tok + strlen(tok) - 2, ".a"))
			add_archive(c, tok);
}

/* GCC's own directory of the highest version installed: libstdc++.a, libgcc*.a. */
static char *gcc_dir(void)
{
	glob_t g;
	char *best = NULL;
	long bestv = -1;

	if (glob("/usr/lib/gcc/x86_64-linux-gnu/*/libgcc_eh.a", 0, NULL, &g))
		return NULL;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *v = g.gl_pathv[i] + strlen("/usr/lib/gcc/x86_64-linux-gnu/");
		long ver = strtol(v, NULL, 10);
		if (ver > bestv) {
			free(best);
			best = xasprintf("%.*s",
					 (int)(strlen(g.gl_pathv[i]) - strlen("/libgcc_eh.a")),
					 g.gl_pathv[i]);
			bestv = ver;
		}
	}
	globfree(&g);
	return best;
}

/*
 * The program's libraries first, then the runtime in the order a C++ link
 * names it: -lstdc++ -lm -lc -lgcc -lgcc_eh, all as one group.
 */
static void open_archives(struct closure *c, const char *const *libs, size_t nlibs)
{
	char *gcc = gcc_dir(), *p;
	const char *libdir = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(libdirs) && !libdir; i++) {
		p = xasprintf("%s/libc.a", libdirs[i]);
		if (!access(p, R_OK))
			libdir = libdirs[i];
		free(p);
	}
	if (!libdir)
		goto out;
	for (size_t i = 0; i < nlibs; i++)
		add_archive(c, libs[i]);
	if (gcc)
		add_archive(c, p = xasprintf("%s/libstdc++.a", gcc)), free(p);
	add_script_or_archive(c, p = xasprintf("%s/libm.a", libdir)), free(p);
	add_archive(c, p = xasprintf("%s/libc.a", libdir)), free(p);
	if (gcc) {
		add_archive(c, p = xasprintf("%s/libgcc.a", gcc)), free(p);
		add_archive(c, p = xasprintf("%s/libgcc_eh.a", gcc)), free(p);
	}
out:
	free(gcc);
}

/* Each archive's symbol index: the first definition of a name wins, as in a group. */
static void index_definitions(struct closure *c)
{
	for (size_t i = 0; i < c->nar; i++) {
		size_t n = 0;
		Elf_Arsym *s = elf_getarsym(c->ar[i].elf, &n);
		for (size_t k = 0; s && k < n; k++)
			if (s[k].as_name && !strmap_get(&c->defs, s[k].as_name))
				strmap_put(
					&c->defs, s[k].as_name,
					(void *)(uintptr_t)(((uint64_t)i << 40 | s[k].as_off) + 1));
	}
}

static void want(struct closure *c, const char *name)
{
	if (!name || !*name || strmap_get(&c->done, name))
		return;
	strmap_put(&c->done, name, (void *)1);
	if (c->ntodo == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->todo = xrealloc(c->todo, c->cap * sizeof *c->todo);
	}
	c->todo[c->ntodo++] = xstrdup(name);
}

/*
 * A member's sections that ld discards: those of a COMDAT group (an
 * inline function, a template's instance) whose signature an earlier
 * member brought in already. C++ archives repeat them member after
 * member: libdar64.a's members hold 6750 FDEs, libdar64.so 4469.
 */
static bool *discarded_sections(struct closure *c, Elf *m, size_t shnum)
{
	bool *gone = xcalloc(shnum + 1, sizeof *gone);

	for (Elf_Scn *scn = elf_nextscn(m, NULL); scn; scn = elf_nextscn(m, scn)) {
		GElf_Shdr sh, symsh;
		GElf_Sym sym;
		Elf_Data *d = NULL, *syms;
		Elf_Scn *symscn;
		const char *sig;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GROUP ||
		    !(d = elf_getdata(scn, NULL)) || d->d_size < 4 ||
		    !(((const uint32_t *)d->d_buf)[0] & GRP_COMDAT))
			continue;
		if (!(symscn = elf_getscn(m, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(syms = elf_getdata(symscn, NULL)) ||
		    !gelf_getsym(syms, (int)sh.sh_info, &sym) ||
		    !(sig = elf_strptr(m, symsh.sh_link, sym.st_name)))
			continue;
		if (!strmap_get(&c->groups, sig)) {
			strmap_put(&c->groups, sig, (void *)1);
			continue;
		}
		for (size_t k = 1; k < d->d_size / 4; k++) {
			uint32_t idx = ((const uint32_t *)d->d_buf)[k];
			if (idx < shnum)
				gone[idx] = true;
		}
	}
	return gone;
}

/* Where each relocation of .eh_frame points: its offset and its symbol's section. */
struct fde_reloc {
	uint64_t off;
	size_t shndx;
};

static int cmp_reloc(const void *a, const void *b)
{
	uint64_t x = ((const struct fde_reloc *)a)->off, y = ((const struct fde_reloc *)b)->off;

	return (x > y) - (x < y);
}

static size_t eh_relocs(Elf_Data *rela, Elf_Data *syms, struct fde_reloc **out)
{
	size_t n = rela ? rela->d_size / sizeof(Elf64_Rela) : 0, k = 0;

	*out = xcalloc(n + 1, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		if (gelf_getrela(rela, (int)i, &r) && syms &&
		    gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s))
			(*out)[k++] = (struct fde_reloc){r.r_offset, s.st_shndx};
	}
	qsort(*out, k, sizeof **out, cmp_reloc);
	return k;
}

/*
 * An object's .eh_frame entries that are FDEs (a CIE's id is 0), less
 * those whose pc_begin (at offset + 8) is relocated against a discarded
 * section: ld drops them with it.
 */
static uint64_t count_fdes(Elf_Data *d, const struct fde_reloc *rel, size_t nrel, const bool *gone,
			   size_t shnum)
{
	const unsigned char *p = d ? d->d_buf : NULL;
	size_t off = 0, size = d ? d->d_size : 0;
	uint64_t n = 0;

	while (p && off + 8 <= size) {
		uint32_t len, id;
		memcpy(&len, p + off, 4);
		if (len < 4 || len == 0xffffffff || len > size - off - 4)
			break;
		memcpy(&id, p + off + 4, 4);
		if (id) {
			struct fde_reloc key = {off + 8, 0};
			const struct fde_reloc *r =
				bsearch(&key, rel, nrel, sizeof *rel, cmp_reloc);
			n += !(r && r->shndx < shnum && gone[r->shndx]);
		}
		off += 4 + (size_t)len;
	}
	return n;
}

/* Want the strong undefined symbols of a member's symbol table. */
static void want_undefined(struct closure *c, Elf *m, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	for (size_t k = 1; d && sh->sh_entsize && k < sh->sh_size / sh->sh_entsize; k++) {
		GElf_Sym s;
		if (gelf_getsym(d, (int)k, &s) && s.st_shndx == SHN_UNDEF &&
		    GELF_ST_BIND(s.st_info) == STB_GLOBAL)
			want(c, elf_strptr(m, sh->sh_link, s.st_name));
	}
}

/* Pull one member: its FDEs counted, its strong undefined symbols wanted. */
static void pull(struct closure *c, size_t i, size_t off)
{
	struct archive *a = &c->ar[i];
	size_t shstrndx, shnum, eh = 0, nrel;
	Elf_Data *ehd = NULL, *rela = NULL, *syms = NULL;
	struct fde_reloc *rel;
	bool *gone;
	Elf *m;

	if (elf_rand(a->elf, off) != off || !(m = elf_begin(a->fd, ELF_C_READ_MMAP, a->elf)))
		return;
	if (elf_getshdrstrndx(m, &shstrndx))
		shstrndx = 0;
	if (elf_getshdrnum(m, &shnum))
		shnum = 0;
	gone = discarded_sections(c, m, shnum);
	for (Elf_Scn *scn = elf_nextscn(m, NULL); scn; scn = elf_nextscn(m, scn)) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(m, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame") && sh.sh_type != SHT_RELA) {
			eh = elf_ndxscn(scn);
			ehd = elf_getdata(scn, NULL);
		}
		if (sh.sh_type == SHT_SYMTAB) {
			syms = elf_getdata(scn, NULL);
			want_undefined(c, m, scn, &sh);
		}
	}
	for (Elf_Scn *scn = elf_nextscn(m, NULL); eh && scn; scn = elf_nextscn(m, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA && sh.sh_info == eh)
			rela = elf_getdata(scn, NULL);
	}
	nrel = eh_relocs(rela, syms, &rel);
	c->fdes += count_fdes(ehd, rel, nrel, gone, shnum);
	free(rel);
	free(gone);
	elf_end(m);
}

static void resolve(struct closure *c)
{
	while (c->ntodo) {
		char *name = c->todo[--c->ntodo], key[40];
		uintptr_t v = (uintptr_t)strmap_get(&c->defs, name);
		free(name);
		if (!v--)
			continue;
		snprintf(key, sizeof key, "#%lx", (unsigned long)v);
		if (strmap_get(&c->done, key))
			continue;
		strmap_put(&c->done, key, (void *)1);
		pull(c, (size_t)(v >> 40), (size_t)(v & ((1ull << 40) - 1)));
	}
}

static void free_closure(struct closure *c)
{
	for (size_t i = 0; i < c->nar; i++) {
		elf_end(c->ar[i].elf);
		close(c->ar[i].fd);
	}
	while (c->ntodo)
		free(c->todo[--c->ntodo]);
	free(c->todo);
	strmap_free(&c->defs, NULL);
	strmap_free(&c->done, NULL);
	strmap_free(&c->groups, NULL);
}

/* Every name an archive's index defines, wanted (as --whole-archive would). */
static void want_everything(struct closure *c)
{
	for (size_t i = 0; i < c->nar; i++) {
		size_t n = 0;
		Elf_Arsym *s = elf_getarsym(c->ar[i].elf, &n);
		for (size_t k = 0; s && k < n; k++)
			want(c, s[k].as_name);
	}
}

/* Resolve names (every indexed name when NULL) in c's archives, then free c. */
static int replay(struct closure *c, const char *const *names, size_t n, uint64_t *fdes)
{
	int r = c->nar ? 0 : -ENOENT;

	if (!r) {
		index_definitions(c);
		if (!names)
			want_everything(c);
		for (size_t i = 0; names && i < n; i++)
			want(c, names[i]);
		resolve(c);
		*fdes = c->fdes;
	}
	free_closure(c);
	return r;
}

int static_archive_fdes(const char *const *libs, size_t nlibs, const char *const *names, size_t n,
			uint64_t *fdes)
{
	struct closure c = {0};

	*fdes = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	open_archives(&c, libs, nlibs);
	want(&c, "__libc_start_main"); /* crt1.o's _start */
	return replay(&c, names, n, fdes);
}

int archive_group_fdes(const char *const *paths, size_t npaths, const char *const *names, size_t n,
		       uint64_t *fdes)
{
	struct closure c = {0};

	*fdes = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	for (size_t i = 0; i < npaths; i++)
		add_archive(&c, paths[i]);
	return replay(&c, names, n, fdes);
}
