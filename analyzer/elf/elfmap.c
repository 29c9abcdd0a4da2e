/*
 * Bounds-checked access to an opened object's mapped image and dynamic
 * segment. Every reading step (elfobj.c, elfsym.c, elfreloc.c) and the
 * loader's replay go through these, so they live below all of them.
 */
#include <errno.h>

#include "elf/elfobj.h"

const void *elfobj_bytes(const struct elfobj *o, uint64_t off, uint64_t size)
{
	if (!o->image || off > o->image_size || size > o->image_size - off)
		return NULL;
	return o->image + off;
}

int elfobj_vaddr_to_offset(const struct elfobj *o, uint64_t vaddr, uint64_t size, uint64_t *off)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const struct elf_load_seg *p = &o->loads[i];
		if (vaddr < p->vaddr)
			continue;
		uint64_t rel = vaddr - p->vaddr;
		if (rel > p->filesz || size > p->filesz - rel)
			continue;
		*off = p->offset + rel;
		return 0;
	}
	return -ERANGE;
}

const void *elfobj_table(const struct elfobj *o, uint64_t vaddr, uint64_t count, size_t entsize,
			 size_t align)
{
	uint64_t off, size;
	const unsigned char *p;

	if (entsize && count > UINT64_MAX / entsize)
		return NULL;
	size = count * entsize;
	if (elfobj_vaddr_to_offset(o, vaddr, size, &off) || !(p = elfobj_bytes(o, off, size)))
		return NULL;
	if ((uintptr_t)p % align)
		return NULL;
	return p;
}

const char *elfobj_dynstr(const struct elfobj *o, uint64_t off)
{
	/* dynstr_size ends at a NUL (read_dynstr), so every offset below it
	   starts a terminated string. */
	if (!o->dynstr || off >= o->dynstr_size)
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
