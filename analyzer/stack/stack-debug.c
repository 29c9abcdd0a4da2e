/*
 * An object's separate debug file, where distributions keep the .symtab
 * they strip (libc6-dbg has ld.so's): first by build-id,
 * /usr/lib/debug/.build-id/xx/yyyy.debug, then by .gnu_debuglink's name in
 * the places gdb looks (the object's folder, its .debug/ and
 * /usr/lib/debug/ + that folder). A candidate is taken only if it is the
 * object's: the same build-id, or without one the debuglink's CRC.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stack/stack-int.h"

#define DEBUG_ROOT   "/usr/lib/debug"
#define BUILD_ID_MAX 64

/* The NT_GNU_BUILD_ID note's bytes; 0 when elf has none. */
static size_t build_id(Elf *elf, uint8_t id[BUILD_ID_MAX])
{
	GElf_Shdr sh;

	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;
		while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz &&
			    nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				return nh.n_descsz;
			}
			off = next;
		}
	}
	return 0;
}

/*
 * CRC-32 (the IEEE polynomial, reflected), the checksum .gnu_debuglink
 * records; hand-written because nothing else ldprof links provides it.
 */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/* Open path as an ELF file; the fd, with *elf set, or -1. */
static int open_candidate(const char *path, Elf **elf)
{
	int fd = stack_open_file(path);

	if (fd < 0)
		return -1;
	*elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF)
		return fd;
	if (*elf)
		elf_end(*elf);
	*elf = NULL;
	close(fd);
	return -1;
}

static void close_candidate(int fd, Elf **elf)
{
	elf_end(*elf);
	*elf = NULL;
	close(fd);
}

struct wanted {
	uint8_t id[BUILD_ID_MAX];
	size_t id_len;
	bool has_crc;
	uint32_t crc;
};

static bool matches(Elf *elf, const struct wanted *w)
{
	uint8_t id[BUILD_ID_MAX];

	if (w->id_len)
		return build_id(elf, id) == w->id_len && !memcmp(id, w->id, w->id_len);
	size_t size;
	const char *raw = elf_rawfile(elf, &size);
	return w->has_crc && raw && crc32_update(0, (const uint8_t *)raw, size) == w->crc;
}

static int try_path(const char *path, const struct wanted *w, Elf **elf)
{
	int fd = open_candidate(path, elf);

	if (fd >= 0 && !matches(*elf, w)) {
		close_candidate(fd, elf);
		fd = -1;
	}
	return fd;
}

/* .gnu_debuglink: a file name, NUL, padding to 4 bytes, the CRC; NULL if none. */
static const char *debuglink(Elf *elf, uint32_t *crc)
{
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".gnu_debuglink") || !(d = elf_getdata(scn, NULL)))
			continue;
		const char *link = d->d_buf;
		size_t len = strnlen(link, d->d_size), crc_off = (len + 4) & ~(size_t)3;
		if (!len || crc_off + 4 > d->d_size)
			return NULL;
		memcpy(crc, link + crc_off, 4);
		return link;
	}
	return NULL;
}

static int by_build_id(const struct wanted *w, Elf **elf)
{
	char path[sizeof(DEBUG_ROOT) + 16 + 2 * BUILD_ID_MAX + 8], *p = path;

	if (w->id_len < 2)
		return -1;
	p += sprintf(p, DEBUG_ROOT "/.build-id/%02x/", w->id[0]);
	for (size_t i = 1; i < w->id_len; i++)
		p += sprintf(p, "%02x", w->id[i]);
	strcpy(p, ".debug");
	return try_path(path, w, elf);
}

static int by_debuglink(const struct stack_obj *o, const char *link, const struct wanted *w,
			Elf **elf)
{
	size_t dir_len = (size_t)(o->base - o->path);
	const char *forms[] = {"%.*s%s", "%.*s.debug/%s", DEBUG_ROOT "%.*s%s"};
	int fd = -1;

	if (strchr(link, '/'))
		return -1; /* a name, never a path: a hostile object must not point anywhere */
	for (size_t i = 0; i < ARRAY_SIZE(forms) && fd < 0; i++) {
		char *path = xasprintf(forms[i], (int)dir_len, o->path, link);
		if (strcmp(path, o->path))
			fd = try_path(path, w, elf);
		free(path);
	}
	return fd;
}

int stack_debug_open(const struct stack_obj *o, Elf **elf)
{
	struct wanted w = {0};

	*elf = NULL;
	w.id_len = build_id(o->elf, w.id);
	int fd = by_build_id(&w, elf);
	if (fd >= 0)
		return fd;
	const char *link = debuglink(o->elf, &w.crc);
	if (!link)
		return -1;
	w.has_crc = true;
	return by_debuglink(o, link, &w, elf);
}
