#include "elf/elfobj.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int libelf_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 failed */

	if (!state)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

static int fail(struct elfobj *o, struct errbuf *err, int code, const char *why)
{
	return set_err(err, code, "%s: %s", o->path, why);
}

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386:
		return "i386";
	case EM_AARCH64:
		return "AArch64";
	case EM_ARM:
		return "ARM";
	case EM_RISCV:
		return "RISC-V";
	case EM_PPC64:
		return "PowerPC64";
	case EM_S390:
		return "s390";
	default:
		return NULL;
	}
}

/* Identification checks that need only the first bytes. */
static int check_ident(struct elfobj *o, const unsigned char *ident, size_t n, struct errbuf *err)
{
	if (n < 4 || memcmp(ident, ELFMAG, SELFMAG))
		return fail(o, err, -ENOEXEC, "not an ELF file");
	if (n < EI_NIDENT)
		return fail(o, err, -ENOEXEC, "truncated ELF header");
	if (ident[EI_CLASS] == ELFCLASS32)
		return fail(o, err, -ENOEXEC, "32-bit ELF is not supported (x86-64 ELF64 only)");
	if (ident[EI_CLASS] != ELFCLASS64)
		return fail(o, err, -ENOEXEC, "unknown ELF class");
	if (ident[EI_DATA] != ELFDATA2LSB)
		return fail(o, err, -ENOEXEC, "big-endian ELF is not supported");
	if (n < sizeof(Elf64_Ehdr))
		return fail(o, err, -ENOEXEC, "truncated ELF header");
	return 0;
}

static int read_headers(struct elfobj *o, struct errbuf *err)
{
	if (!gelf_getehdr(o->elf, &o->ehdr))
		return fail(o, err, -ENOEXEC, "truncated or corrupt ELF header");
	if (o->ehdr.e_machine != EM_X86_64) {
		const char *m = machine_name(o->ehdr.e_machine);
		return set_err(err, -ENOEXEC, "%s: ELF for %s (machine %u), not x86-64", o->path,
			       m ? m : "another architecture", o->ehdr.e_machine);
	}
	if (o->ehdr.e_type != ET_EXEC && o->ehdr.e_type != ET_DYN)
		return fail(o, err, -ENOEXEC, "not an executable or shared object");
	/* Before libelf looks at them (PN_XNUM aside, which ld.so rejects). */
	if (o->ehdr.e_phnum != PN_XNUM &&
	    (o->ehdr.e_phoff > (uint64_t)o->size ||
	     (uint64_t)o->ehdr.e_phnum * sizeof(Elf64_Phdr) > (uint64_t)o->size - o->ehdr.e_phoff))
		return fail(o, err, -ENOEXEC, "program headers lie outside the file");
	if (elf_getphdrnum(o->elf, &o->nphdr))
		return fail(o, err, -ENOEXEC, "corrupt program header table");
	if (o->nphdr && o->ehdr.e_phentsize != sizeof(Elf64_Phdr))
		return fail(o, err, -ENOEXEC, "program header entries have the wrong size");
	if (o->ehdr.e_phoff > (uint64_t)o->size ||
	    (uint64_t)o->nphdr * sizeof(Elf64_Phdr) > (uint64_t)o->size - o->ehdr.e_phoff)
		return fail(o, err, -ENOEXEC, "program headers lie outside the file");
	o->phdr = xcalloc(o->nphdr + 1, sizeof *o->phdr);
	for (size_t i = 0; i < o->nphdr; i++)
		if (!gelf_getphdr(o->elf, (int)i, &o->phdr[i]))
			return fail(o, err, -ENOEXEC, "corrupt program header");
	return 0;
}

static int read_interp(struct elfobj *o, const GElf_Phdr *p, struct errbuf *err)
{
	const char *s = elfobj_bytes(o, p->p_offset, p->p_filesz);

	if (!s || !p->p_filesz || !memchr(s, '\0', p->p_filesz))
		return fail(o, err, -ENOEXEC, "PT_INTERP lies outside the file or is unterminated");
	o->interp = xstrdup(s);
	return 0;
}

