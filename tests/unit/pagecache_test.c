/*
 * Unit tests for page_cache_settle: a file just written, settled, has no
 * page left in the page cache (mincore, the kernel's own account), and its
 * bytes are unchanged; a missing file is an error that names it.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "base/pagecache.h"

#define PAGES 64

/* Pages of fd's first n pages in the page cache, by mincore; -1 on an error. */
static int resident(int fd, size_t n)
{
	unsigned char vec[PAGES];
	void *p = mmap(NULL, n * 4096, PROT_READ, MAP_SHARED, fd, 0);
	int count = 0;

	if (p == MAP_FAILED)
		return -1;
	if (mincore(p, n * 4096, vec))
		count = -1;
	for (size_t i = 0; i < n && count >= 0; i++)
		count += vec[i] & 1;
	munmap(p, n * 4096);
	return count;
}

int main(int argc, char **argv)
{
	/* Beside the test, in the build tree: /tmp may be a tmpfs, which keeps its pages. */
	const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
	char path[4096], buf[4096], back[4096];
	int fd, same = 1;
	struct errbuf err;

	snprintf(path, sizeof path, "%.*s/pagecache-test.XXXXXX",
		 slash ? (int)(slash - argv[0]) : 1, slash ? argv[0] : ".");
	fd = mkstemp(path);

	CHECK(fd >= 0);
	for (int i = 0; i < PAGES; i++) {
		memset(buf, 'a' + i % 26, sizeof buf);
		CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
	}
	CHECK(resident(fd, PAGES) == PAGES); /* written, hence cached and dirty */
	CHECK(page_cache_settle(path, &err) == 0);
	CHECK(resident(fd, PAGES) == 0);
	for (int i = 0; i < PAGES; i++) {
		memset(buf, 'a' + i % 26, sizeof buf);
		same &= pread(fd, back, sizeof back, (off_t)i * 4096) == (ssize_t)sizeof back &&
			!memcmp(buf, back, sizeof buf);
	}
	CHECK(same);
	close(fd);
	unlink(path);

	/* A directory: each regular file in it. */
	{
		char dir[4200], file[2][4300];
		int fds[2];
		snprintf(dir, sizeof dir, "%s.d", path);
		CHECK(mkdir(dir, 0700) == 0);
		for (int k = 0; k < 2; k++) {
			snprintf(file[k], sizeof file[k], "%s/f%d", dir, k);
			fds[k] = open(file[k], O_RDWR | O_CREAT | O_TRUNC, 0600);
			CHECK(fds[k] >= 0 && write(fds[k], buf, sizeof buf) == (ssize_t)sizeof buf);
			CHECK(resident(fds[k], 1) == 1);
		}
		CHECK(page_cache_settle_dir(dir, &err) == 0);
		for (int k = 0; k < 2; k++) {
			CHECK(resident(fds[k], 1) == 0);
			close(fds[k]);
			unlink(file[k]);
		}
		rmdir(dir);
		CHECK(page_cache_settle_dir(dir, &err) == -ENOENT);
	}

	CHECK(page_cache_settle(path, &err) == -ENOENT);
	CHECK(strstr(err.msg, path) && strstr(err.msg, strerror(ENOENT)));
	return unit_done("pagecache_test");
}
