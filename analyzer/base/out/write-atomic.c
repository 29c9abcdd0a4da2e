/*
 * write_atomic (declared in base/util.h): the one writer of every output
 * file, which never destroys what it writes to; base/outpath.c decides how.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/out/outpath.h"
#include "base/util.h"

/* After the rename: make the new directory entry durable too (best effort). */
static void sync_dir(const char *path)
{
	char *copy = xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

typedef int write_fn(FILE *f, void *arg, struct errbuf *err);

/* fn into f, then f flushed and closed; name is for the messages. */
static int write_stream(FILE *f, const char *name, write_fn *fn, void *arg, struct errbuf *err)
{
	int r = fn(f, arg, err);

	errno = 0;
	if (!r && (fflush(f) || ferror(f)))
		r = set_err(err, errno ? errno : EIO, "%s: write error: %s", name,
			    strerror(errno ? errno : EIO));
	if (fclose(f) && !r)
		r = set_err(err, errno, "%s: write error: %s", name, strerror(errno));
	return r;
}

static int write_stdout(write_fn *fn, void *arg, struct errbuf *err)
{
	int r = fn(stdout, arg, err);

	errno = 0;
	if (!r && (fflush(stdout) || ferror(stdout)))
		r = set_err(err, errno ? errno : EIO, "write error on standard output: %s",
			    strerror(errno ? errno : EIO));
	return r;
}

/* A descriptor named by /dev/fd/N: a copy of it, as the shell's >&N would write. */
static int write_fd(const char *path, int fd, write_fn *fn, void *arg, struct errbuf *err)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	FILE *f;

	fflush(NULL); /* stderr's or another stream's pending bytes go first */
	if (copy < 0 || !(f = fdopen(copy, "w"))) {
		int e = errno;
		if (copy >= 0)
			close(copy);
		return set_err(err, e, "%s: %s", path, strerror(e));
	}
	return write_stream(f, path, fn, arg, err);
}

/* A device, FIFO or /proc link: opened and written in place, as `>` would. */
static int write_direct(const char *path, const char *file, write_fn *fn, void *arg,
			struct errbuf *err)
{
	int fd = open(file, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	/* A /proc link to a regular file: truncate it as `>` does, never a device. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && ftruncate(fd, 0)) {
		int e = errno;
		close(fd);
		return set_err(err, e, "%s: %s", path, strerror(e));
	}
	if (!(f = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		return set_err(err, e, "%s: %s", path, strerror(e));
	}
	return write_stream(f, path, fn, arg, err);
}

/* The mode the new file gets: the old file's permissions (never set-ID), or 0666 less the umask. */
static mode_t new_mode(const char *file, bool exists)
{
	mode_t mask = umask(0);
	struct stat st;

	umask(mask);
	if (exists && !stat(file, &st))
		return st.st_mode & 0777;
	return 0666 & ~mask;
}

/* A regular file or a new name: a temporary file beside it, then rename. */
static int write_replace(const char *path, const char *file, bool exists, write_fn *fn, void *arg,
			 struct errbuf *err)
{
	char *tmp = xasprintf("%s.XXXXXX", file);
	mode_t mode = new_mode(file, exists);
	FILE *f;
	int fd, r;

	if ((fd = mkstemp(tmp)) < 0) {
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* mkstemp made it 0600; a file written in place would keep its mode. */
	if (fchmod(fd, mode) || !(f = fdopen(fd, "w"))) {
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
		close(fd);
		goto unlink;
	}
	r = fn(f, arg, err);
	if (!r && (fflush(f) || ferror(f) || fsync(fd)))
		r = set_err(err, errno, "%s: write error: %s", path, strerror(errno));
	if (fclose(f) && !r)
		r = set_err(err, errno, "%s: write error: %s", path, strerror(errno));
	if (!r && rename(tmp, file))
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
unlink:
	if (r)
		unlink(tmp);
	else
		sync_dir(file);
out:
	free(tmp);
	return r;
}

int write_atomic(const char *path, write_fn *fn, void *arg, struct errbuf *err)
{
	struct outpath o;
	int r = outpath_resolve(path, 0, &o, err);

	if (r)
		return r;
	switch (o.kind) {
	case OUTPATH_STDOUT:
		r = write_stdout(fn, arg, err);
		break;
	case OUTPATH_FD:
		r = write_fd(path, o.fd, fn, arg, err);
		break;
	case OUTPATH_DIRECT:
		r = write_direct(path, o.path, fn, arg, err);
		break;
	case OUTPATH_REPLACE:
		r = write_replace(path, o.path, o.exists, fn, arg, err);
		break;
	}
	outpath_free(&o);
	return r;
}