static int read_dynamic_array(struct elfobj *o, const GElf_Phdr *p, struct errbuf *err)
{
	const Elf64_Dyn *d = elfobj_bytes(o, p->p_offset, p->p_filesz);
	size_t max = p->p_filesz / sizeof(Elf64_Dyn);

	if (!d)
		return fail(o, err, -ENOEXEC, "PT_DYNAMIC lies outside the file");
	if ((uintptr_t)d % sizeof(uint64_t))
		return fail(o, err, -ENOEXEC, "PT_DYNAMIC is misaligned");
	/* GElf_Dyn is Elf64_Dyn: a 64-bit little-endian object needs no
	   conversion, so this is one copy of a few hundred bytes. */
	o->dyn = xcalloc(max + 1, sizeof *o->dyn);
	for (o->ndyn = 0; o->ndyn < max; o->ndyn++) {
		memcpy(&o->dyn[o->ndyn], &d[o->ndyn], sizeof *d);
		if (o->dyn[o->ndyn].d_tag == DT_NULL)
			break;
	}
	return 0;
}

static int read_dynstr(struct elfobj *o, struct errbuf *err)
{
	const GElf_Dyn *strtab = elfobj_dyn(o, DT_STRTAB), *strsz = elfobj_dyn(o, DT_STRSZ);
	uint64_t off;

	if (!strtab || !strsz)
		return 0;
	if (elfobj_vaddr_to_offset(o, strtab->d_un.d_ptr, strsz->d_un.d_val, &off) ||
	    !(o->dynstr = elfobj_bytes(o, off, strsz->d_un.d_val)))
		return fail(o, err, -ENOEXEC, "DT_STRTAB points outside the file");
	o->dynstr_size = strsz->d_un.d_val;
	/* Strings after the last NUL are unterminated: treat them as absent. */
	while (o->dynstr_size && o->dynstr[o->dynstr_size - 1])
		o->dynstr_size--;
	return 0;
}

static const char *dyn_string(struct elfobj *o, const GElf_Dyn *d)
{
	return d ? elfobj_dynstr(o, d->d_un.d_val) : NULL;
}

static uint32_t array_entries(struct elfobj *o, int64_t addr_tag, int64_t size_tag)
{
	const GElf_Dyn *d = elfobj_dyn(o, size_tag);

	if (!d || !elfobj_dyn(o, addr_tag))
		return 0;
	return (uint32_t)(d->d_un.d_val / sizeof(uint64_t));
}

static void read_dynamic_facts(struct elfobj *o)
{
	const GElf_Dyn *d;

	o->soname = dyn_string(o, elfobj_dyn(o, DT_SONAME));
	o->runpath = dyn_string(o, elfobj_dyn(o, DT_RUNPATH));
	/* As ld.so's elf_get_dynamic_info: DT_RUNPATH hides DT_RPATH. */
	o->rpath = o->runpath ? NULL : dyn_string(o, elfobj_dyn(o, DT_RPATH));
	if ((d = elfobj_dyn(o, DT_FLAGS)))
		o->dt_flags = d->d_un.d_val;
	if ((d = elfobj_dyn(o, DT_FLAGS_1)))
		o->dt_flags_1 = d->d_un.d_val;
	o->bind_now = elfobj_dyn(o, DT_BIND_NOW) || (o->dt_flags & DF_BIND_NOW) ||
		      (o->dt_flags_1 & DF_1_NOW);
	o->textrel = elfobj_dyn(o, DT_TEXTREL) || (o->dt_flags & DF_TEXTREL);
	o->symbolic = elfobj_dyn(o, DT_SYMBOLIC) || (o->dt_flags & DF_SYMBOLIC);
	o->init_funcs =
		(elfobj_dyn(o, DT_INIT) ? 1 : 0) + array_entries(o, DT_INIT_ARRAY, DT_INIT_ARRAYSZ);
	o->fini_funcs =
		(elfobj_dyn(o, DT_FINI) ? 1 : 0) + array_entries(o, DT_FINI_ARRAY, DT_FINI_ARRAYSZ);
}

/* The PT_LOAD segment holding vaddr, or NULL. */
static const struct elf_load_seg *segment_of(const struct elfobj *o, uint64_t vaddr)
{
	for (size_t i = 0; i < o->nloads; i++)
		if (vaddr - o->loads[i].vaddr < o->loads[i].memsz)
			return &o->loads[i];
	return NULL;
}

