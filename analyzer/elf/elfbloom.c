#include "elf/elfobj.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Every Bloom word of PATH's GNU hash table set to all ones, in place:
 * every lookup that probes the object then passes its filter and walks the
 * bucket's hash chain to its end, as the probes a real library's filter
 * lets through do (calibrate's bloom-N programs). The words are written
 * with pwrite at their file offset, which elfobj found through libelf's
 * image: libelf's elf_update would lay out the whole file anew for 8 KiB.
 */
int elf_fill_bloom(const char *path, struct errbuf *err)
{
	struct elfobj *o = NULL;
	unsigned char *ones = NULL;
	size_t off, len;
	int fd = -1, r;

	if ((r = elfobj_open(path, &o, err)))
		return r;
	if (o->hash.style != HASH_GNU || !o->gnu.bloom) {
		r = set_err(err, -EINVAL, "%s: no GNU hash table", path);
		goto out;
	}
	off = (size_t)((const unsigned char *)o->gnu.bloom - o->image);
	len = (size_t)o->hash.bloom_words * sizeof *o->gnu.bloom;
	ones = xmalloc(len);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = set_err(err, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	memset(ones, 0xff, len);
	errno = 0; /* a short write sets none */
	if (pwrite(fd, ones, len, (off_t)off) != (ssize_t)len) {
		r = set_err(err, errno ? -errno : -EIO, "%s: cannot write its Bloom filter", path);
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		r = set_err(err, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(ones);
	elfobj_close(o);
	return r;
}
