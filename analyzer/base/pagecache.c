#include "base/pagecache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int page_cache_settle_dir(const char *dir, struct errbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return set_err(err, errno, "%s: %s", dir, strerror(errno));
	while (!r && (e = readdir(d))) {
		char *path = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			r = page_cache_settle(path, err);
		free(path);
	}
	closedir(d);
	return r;
}
