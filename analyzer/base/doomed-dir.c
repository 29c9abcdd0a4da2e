#include "base/doomed-dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "base/interrupt.h"

static char doomed[PATH_MAX];

/* Unlink every entry but . and .. (subdirectories stay). */
static void unlink_entries(int fd)
{
	/* getdents64, not readdir: a signal handler may not allocate. */
	char buf[4096] __attribute__((aligned(8)));
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = getdents64(fd, buf, sizeof buf)) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			const char *s = d->d_name;
			if (strcmp(s, ".") && strcmp(s, ".."))
				unlinkat(fd, s, 0);
			off += d->d_reclen;
		}
}

/*
 * Async-signal-safe. A build that ldprof's death orphaned may still add a
 * file while the entries go: a few passes, each ending in the rmdir; once
 * the directory is gone, the build's next file fails to be made.
 */
static void remove_dir(const char *dir)
{
	int saved = errno;

	for (int pass = 0; pass < 4 && dir[0]; pass++) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			break;
		unlink_entries(fd);
		close(fd);
		if (!rmdir(dir) || errno != ENOTEMPTY)
			break;
	}
	errno = saved;
}

static void remove_doomed(void)
{
	remove_dir(doomed);
}

void doomed_dir_set(const char *dir)
{
	interrupt_on_death(NULL); /* not while the path changes under the handler */
	doomed[0] = '\0';
	if (!dir || strlen(dir) >= sizeof doomed)
		return;
	strcpy(doomed, dir);
	interrupt_on_death(remove_doomed);
}

void doomed_dir_remove(const char *dir)
{
	doomed_dir_set(NULL);
	remove_dir(dir);
}
