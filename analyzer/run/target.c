#include "run/target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* execvp's search: the first executable regular file on PATH. */
static char *search_path(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = xstrdup(path);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", *dir ? dir : ".", name);
		struct stat st;
		if (!stat(cand, &st) && S_ISREG(st.st_mode) && !access(cand, X_OK))
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

static int check_file(const char *path, struct errbuf *err)
{
	struct stat st;

	if (stat(path, &st))
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return set_err(err, EISDIR, "%s: is a directory", path);
	if (!S_ISREG(st.st_mode))
		return set_err(err, EACCES, "%s: not a regular file", path);
	if (access(path, X_OK))
		return set_err(err, errno, "%s: not executable: %s", path, strerror(errno));
	/* In secure mode (AT_SECURE) ld.so ignores LD_AUDIT and LD_PRELOAD. */
	if (st.st_mode & (S_ISUID | S_ISGID))
		return set_err(err, EPERM,
			       "%s: set-user-ID or set-group-ID program: ld.so ignores LD_AUDIT "
			       "in secure mode, so it cannot be profiled",
			       path);
	if (getxattr(path, "security.capability", NULL, 0) > 0)
		return set_err(err, EPERM,
			       "%s: has file capabilities: ld.so ignores LD_AUDIT in secure mode, "
			       "so it cannot be profiled",
			       path);
	return 0;
}

/* "#!/bin/sh -e" -> "/bin/sh"; NULL if the file is not a script. */
static char *script_interpreter(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return NULL;
	buf[n] = '\0';
	char *p = buf + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t len = strcspn(p, " \t\n");
	if (!len)
		return NULL;
	p[len] = '\0';
	return xstrdup(p);
}

static bool is_glibc_loader(const char *interp)
{
	const char *base = strrchr(interp, '/');

	base = base ? base + 1 : interp;
	return !strncmp(base, "ld-linux", 8);
}

int target_resolve(const char *name, struct target *t, struct errbuf *err)
{
	struct elfobj *o = NULL;
	int r;

	memset(t, 0, sizeof *t);
	if (!*name)
		return set_err(err, ENOENT, "'': no program named");
	t->path = strchr(name, '/') ? xstrdup(name) : search_path(name);
	if (!t->path)
		return set_err(err, ENOENT, "%s: command not found in PATH", name);
	if ((r = check_file(t->path, err)))
		goto out;
	t->elf_path = script_interpreter(t->path);
	if (t->elf_path) {
		char *inner;
		if ((r = check_file(t->elf_path, err)))
			goto out;
		if ((inner = script_interpreter(t->elf_path))) {
			free(inner);
			r = set_err(err, ENOEXEC, "%s: its interpreter %s is itself a script",
				    t->path, t->elf_path);
			goto out;
		}
	} else {
		t->elf_path = xstrdup(t->path);
	}
	if ((r = elfobj_open(t->elf_path, &o, err)))
		goto out;
	t->kind = o->kind;
	t->is_static = elf_kind_is_static(o->kind);
	if (o->kind == ELF_KIND_OTHER) {
		r = set_err(err, ENOEXEC, "%s: not an executable", t->elf_path);
		goto out;
	}
	if (o->interp) {
		if (!is_glibc_loader(o->interp)) {
			r = set_err(err, ENOTSUP,
				    "%s: its loader %s is not glibc's ld.so; ldprof needs LD_AUDIT",
				    t->elf_path, o->interp);
			goto out;
		}
	}
	r = 0;
out:
	elfobj_close(o);
	if (r)
		target_free(t);
	return r;
}

void target_free(struct target *t)
{
	free(t->path);
	free(t->elf_path);
	memset(t, 0, sizeof *t);
}
