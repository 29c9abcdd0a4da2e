/*
 * One object of the sampled process read once with libelf: its load
 * segments (to turn file offsets and addresses into each other) and its
 * .eh_frame_hdr search table, found through PT_GNU_EH_FRAME so that a
 * stripped object still unwinds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stack/stack-int.h"

/* DWARF pointer encodings that .eh_frame_hdr uses (the LSB's DW_EH_PE_*). */
enum {
	PE_ABSPTR = 0x00,
	PE_UDATA4 = 0x03,
	PE_SDATA4 = 0x0b,
	PE_UDATA8 = 0x04,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_OMIT = 0xff,
};

bool stack_obj_offset_to_vaddr(const struct stack_obj *o, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct stack_seg *s = &o->segs[i];
		if (offset >= s->offset && offset - s->offset < s->filesz) {
			*vaddr = s->vaddr + (offset - s->offset);
			return true;
		}
	}
	return false;
}

bool stack_obj_vaddr_to_offset(const struct stack_obj *o, uint64_t vaddr, uint64_t *offset)
{
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct stack_seg *s = &o->segs[i];
		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*offset = s->offset + (vaddr - s->vaddr);
			return true;
		}
	}
	return false;
}

bool stack_obj_read(const struct stack_obj *o, uint64_t vaddr, void *buf, size_t n)
{
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct stack_seg *s = &o->segs[i];
		if (vaddr < s->vaddr || vaddr - s->vaddr > s->filesz ||
		    s->filesz - (vaddr - s->vaddr) < n)
			continue;
		memcpy(buf, o->image + s->offset + (vaddr - s->vaddr), n);
		return true;
	}
	return false;
}

bool stack_obj_word(const struct stack_obj *o, uint64_t vaddr, uint64_t *val)
{
	for (size_t i = 0; i < o->nsegs; i++) {
		const struct stack_seg *s = &o->segs[i];
		uint64_t off = vaddr - s->vaddr;
		if (vaddr < s->vaddr || off >= s->filesz)
			continue;
		const uint8_t *p = o->image + s->offset + off;
		if (s->filesz - off >= sizeof(*val)) {
			memcpy(val, p, sizeof(*val)); /* a constant size: one load */
			return true;
		}
		*val = 0;
		memcpy(val, p, (size_t)(s->filesz - off));
		return true;
	}
	return false;
}

/* The segments, each checked to lie inside the file. */
static int read_segments(struct stack_obj *o, GElf_Phdr *eh_frame)
{
	size_t n;

	if (elf_getphdrnum(o->elf, &n))
		return -EINVAL;
	o->segs = xcalloc(n ? n : 1, sizeof(*o->segs));
	o->text_lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(o->elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type == PT_GNU_EH_FRAME)
			*eh_frame = ph;
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > o->size || ph.p_filesz > o->size - ph.p_offset ||
		    ph.p_filesz > ph.p_memsz || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return -EINVAL;
		struct stack_seg *s = &o->segs[o->nsegs++];
		*s = (struct stack_seg){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz,
					ph.p_flags & PF_X};
		if (s->exec) {
			o->text_lo = s->vaddr < o->text_lo ? s->vaddr : o->text_lo;
			o->text_hi =
				s->vaddr + s->memsz > o->text_hi ? s->vaddr + s->memsz : o->text_hi;
		}
	}
	return o->nsegs ? 0 : -ENOEXEC;
}

/* The size of a value in encoding enc, or 0 for one this table cannot use. */
static unsigned encoded_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	}
	return 0;
}

/*
 * .eh_frame_hdr: version 1, three encodings, the (skipped) .eh_frame
 * pointer, the entry count, then the sorted table libunwind searches, which
 * it only reads as data-relative signed 4-byte pairs.
 */
