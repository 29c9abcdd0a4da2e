#include "base/pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int page_cache_settle(const char *path, struct errbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	/* DONTNEED drops only clean pages: a file just linked is still dirty. */
	if (fdatasync(fd))
		r = set_err(err, errno, "%s: fdatasync: %s", path, strerror(errno));
	else if ((r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)))
		r = set_err(err, r, "%s: posix_fadvise: %s", path, strerror(r));
	close(fd);
	return r;
}
