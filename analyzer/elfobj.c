#include "elfobj.h"

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
static int check_ident(struct elfobj *o, struct errbuf *err)
{
	unsigned char ident[EI_NIDENT];
	ssize_t n = pread(o->fd, ident, sizeof ident, 0);

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
	if (elf_getphdrnum(o->elf, &o->nphdr))
		return fail(o, err, -ENOEXEC, "corrupt program header table");
	if ((uint64_t)o->ehdr.e_phoff + (uint64_t)o->nphdr * sizeof(Elf64_Phdr) > (uint64_t)o->size)
		return fail(o, err, -ENOEXEC, "program headers lie outside the file");
	o->phdr = xcalloc(o->nphdr, sizeof *o->phdr);
	for (size_t i = 0; i < o->nphdr; i++)
		if (!gelf_getphdr(o->elf, (int)i, &o->phdr[i]))
			return fail(o, err, -ENOEXEC, "corrupt program header");
	return 0;
}

const void *elfobj_bytes(const struct elfobj *o, uint64_t off, uint64_t size)
{
	size_t len;
	char *img = elf_rawfile(o->elf, &len);

	if (!img || off > len || size > len - off)
		return NULL;
	return img + off;
}

int elfobj_vaddr_to_offset(const struct elfobj *o, uint64_t vaddr, uint64_t size, uint64_t *off)
{
	for (size_t i = 0; i < o->nphdr; i++) {
		const GElf_Phdr *p = &o->phdr[i];
		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr)
			continue;
		uint64_t rel = vaddr - p->p_vaddr;
		if (rel > p->p_filesz || size > p->p_filesz - rel)
			continue;
		*off = p->p_offset + rel;
		return 0;
	}
	return -ERANGE;
}

const char *elfobj_dynstr(const struct elfobj *o, uint64_t off)
{
	if (!o->dynstr || off >= o->dynstr_size)
		return NULL;
	if (!memchr(o->dynstr + off, '\0', o->dynstr_size - off))
		return NULL;
	return o->dynstr + off;
}

const GElf_Dyn *elfobj_dyn(const struct elfobj *o, int64_t tag)
{
	for (size_t i = 0; i < o->ndyn; i++)
		if (o->dyn[i].d_tag == tag)
			return &o->dyn[i];
	return NULL;
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
	Elf_Data *d = elf_getdata_rawchunk(o->elf, (int64_t)p->p_offset, p->p_filesz, ELF_T_DYN);
	size_t max = p->p_filesz / sizeof(Elf64_Dyn);

	if (!d)
		return fail(o, err, -ENOEXEC, "PT_DYNAMIC lies outside the file");
	o->dyn = xcalloc(max, sizeof *o->dyn);
	for (o->ndyn = 0; o->ndyn < max; o->ndyn++) {
		if (!gelf_getdyn(d, (int)o->ndyn, &o->dyn[o->ndyn]))
			return fail(o, err, -ENOEXEC, "corrupt dynamic section");
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
	return 0;
}

static const char *dyn_string(struct elfobj *o, const GElf_Dyn *d)
{
	return d ? elfobj_dynstr(o, d->d_un.d_val) : NULL;
}

static void read_dynamic_facts(struct elfobj *o)
{
	const GElf_Dyn *d;

	o->soname = dyn_string(o, elfobj_dyn(o, DT_SONAME));
	o->rpath = dyn_string(o, elfobj_dyn(o, DT_RPATH));
	o->runpath = dyn_string(o, elfobj_dyn(o, DT_RUNPATH));
	o->needed = xcalloc(o->ndyn + 1, sizeof *o->needed);
	for (size_t i = 0; i < o->ndyn; i++) {
		const char *s;
		if (o->dyn[i].d_tag == DT_NEEDED && (s = dyn_string(o, &o->dyn[i])))
			o->needed[o->nneeded++] = s;
	}
	if ((d = elfobj_dyn(o, DT_FLAGS)))
		o->dt_flags = d->d_un.d_val;
	if ((d = elfobj_dyn(o, DT_FLAGS_1)))
		o->dt_flags_1 = d->d_un.d_val;
	o->bind_now = elfobj_dyn(o, DT_BIND_NOW) || (o->dt_flags & DF_BIND_NOW) ||
		      (o->dt_flags_1 & DF_1_NOW);
	o->textrel = elfobj_dyn(o, DT_TEXTREL) || (o->dt_flags & DF_TEXTREL);
	o->init_funcs = elfobj_dyn(o, DT_INIT) ? 1 : 0;
	if ((d = elfobj_dyn(o, DT_INIT_ARRAYSZ)) && elfobj_dyn(o, DT_INIT_ARRAY))
		o->init_funcs += (uint32_t)(d->d_un.d_val / sizeof(uint64_t));
	o->fini_funcs = elfobj_dyn(o, DT_FINI) ? 1 : 0;
	if ((d = elfobj_dyn(o, DT_FINI_ARRAYSZ)) && elfobj_dyn(o, DT_FINI_ARRAY))
		o->fini_funcs += (uint32_t)(d->d_un.d_val / sizeof(uint64_t));
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

static int read_segments(struct elfobj *o, struct errbuf *err)
{
	int r;

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
	}
	classify(o);
	return 0;
}

int elfobj_open(const char *path, struct elfobj **out, struct errbuf *err)
{
	struct elfobj *o = xcalloc(1, sizeof *o);
	struct stat st;
	int r;

	o->path = xstrdup(path);
	o->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (o->fd < 0) {
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (fstat(o->fd, &st)) {
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		r = set_err(err, EISDIR, "%s: is a directory", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = set_err(err, ENOEXEC, "%s: not a regular file", path);
		goto out;
	}
	o->size = st.st_size;
	if ((r = check_ident(o, err)))
		goto out;
	if (!libelf_ready()) {
		r = set_err(err, ENOSYS, "libelf: %s", elf_errmsg(-1));
		goto out;
	}
	/* ELF_C_READ_MMAP: libelf maps the file; nothing is copied. */
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF) {
		r = fail(o, err, -ENOEXEC, "not an ELF file libelf can read");
		goto out;
	}
	if ((r = read_headers(o, err)) || (r = read_segments(o, err)) ||
	    (r = elfobj_count_relocs(o, err)))
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
	if (o->fd >= 0)
		close(o->fd);
	free(o->phdr);
	free(o->dyn);
	free(o->needed);
	free(o->interp);
	free(o->path);
	free(o);
}

bool elf_kind_is_static(enum elf_kind k)
{
	return k == ELF_KIND_STATIC_EXEC || k == ELF_KIND_STATIC_PIE;
}

const char *elf_kind_name(enum elf_kind k)
{
	static const char *const names[] = {
		[ELF_KIND_STATIC_EXEC] = "static executable",
		[ELF_KIND_STATIC_PIE] = "static PIE",
		[ELF_KIND_DYN_EXEC] = "dynamic executable",
		[ELF_KIND_PIE] = "dynamic PIE",
		[ELF_KIND_SHARED] = "shared object",
		[ELF_KIND_OTHER] = "ELF object",
	};
	return names[k];
}