static void read_eh_frame_hdr(struct stack_obj *o, const GElf_Phdr *ph)
{
	uint8_t h[4];
	uint64_t count = 0;

	if (!ph->p_filesz || !stack_obj_read(o, ph->p_vaddr, h, sizeof h))
		return;
	unsigned ptr_size = encoded_size(h[1]), count_size = encoded_size(h[2]);
	if (h[0] != 1 || !ptr_size || !count_size || h[2] == PE_OMIT ||
	    h[3] != (PE_DATAREL | PE_SDATA4) || (h[2] & 0x70) != 0)
		return;
	if (!stack_obj_read(o, ph->p_vaddr + 4 + ptr_size, &count, count_size))
		return;
	uint64_t table = ph->p_vaddr + 4 + ptr_size + count_size;
	uint64_t avail = ph->p_filesz - (table - ph->p_vaddr);
	if (table - ph->p_vaddr > ph->p_filesz || count > avail / 8)
		return;
	o->has_table = count > 0;
	o->hdr_vaddr = ph->p_vaddr;
	o->table_vaddr = table;
	o->fde_count = count;
}

int stack_open_file(const char *path)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO put where an object was must not hang the report */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

static int open_elf(struct stack_obj *o, const char *path)
{
	o->fd = stack_open_file(path);
	if (o->fd < 0)
		return o->fd;
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf)
		return -EINVAL;
	o->image = (const uint8_t *)elf_rawfile(o->elf, &o->size);
	if (elf_kind(o->elf) != ELF_K_ELF || gelf_getclass(o->elf) != ELFCLASS64 || !o->image)
		return -ENOEXEC;
	return 0;
}

static struct stack_obj *obj_new(const char *path)
{
	struct stack_obj *o = xcalloc(1, sizeof(*o));

	o->path = xstrdup(path);
	o->base = path_basename(o->path);
	o->fd = -1;
	o->debug_fd = -1;
	return o;
}

/* Fill o from its ELF image (o->elf and o->image set); -errno when unusable. */
static int obj_load(struct stack_obj *o)
{
	GElf_Phdr eh = {0};
	int ret = read_segments(o, &eh);

	if (ret)
		return ret;
	read_eh_frame_hdr(o, &eh);
	return 0;
}

/* Why open_elf failed, in words; NULL for strerror's. */
static const char *open_error(int ret)
{
	if (ret == -ENODEV)
		return "not a regular file";
	if (ret == -ENOEXEC || ret == -EINVAL)
		return "not a 64-bit ELF file";
	return NULL;
}

static void obj_failed(struct stack_obj *o, int err, const char *why)
{
	o->open_err = err;
	o->open_msg = xasprintf("%s: %s", o->path, why ? why : strerror(-err));
}

struct stack_obj *stack_obj_get(struct stack_unwinder *u, const char *path)
{
	struct stack_obj *o = strmap_get(&u->objs, path);

	if (o)
		return o;
	o = obj_new(path);
	strmap_put(&u->objs, path, o);
	int ret = open_elf(o, path);
	if (ret)
		obj_failed(o, ret, open_error(ret));
	else if ((ret = obj_load(o)))
		obj_failed(o, ret, "malformed program headers");
	return o;
}

/*
 * The vDSO is no file: this process's own copy stands for the sampled
 * process's, which is the same kernel's image as long as unwinding runs
 * on the machine that recorded (ldprof unwinds at record time). Its size
 * is where its section headers end, as the kernel builds it.
 */
struct stack_obj *stack_obj_vdso(struct stack_unwinder *u)
{
	if (u->vdso)
		return u->vdso;
	struct stack_obj *o = u->vdso = obj_new("[vdso]");
	const uint8_t *base = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	GElf_Ehdr eh;
	if (!base) {
		obj_failed(o, -ENOENT, "no vDSO in this process");
		return o;
	}
	memcpy(&eh, base, sizeof(Elf64_Ehdr));
	o->size = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
	o->elf = elf_memory((char *)base, o->size);
	o->image = base;
	if (!o->elf || obj_load(o))
		obj_failed(o, -ENOEXEC, "unreadable vDSO");
	return o;
}

void stack_obj_free(void *obj)
{
	struct stack_obj *o = obj;

	if (!o)
		return;
	if (o->debug_elf)
		elf_end(o->debug_elf);
	if (o->debug_fd >= 0)
		close(o->debug_fd);
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->segs);
	free(o->syms);
	free(o->open_msg);
	free(o->path);
	free(o);
}
