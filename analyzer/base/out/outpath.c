#include "base/out/outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As the kernel's limit on symbolic links followed in one lookup. */
#define MAX_LINKS 40

/* The descriptor a /dev/stdout-like name stands for, or -1. */
static int fd_name(const char *path)
{
	static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
	unsigned long n;

	if (!strcmp(path, "/dev/stdin"))
		return 0;
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])) &&
		    !parse_ulong(path + strlen(dirs[i]), 0, 1 << 30, &n))
			return (int)n;
	return -1;
}

static int check_fd(const char *path, int fd, struct outpath *o, struct errbuf *err)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return set_err(err, EBADF, "%s: descriptor %d is not open", path, fd);
	if ((fl & O_ACCMODE) == O_RDONLY)
		return set_err(err, EBADF, "%s: descriptor %d is not open for writing", path, fd);
	o->kind = fd == 1 ? OUTPATH_STDOUT : OUTPATH_FD;
	o->fd = fd;
	return 0;
}

/* The directory part of path, "." when it has none. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xasprintf("%.*s", (int)(slash - path), path);
}

/* dir's nearest ancestor that exists (dir itself if it does). */
static char *existing_ancestor(char *dir, struct stat *st)
{
	while (stat(dir, st) && (errno == ENOENT || errno == ENOTDIR) && strcmp(dir, ".") &&
	       strcmp(dir, "/")) {
		char *up = dir_of(dir);
		free(dir);
		dir = up;
	}
	return dir;
}

/* A new file in dir needs dir to exist (or, with OUTPATH_MAKE_DIRS, an ancestor). */
static int check_dir(const char *path, const char *file, unsigned flags, struct errbuf *err)
{
	char *dir = dir_of(file);
	struct stat st;
	int r = 0;

	if (stat(dir, &st) && (errno == ENOENT || errno == ENOTDIR)) {
		/* Which part is wrong: a file in the way, or directories to make. */
		dir = existing_ancestor(dir, &st);
		if (S_ISDIR(st.st_mode) && !(flags & OUTPATH_MAKE_DIRS)) {
			free(dir);
			return set_err(err, ENOENT, "%s: directory does not exist", path);
		}
	}
	if (stat(dir, &st))
		r = set_err(err, errno, "%s: %s", path, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		r = set_err(err, ENOTDIR, "%s: %s is not a directory", path, dir);
	else if (access(dir, W_OK | X_OK))
		r = set_err(err, errno, "%s: cannot create files in %s: %s", path, dir,
			    strerror(errno));
	free(dir);
	return r;
}

/* A symbolic link's target, relative to the link's directory. */
static char *link_target(const char *link, struct errbuf *err, const char *path)
{
	char buf[4096];
	ssize_t n = readlink(link, buf, sizeof buf - 1);

	if (n < 0) {
		set_err(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf[n] = '\0';
	if (buf[0] == '/' || !strchr(link, '/'))
		return xstrdup(buf);
	return xasprintf("%.*s/%s", (int)(strrchr(link, '/') - link), link, buf);
}

/* What a name that is not a link, nor a regular file, nor a new name writes to. */
static int special_file(const char *path, const char *file, const struct stat *st,
			struct outpath *o, struct errbuf *err)
{
	if (S_ISDIR(st->st_mode))
		return set_err(err, EISDIR, "%s: is a directory", path);
	if (S_ISSOCK(st->st_mode))
		return set_err(err, ENXIO, "%s: is a socket", path);
	if (access(file, W_OK))
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	o->kind = OUTPATH_DIRECT;
	return 0;
}

/* Follow path's symbolic links to the file that gets written. */
static int follow(const char *path, unsigned flags, struct outpath *o, struct errbuf *err)
{
	struct stat st;

	o->path = xstrdup(path);
	for (int hops = 0; hops <= MAX_LINKS; hops++) {
		int fd = fd_name(o->path); /* a link to /dev/stdout */
		if (fd >= 0)
			return check_fd(path, fd, o, err);
		if (lstat(o->path, &st)) {
			if (errno != ENOENT && errno != ENOTDIR)
				return set_err(err, errno, "%s: %s", path, strerror(errno));
			o->kind = OUTPATH_REPLACE;
			return check_dir(path, o->path, flags, err);
		}
		if (S_ISREG(st.st_mode)) {
			o->kind = OUTPATH_REPLACE;
			o->exists = true;
			return check_dir(path, o->path, 0, err);
		}
		if (!S_ISLNK(st.st_mode))
			return special_file(path, o->path, &st, o, err);
		/* /proc's links (fd/N, cwd, ...) are not paths: let open() follow them. */
		if (!strncmp(o->path, "/proc/", 6)) {
			o->kind = OUTPATH_DIRECT;
			return access(o->path, W_OK)
				       ? set_err(err, errno, "%s: %s", path, strerror(errno))
				       : 0;
		}
		char *next = link_target(o->path, err, path);
		if (!next)
			return -EINVAL;
		free(o->path);
		o->path = next;
	}
	return set_err(err, ELOOP, "%s: %s", path, strerror(ELOOP));
}

int outpath_resolve(const char *path, unsigned flags, struct outpath *o, struct errbuf *err)
{
	int r;

	*o = (struct outpath){.kind = OUTPATH_STDOUT, .fd = 1};
	if (!path || !strcmp(path, "-"))
		return 0;
	if (!*path)
		return set_err(err, ENOENT, "'': the file name is empty");
	if ((r = follow(path, flags, o, err)))
		outpath_free(o);
	return r;
}

void outpath_free(struct outpath *o)
{
	free(o->path);
	o->path = NULL;
}

bool outpath_is_file(const struct outpath *o, const char *input)
{
	struct stat in, out;

	if (stat(input, &in))
		return false;
	if (o->kind == OUTPATH_STDOUT || o->kind == OUTPATH_FD) {
		if (fstat(o->fd, &out))
			return false;
	} else if (stat(o->path, &out)) {
		return false;
	}
	return in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}
