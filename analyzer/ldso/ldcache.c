/*
 * /etc/ld.so.cache lookups with ld.so's rules: binary search in an order
 * where digit runs compare as numbers, then among the entries of the name
 * the best usable glibc-hwcaps one, else the first plain entry whose flags
 * say "x86-64 libc6" and whose legacy hwcap bits this CPU has.
 */
#include "ldso/ldcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC_OLD  "ld.so-1.7.0"
#define MAGIC_NEW  "glibc-ld.so.cache1.1"
#define NEW_HEADER 48
#define OLD_ENTRY  12
#define NEW_ENTRY  24
/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64: the only flags x86-64 ld.so accepts. */
#define X86_64_LIBC6	0x0303
#define HWCAP_EXTENSION (1ull << 62)
#define HWCAP_ISA_MASK	0x3ffu
#define HWCAP_TLS	(1ull << 63)
#define HWCAP_PLATFORMS (0xfull << 48) /* i586, i686, haswell, xeon_phi */
#define EXT_MAGIC	0xeaa42174u
#define EXT_TAG_HWCAPS	1

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

int ldcache_libcmp(const char *a, const char *b)
{
	while (*a) {
		if (*a >= '0' && *a <= '9') {
			if (!(*b >= '0' && *b <= '9'))
				return 1;
			unsigned long va = 0, vb = 0;
			while (*a >= '0' && *a <= '9')
				va = va * 10 + (unsigned long)(*a++ - '0');
			while (*b >= '0' && *b <= '9')
				vb = vb * 10 + (unsigned long)(*b++ - '0');
			if (va != vb)
				return va < vb ? -1 : 1;
		} else if (*b >= '0' && *b <= '9') {
			return -1;
		} else if (*a != *b) {
			return (unsigned char)*a - (unsigned char)*b;
		} else {
			a++;
			b++;
		}
	}
	return -(int)(unsigned char)*b;
}

/* A string of the table, or NULL unless it is in range and terminated. */
static const char *cache_str(const struct ldcache *c, uint32_t off)
{
	if (off >= c->strsize || !memchr(c->strtab + off, '\0', c->strsize - off))
		return NULL;
	return c->strtab + off;
}

static const char *file_str(const struct ldcache *c, uint32_t off)
{
	if (off >= c->size || !memchr(c->map + off, '\0', c->size - off))
		return NULL;
	return (const char *)c->map + off;
}

/* Priority of each extension name: its rank among this CPU's active
   glibc-hwcaps subdirectories (1 = best), or 0. */
static void load_hwcaps_extension(struct ldcache *c, const unsigned char *hdr)
{
	uint32_t ext = rd32(hdr + 32), count, nnames = 0;
	const uint32_t *names = NULL;

	if (!ext || ext % 4 || ext > c->size || c->size - ext < 8 ||
	    rd32(c->map + ext) != EXT_MAGIC)
		return;
	count = rd32(c->map + ext + 4);
	if (count > (c->size - ext - 8) / 16)
		return;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *s = c->map + ext + 8 + 16 * (size_t)i;
		uint32_t off = rd32(s + 8), size = rd32(s + 12);
		if (off > c->size || size > c->size - off)
			return; /* ld.so ignores the whole extension */
		if (rd32(s) != EXT_TAG_HWCAPS || !size || off % 4 || size % 4)
			continue; /* ld.so drops just this section */
		names = (const uint32_t *)(c->map + off);
		nnames = size / 4;
	}
	c->priority = xcalloc(nnames + 1, sizeof *c->priority);
	for (uint32_t i = 0; i < nnames; i++) {
		const char *name = file_str(c, names[i]);
		for (size_t k = 0; name && k < c->hw->nglibc_names; k++)
			if (!strcmp(name, c->hw->glibc_names[k]))
				c->priority[i] = (uint32_t)k + 1;
	}
	c->hwcaps_names = names;
	c->nhwcaps_names = nnames;
}

static bool use_new(struct ldcache *c, size_t at)
{
	const unsigned char *h = c->map + at;

	if (c->size - at <= NEW_HEADER || memcmp(h, MAGIC_NEW, strlen(MAGIC_NEW)))
		return false;
	c->nlibs = rd32(h + 20);
	if ((c->size - at - NEW_HEADER) / NEW_ENTRY < c->nlibs)
		return false;
	/* flags & 3: 0 unknown, 2 little-endian; anything else is not ours. */
	if (h[28] && (h[28] & 3) != 2)
		return false;
	c->entries = h + NEW_HEADER;
	c->entsize = NEW_ENTRY;
	c->strtab = (const char *)h;
	c->strsize = c->size - at;
	load_hwcaps_extension(c, h);
	return true;
}

static bool use_old(struct ldcache *c)
{
	size_t table;

	if (c->size <= 16 || memcmp(c->map, MAGIC_OLD, strlen(MAGIC_OLD)))
		return false;
	c->nlibs = rd32(c->map + 12);
	if ((c->size - 16) / OLD_ENTRY < c->nlibs)
		return false;
	table = 16 + (size_t)c->nlibs * OLD_ENTRY;
	/* The new format may follow, 8-byte aligned; ld.so prefers it. */
	if (use_new(c, (table + 7) & ~(size_t)7))
		return true;
	c->entries = c->map + 16;
	c->entsize = OLD_ENTRY;
	c->strtab = (const char *)c->map + table;
	c->strsize = c->size - table;
	return true;
}

