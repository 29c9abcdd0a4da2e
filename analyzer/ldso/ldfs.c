/*
 * Memoised file probes. The checks follow ld.so's open_verify in glibc
 * 2.36 (elf/dl-load.c): some failures make ld.so pass over a file and keep
 * searching (another ELF class or machine, a GNU ABI note for another OS
 * or a newer kernel), others stop loading with an error.
 */
#include "ldso/ldfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* What ld.so reads first: the ELF header and, usually, the phdrs. */
#define PROBE_BYTES 832
/* glibc's LIBC_ABI_MAX on x86-64 (UNIQUE, IFUNC, ABSOLUTE). */
#define LIBC_ABI_MAX 4

struct fsobj {
	struct elfobj *obj;
	char *error;
};

/* The kernel version as _dl_discover_osversion packs it: 0xMMmmpp. */
static unsigned read_osversion(void)
{
	struct utsname u;
	unsigned v = 0, parts = 0;
	const char *p;

	if (uname(&u))
		return 0;
	for (p = u.release; parts < 3; parts++) {
		unsigned n = 0;
		if (*p < '0' || *p > '9')
			break;
		while (*p >= '0' && *p <= '9')
			n = n * 10 + (unsigned)(*p++ - '0');
		v = (v << 8) | (n > 255 ? 255 : n);
		if (*p != '.')
			break;
		p++;
	}
	while (++parts < 3)
		v <<= 8;
	return v;
}

void ldfs_init(struct ldfs *fs)
{
	memset(fs, 0, sizeof *fs);
	pthread_mutex_init(&fs->lock, NULL);
	fs->osversion = read_osversion();
}

static void free_probe(void *v)
{
	struct probe *p = v;

	free(p->fatal);
	free(p);
}

static void free_fsobj(void *v)
{
	struct fsobj *o = v;

	elfobj_close(o->obj);
	free(o->error);
	free(o);
}

void ldfs_free(struct ldfs *fs)
{
	strmap_free(&fs->probes, free_probe);
	strmap_free(&fs->dirs, NULL);
	strmap_free(&fs->objects, free_fsobj);
	pthread_mutex_destroy(&fs->lock);
}

static void fatal(struct probe *p, const char *msg)
{
	p->kind = PROBE_FATAL;
	p->fatal = xstrdup(msg);
}

static const char *ident_error(const unsigned char *id)
{
	if (memcmp(id, ELFMAG, SELFMAG))
		return "invalid ELF header";
	if (id[EI_DATA] != ELFDATA2LSB)
		return "ELF file data encoding not little-endian";
	if (id[EI_VERSION] != EV_CURRENT)
		return "ELF file version ident does not match current one";
	if (id[EI_OSABI] != ELFOSABI_SYSV && id[EI_OSABI] != ELFOSABI_GNU)
		return "ELF file OS ABI invalid";
	if (id[EI_ABIVERSION] &&
	    !(id[EI_OSABI] == ELFOSABI_GNU && id[EI_ABIVERSION] < LIBC_ABI_MAX))
		return "ELF file ABI version invalid";
	for (int i = EI_PAD; i < EI_NIDENT; i++)
		if (id[i])
			return "nonzero padding in e_ident";
	return NULL;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The GNU ABI tag note: skipped unless it names Linux and an old enough
   kernel. Only the first PT_NOTE that holds one counts. */
static bool abi_note_rejects(int fd, const Elf64_Phdr *ph, unsigned osversion)
{
	uint32_t buf[256];
	size_t size = ph->p_filesz, at = 0, a = ph->p_align;

	if (size > sizeof buf)
		size = sizeof buf;
	if (pread(fd, buf, size, (off_t)ph->p_offset) != (ssize_t)size)
		return false;
	while (size - at >= 32) {
		const uint32_t *n = buf + at / 4;
		if (n[0] == 4 && n[1] == 16 && n[2] == 1 && !memcmp(n + 3, "GNU", 4)) {
			unsigned want = (n[5] & 0xff) << 16 | (n[6] & 0xff) << 8 | (n[7] & 0xff);
			return n[4] != 0 || (osversion && osversion < want);
		}
		size_t step = align_up(12 + (size_t)n[0], a) + align_up(n[1], a);
		if (size - at - 32 < step)
			break;
		at += step;
	}
	return false;
}

static void verify_header(struct probe *p, int fd, const unsigned char *buf, unsigned osversion)
{
	const Elf64_Ehdr *e = (const Elf64_Ehdr *)buf;
	const char *why;
	Elf64_Phdr ph[64];

	if (buf[EI_CLASS] != ELFCLASS64 && !memcmp(buf, ELFMAG, SELFMAG)) {
		p->kind = PROBE_SKIP;
		p->other_class = true;
		return;
	}
	if ((why = ident_error(buf)))
		return fatal(p, why);
	if (e->e_version != EV_CURRENT)
		return fatal(p, "ELF file version does not match current one");
	if (e->e_machine != EM_X86_64) {
		p->kind = PROBE_SKIP;
		return;
	}
	if (e->e_type != ET_DYN && e->e_type != ET_EXEC)
		return fatal(p, "only ET_DYN and ET_EXEC can be loaded");
	if (e->e_phentsize != sizeof(Elf64_Phdr))
		return fatal(p, "ELF file's phentsize not the expected size");
	p->kind = PROBE_OK;
	size_t n = e->e_phnum < 64 ? e->e_phnum : 64;
	if (pread(fd, ph, n * sizeof *ph, (off_t)e->e_phoff) != (ssize_t)(n * sizeof *ph))
		return fatal(p, "cannot read file data");
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz < 32 ||
		    (ph[i].p_align != 4 && ph[i].p_align != 8))
			continue;
		if (abi_note_rejects(fd, &ph[i], osversion))
			p->kind = PROBE_SKIP;
		break;
	}
}