/* Does seg hold a table ld.so reads while it loads or relocates the object? */
static bool holds_tables(const struct elfobj *o, const struct elf_load_seg *seg)
{
	static const int64_t tags[] = {DT_SYMTAB, DT_STRTAB, DT_GNU_HASH, DT_HASH,
				       DT_RELA,	  DT_JMPREL, DT_VERSYM};
	const GElf_Dyn *d;

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++)
		if ((d = elfobj_dyn(o, tags[i])) && segment_of(o, d->d_un.d_ptr) == seg)
			return true;
	return false;
}

/*
 * The page faults of the object's own crt code, in 16ths: _init (DT_INIT)
 * is the first of its code to run, in the init phase, and _fini (DT_FINI),
 * at the other end of its text, runs at exit. The first faults in the
 * kernel's fault-around window (do_fault_around: 16 pages from the 64 KiB
 * boundary below the fault, or from the segment's start when that lies
 * above, so from _init itself at the usual start of the text); the second
 * is a fault of its own when it lies outside that window. Where the
 * window starts depends on the page alignment the object was mapped at:
 * the mean over the 16. Counted only where the code has a segment of its
 * own (-z separate-code, the default): in one shared with the symbol
 * tables, loading has faulted the window in already.
 */
static uint32_t crt_faults16(const struct elfobj *o)
{
	const GElf_Dyn *init = elfobj_dyn(o, DT_INIT), *fini = elfobj_dyn(o, DT_FINI);
	const struct elf_load_seg *seg = init ? segment_of(o, init->d_un.d_ptr) : NULL;
	uint32_t n = 16;

	if (!seg || !(seg->flags & PF_X) || holds_tables(o, seg))
		return 0;
	if (!fini || segment_of(o, fini->d_un.d_ptr) != seg)
		return n;
	for (uint64_t k = 0; k < 16; k++) {
		uint64_t in = (init->d_un.d_ptr >> 12) + k, fi = (fini->d_un.d_ptr >> 12) + k;
		uint64_t start = (seg->vaddr >> 12) + k, from = in & ~(uint64_t)15;
		if (from < start)
			from = start;
		n += fi < from || fi >= from + 16;
	}
	return n;
}

static void classify(struct elfobj *o)
{
	bool pie = o->dt_flags_1 & DF_1_PIE;

	if (o->ehdr.e_type == ET_EXEC)
		o->kind = o->interp ? ELF_KIND_DYN_EXEC : ELF_KIND_STATIC_EXEC;
	else if (o->interp)
		o->kind = ELF_KIND_PIE;
	else if (pie)
		o->kind = ELF_KIND_STATIC_PIE;
	else
		o->kind = o->dyn ? ELF_KIND_SHARED : ELF_KIND_OTHER;
}

static void read_loads(struct elfobj *o)
{
	o->loads = xcalloc(o->nphdr + 1, sizeof *o->loads);
	for (size_t i = 0; i < o->nphdr; i++) {
		const GElf_Phdr *p = &o->phdr[i];
		if (p->p_type == PT_GNU_RELRO) {
			o->relro_size = p->p_memsz;
			/* _dl_protect_relro: from the page of its start to that
			   of its end, both rounded down (the load address is a
			   page's). */
			if (p->p_memsz <= UINT64_MAX - p->p_vaddr)
				o->relro_pages = ((p->p_vaddr + p->p_memsz) >> 12) - (p->p_vaddr >> 12);
		}
		if (p->p_type != PT_LOAD)
			continue;
		o->loads[o->nloads++] = (struct elf_load_seg){
			.vaddr = p->p_vaddr,
			.offset = p->p_offset,
			.filesz = p->p_filesz,
			.memsz = p->p_memsz,
			.flags = p->p_flags,
		};
	}
}

static int read_segments(struct elfobj *o, struct errbuf *err)
{
	int r;

	read_loads(o);
	for (size_t i = 0; i < o->nphdr; i++) {
		if (o->phdr[i].p_type == PT_INTERP && !o->interp &&
		    (r = read_interp(o, &o->phdr[i], err)))
			return r;
		if (o->phdr[i].p_type == PT_DYNAMIC && !o->dyn &&
		    (r = read_dynamic_array(o, &o->phdr[i], err)))
			return r;
	}
	if (o->dyn) {
		if ((r = read_dynstr(o, err)))
			return r;
		read_dynamic_facts(o);
		o->crt_faults16 = crt_faults16(o);
	}
	classify(o);
	return 0;
}