int ldcache_open(const char *path, const struct hwcaps *hw, struct ldcache *c, struct errbuf *err)
{
	struct stat st;
	int fd;

	memset(c, 0, sizeof *c);
	c->path = xstrdup(path);
	c->hw = hw;
	c->absent = true;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : set_err(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		close(fd);
		return 0;
	}
	c->size = (size_t)st.st_size;
	c->map = mmap(NULL, c->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return set_err(err, -errno, "%s: %s", path, strerror(errno));
	}
	c->absent = !(use_new(c, 0) || use_old(c));
	return 0;
}

void ldcache_close(struct ldcache *c)
{
	if (c->map)
		munmap(c->map, c->size);
	free(c->priority);
	free(c->path);
	memset(c, 0, sizeof *c);
}

static const unsigned char *entry(const struct ldcache *c, uint32_t i)
{
	return c->entries + (size_t)i * c->entsize;
}

static const char *entry_key(const struct ldcache *c, uint32_t i)
{
	return cache_str(c, rd32(entry(c, i) + 4));
}

static bool isa_ok(const struct ldcache *c, uint64_t hwcap)
{
	unsigned level = (unsigned)(hwcap >> 32) & HWCAP_ISA_MASK;

	if (level >= 32)
		return false;
	return ((1u << level) & c->hw->cpu.isa) == (1u << level);
}

/* The legacy hwcap and platform tests of search_cache. */
static bool legacy_ok(const struct ldcache *c, uint64_t hwcap)
{
	uint64_t exclude = ~(c->hw->hwcap_bits | HWCAP_PLATFORMS | HWCAP_TLS);
	static const char *const platforms[] = {"i586", "i686", "haswell", "xeon_phi"};
	uint64_t mine = ~0ull;

	if (hwcap & exclude)
		return false;
	for (unsigned i = 0; i < ARRAY_SIZE(platforms); i++)
		if (!strcmp(c->hw->platform, platforms[i]))
			mine = 1ull << (48 + i);
	return !(hwcap & HWCAP_PLATFORMS) || (hwcap & HWCAP_PLATFORMS) == mine;
}

/* Among entries [first, ...] named name, the one ld.so takes. */
static const char *pick(const struct ldcache *c, const char *name, uint32_t first)
{
	const char *best = NULL;
	uint32_t best_prio = 0;

	for (uint32_t i = first; i < c->nlibs; i++) {
		const unsigned char *e = entry(c, i);
		const char *key = entry_key(c, i);
		if (!key || ldcache_libcmp(name, key))
			break;
		const char *value = cache_str(c, rd32(e + 8));
		if ((int32_t)rd32(e) != X86_64_LIBC6 || !value)
			continue;
		bool named = false;
		if (c->entsize == NEW_ENTRY) {
			uint64_t hwcap = rd64(e + 16);
			named = ((hwcap >> 32) & ~HWCAP_ISA_MASK) == (HWCAP_EXTENSION >> 32);
			if (named && !isa_ok(c, hwcap))
				continue;
			/* Named entries come first; a plain one ends the search. */
			if (!named && best)
				break;
			if (!named && !legacy_ok(c, hwcap))
				continue;
			if (named) {
				uint32_t idx = (uint32_t)hwcap;
				uint32_t prio = idx < c->nhwcaps_names ? c->priority[idx] : 0;
				if (!prio || (best && prio >= best_prio))
					continue;
				best_prio = prio;
			}
		}
		best = value;
		if (!named)
			break;
	}
	return best;
}

const char *ldcache_lookup(const struct ldcache *c, const char *name)
{
	int64_t left = 0, right = (int64_t)c->nlibs - 1;

	if (c->absent)
		return NULL;
	while (left <= right) {
		int64_t mid = (left + right) / 2;
		const char *key = entry_key(c, (uint32_t)mid);
		if (!key)
			return NULL;
		int cmp = ldcache_libcmp(name, key);
		if (!cmp) {
			while (mid > 0 && (key = entry_key(c, (uint32_t)mid - 1)) &&
			       !ldcache_libcmp(name, key))
				mid--;
			return pick(c, name, (uint32_t)mid);
		}
		/* ldconfig sorts the table in decreasing order. */
		if (cmp < 0)
			left = mid + 1;
		else
			right = mid - 1;
	}
	return NULL;
}

void ldcache_foreach(const struct ldcache *c,
		     void (*fn)(const char *name, const char *path, int32_t flags, uint64_t hwcap,
				void *arg),
		     void *arg)
{
	if (c->absent)
		return;
	for (uint32_t i = 0; i < c->nlibs; i++) {
		const unsigned char *e = entry(c, i);
		const char *key = entry_key(c, i), *value = cache_str(c, rd32(e + 8));
		if (key && value)
			fn(key, value, (int32_t)rd32(e), c->entsize == NEW_ENTRY ? rd64(e + 16) : 0,
			   arg);
	}
}