static void probe_file(struct probe *p, const char *path, unsigned osversion)
{
	unsigned char buf[PROBE_BYTES];
	struct stat st;
	ssize_t len = 0, r;
	/* O_NONBLOCK: a FIFO must not hang us (it would hang ld.so). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		p->kind = PROBE_NONE;
		p->err = errno;
		return;
	}
	if (!fstat(fd, &st)) {
		p->dev = st.st_dev;
		p->ino = st.st_ino;
		p->special = !S_ISREG(st.st_mode);
	}
	if (p->special) {
		/* ld.so would read a directory and fail with EISDIR, and block
		   on a FIFO; neither is a loadable object. */
		fatal(p, S_ISDIR(st.st_mode) ? "cannot read file data: Is a directory"
					     : "not a regular file");
		close(fd);
		return;
	}
	errno = 0;
	while (len < (ssize_t)sizeof(Elf64_Ehdr) &&
	       (r = read(fd, buf + len, sizeof buf - (size_t)len)) > 0)
		len += r;
	if (len < (ssize_t)sizeof(Elf64_Ehdr)) {
		char msg[128];
		snprintf(msg, sizeof msg, "%s%s%s",
			 errno ? "cannot read file data" : "file too short", errno ? ": " : "",
			 errno ? strerror(errno) : "");
		fatal(p, msg);
	} else {
		verify_header(p, fd, buf, osversion);
	}
	close(fd);
}

const struct probe *ldfs_probe(struct ldfs *fs, const char *path)
{
	struct probe *p;

	pthread_mutex_lock(&fs->lock);
	p = strmap_get(&fs->probes, path);
	if (!p) {
		p = xcalloc(1, sizeof *p);
		probe_file(p, path, fs->osversion);
		strmap_put(&fs->probes, path, p);
	}
	pthread_mutex_unlock(&fs->lock);
	return p;
}

bool ldfs_is_dir(struct ldfs *fs, const char *path, int *stat_errno)
{
	uintptr_t v;
	struct stat st;

	pthread_mutex_lock(&fs->lock);
	v = (uintptr_t)strmap_get(&fs->dirs, path);
	/* Stored as 1: a directory, 2: something else, 3 + errno: no stat. */
	if (!v) {
		if (stat(path, &st))
			v = 3 + (uintptr_t)errno;
		else
			v = S_ISDIR(st.st_mode) ? 1 : 2;
		strmap_put(&fs->dirs, path, (void *)v);
	}
	pthread_mutex_unlock(&fs->lock);
	*stat_errno = v >= 3 ? (int)(v - 3) : 0;
	return v == 1;
}

struct elfobj *ldfs_object(struct ldfs *fs, const char *path, const struct probe *p,
			   const char **error)
{
	char key[64];
	struct fsobj *o;

	snprintf(key, sizeof key, "%llx:%llx", (unsigned long long)p->dev,
		 (unsigned long long)p->ino);
	/* Parsing under the lock also keeps libelf to one thread at a time. */
	pthread_mutex_lock(&fs->lock);
	o = strmap_get(&fs->objects, key);
	if (!o) {
		struct errbuf err;
		o = xcalloc(1, sizeof *o);
		if (elfobj_open(path, &o->obj, &err))
			o->error = xstrdup(err.msg);
		strmap_put(&fs->objects, key, o);
	}
	pthread_mutex_unlock(&fs->lock);
	*error = o->error;
	return o->obj;
}