/* Everything after the file is mapped: headers, segments, tables. */
static int parse(struct elfobj *o, struct errbuf *err)
{
	uint32_t named;
	size_t len;
	int r;

	if (!libelf_ready())
		return set_err(err, -ENOSYS, "libelf: %s", elf_errmsg(-1));
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF)
		return fail(o, err, -ENOEXEC, "not an ELF file libelf can read");
	o->image = (const unsigned char *)elf_rawfile(o->elf, &len);
	if (!o->image)
		return fail(o, err, -ENOEXEC, "cannot map the file");
	o->image_size = len;
	if ((r = read_headers(o, err)) || (r = read_segments(o, err)) ||
	    (r = elfobj_read_symbols(o, err)) || (r = elfobj_read_relocs(o, &named, err)) ||
	    (r = elfobj_finish_symtab(o, named, err)) || (r = elfobj_read_symrefs(o, err)))
		return r;
	return 0;
}

static int open_file(struct elfobj *o, int fd, struct errbuf *err)
{
	unsigned char ident[sizeof(Elf64_Ehdr)];
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st))
		return set_err(err, -errno, "%s: %s", o->path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return set_err(err, -EISDIR, "%s: is a directory", o->path);
	if (!S_ISREG(st.st_mode))
		return set_err(err, -ENOEXEC, "%s: not a regular file", o->path);
	o->size = st.st_size;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	n = pread(fd, ident, sizeof ident, 0);
	return check_ident(o, ident, n < 0 ? 0 : (size_t)n, err);
}

int elfobj_open(const char *path, struct elfobj **out, struct errbuf *err)
{
	struct elfobj *o = xcalloc(1, sizeof *o);
	int fd, r;

	o->path = xstrdup(path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if ((r = open_file(o, fd, err)))
		goto out;
	if (libelf_ready())
		o->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	r = parse(o, err);
	/*
	 * parse() took the whole image (elf_rawfile), so libelf needs the
	 * descriptor no more: holding one per object ran out of descriptors
	 * on a run over /usr/lib and /usr/bin.
	 */
	if (o->elf)
		elf_cntl(o->elf, ELF_C_FDDONE);
out:
	if (fd >= 0)
		close(fd);
	if (r) {
		elfobj_close(o);
		return r;
	}
	*out = o;
	return 0;
}

int elfobj_open_memory(const char *name, const void *image, size_t size, struct elfobj **out,
		       struct errbuf *err)
{
	struct elfobj *o = xcalloc(1, sizeof *o);
	int r;

	o->path = xstrdup(name);
	o->size = (off_t)size;
	if ((r = check_ident(o, image, size, err)))
		goto out;
	/* elf_memory wants a writable pointer but only reads ELF_C_READ images. */
	if (libelf_ready())
		o->elf = elf_memory((char *)(uintptr_t)image, size);
	if ((r = parse(o, err)))
		goto out;
	*out = o;
	return 0;
out:
	elfobj_close(o);
	return r;
}

void elfobj_close(struct elfobj *o)
{
	if (!o)
		return;
	if (o->elf)
		elf_end(o->elf);
	free(o->phdr);
	free(o->loads);
	free(o->dyn);
	free(o->versions);
	free(o->vneeds);
	free(o->vdefs);
	free(o->symrefs);
	free(o->irel_resolvers);
	free(o->interp);
	free(o->path);
	free(o);
}

bool elf_kind_is_static(enum elf_kind k)
{
	return k == ELF_KIND_STATIC_EXEC || k == ELF_KIND_STATIC_PIE;
}

bool elf_soname_is_libc(const char *soname)
{
	return soname && !strncmp(soname, "libc.so.", 8);
}

const char *elf_kind_name(enum elf_kind k)
{
	static const char *const names[] = {
		[ELF_KIND_STATIC_EXEC] = "static executable", [ELF_KIND_STATIC_PIE] = "static PIE",
		[ELF_KIND_DYN_EXEC] = "dynamic executable",   [ELF_KIND_PIE] = "dynamic PIE",
		[ELF_KIND_SHARED] = "shared object",	      [ELF_KIND_OTHER] = "ELF object",
	};
	return names[k];
}

const char *elf_hash_style_name(enum elf_hash_style s)
{
	return s == HASH_GNU ? "gnu" : s == HASH_SYSV ? "sysv" : "none";
}
