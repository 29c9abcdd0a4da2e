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
	char **todo;
	size_t ntodo, cap;
	uint64_t fdes;
};

static void add_archive(struct closure *c, const char *path)
{
	int fd;
	Elf *e;

	if (c->nar == MAX_ARCHIVES || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_AR) {
		if (e)
			elf_end(e);
		close(fd);
		return;
	}
	c->ar[c->nar++] = (struct archive){fd, e};
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
	static const char *const libdirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64",
					      "/usr/lib"};
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

/* An object's .eh_frame entries that are FDEs (a CIE's id is 0). */
static uint64_t count_fdes(Elf_Data *d)
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
		n += id != 0;
		off += 4 + (size_t)len;
	}
	return n;
}

/* Pull one member: its FDEs counted, its strong undefined symbols wanted. */
static void pull(struct closure *c, size_t i, size_t off)
{
	struct archive *a = &c->ar[i];
	size_t shstrndx;
	Elf *m;

	if (elf_rand(a->elf, off) != off || !(m = elf_begin(a->fd, ELF_C_READ, a->elf)))
		return;
	if (elf_getshdrstrndx(m, &shstrndx))
		shstrndx = 0;
	for (Elf_Scn *scn = elf_nextscn(m, NULL); scn; scn = elf_nextscn(m, scn)) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(m, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame"))
			c->fdes += count_fdes(elf_getdata(scn, NULL));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t k = 1; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym s;
			if (gelf_getsym(d, (int)k, &s) && s.st_shndx == SHN_UNDEF &&
			    GELF_ST_BIND(s.st_info) == STB_GLOBAL)
				want(c, elf_strptr(m, sh.sh_link, s.st_name));
		}
	}
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

int static_archive_fdes(const char *const *libs, size_t nlibs, const char *const *names, size_t n,
			uint64_t *fdes)
{
	struct closure c = {0};
	int r = 0;

	*fdes = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	open_archives(&c, libs, nlibs);
	if (!c.nar) {
		r = -ENOENT;
		goto out;
	}
	index_definitions(&c);
	want(&c, "__libc_start_main"); /* crt1.o's _start */
	for (size_t i = 0; i < n; i++)
		want(&c, names[i]);
	resolve(&c);
	*fdes = c.fdes;
out:
	for (size_t i = 0; i < c.nar; i++) {
		elf_end(c.ar[i].elf);
		close(c.ar[i].fd);
	}
	while (c.ntodo)
		free(c.todo[--c.ntodo]);
	free(c.todo);
	strmap_free(&c.defs, NULL);
	strmap_free(&c.done, NULL);
	return r;
}
