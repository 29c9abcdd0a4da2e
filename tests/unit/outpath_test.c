/* Unit tests for outpath.c and write_atomic: where -o writes, and that it never destroys. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "base/out/outpath.h"

static char dir[] = "/tmp/outpath-test.XXXXXX";

static char *at(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

/* The kind path resolves to (-1 on an error, with its message in why). */
static int kind(const char *path, unsigned flags, char *target, char *why)
{
	struct outpath o;
	struct errbuf err;

	if (outpath_resolve(path, flags, &o, &err)) {
		if (why)
			strcpy(why, err.msg);
		return -1;
	}
	if (target)
		strcpy(target, o.path ? o.path : "");
	outpath_free(&o);
	return (int)o.kind;
}

static int write_hello(FILE *f, void *arg, struct errbuf *err)
{
	(void)err;
	fputs(arg, f);
	return 0;
}

static int holds(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
	fclose(f);
	return !strcmp(buf, want);
}

static void test_kinds(void)
{
	char target[512], why[512];

	CHECK(kind(NULL, 0, NULL, NULL) == OUTPATH_STDOUT);
	CHECK(kind("-", 0, NULL, NULL) == OUTPATH_STDOUT);
	CHECK(kind("/dev/stdout", 0, NULL, NULL) == OUTPATH_STDOUT);
	CHECK(kind("/dev/fd/1", 0, NULL, NULL) == OUTPATH_STDOUT);
	CHECK(kind("/proc/self/fd/2", 0, NULL, NULL) == OUTPATH_FD);
	CHECK(kind("/dev/fd/987", 0, NULL, why) == -1 && strstr(why, "not open"));
	CHECK(kind("", 0, NULL, why) == -1 && strstr(why, "empty"));
	CHECK(kind(at("new"), 0, target, NULL) == OUTPATH_REPLACE && !strcmp(target, at("new")));
	CHECK(kind(at("no/such/x"), 0, NULL, why) == -1 && strstr(why, "directory does not exist"));
	CHECK(kind(at("no/such/x"), OUTPATH_MAKE_DIRS, NULL, NULL) == OUTPATH_REPLACE);
	CHECK(kind(dir, 0, NULL, why) == -1 && strstr(why, "is a directory"));
	CHECK(kind("/dev/null", 0, target, NULL) == OUTPATH_DIRECT);

	CHECK(!mkfifo(at("fifo"), 0600));
	CHECK(kind(at("fifo"), 0, NULL, NULL) == OUTPATH_DIRECT);
	CHECK(!symlink("sub/target", at("link")));
	CHECK(kind(at("link"), 0, NULL, why) == -1 && strstr(why, "directory does not exist"));
	CHECK(!mkdir(at("sub"), 0700));
	CHECK(kind(at("link"), 0, target, NULL) == OUTPATH_REPLACE &&
	      !strcmp(target, at("sub/target")));
	CHECK(!symlink("loop", at("loop")));
	CHECK(kind(at("loop"), 0, NULL, why) == -1 && strstr(why, strerror(ELOOP)));
	CHECK(!symlink("/dev/stdout", at("stdout")));
	CHECK(kind(at("stdout"), 0, NULL, NULL) == OUTPATH_STDOUT);
	CHECK(!symlink("fifo", at("fifolink")));
	CHECK(kind(at("fifolink"), 0, NULL, NULL) == OUTPATH_DIRECT);
}

static void test_writes(void)
{
	struct errbuf err;
	struct outpath o;
	struct stat st;

	/* A link's target is replaced; the link stays. */
	CHECK(!write_atomic(at("link"), write_hello, "one", &err));
	CHECK(!lstat(at("link"), &st) && S_ISLNK(st.st_mode));
	CHECK(holds(at("sub/target"), "one"));
	/* An existing file keeps its mode. */
	CHECK(!chmod(at("sub/target"), 0640));
	CHECK(!write_atomic(at("link"), write_hello, "two", &err));
	CHECK(!stat(at("sub/target"), &st) && (st.st_mode & 07777) == 0640);
	CHECK(holds(at("sub/target"), "two"));
	/* Same file: through the link, and not for another file. */
	CHECK(!outpath_resolve(at("link"), 0, &o, &err));
	CHECK(outpath_is_file(&o, at("sub/target")));
	CHECK(!outpath_is_file(&o, "/bin/sh"));
	outpath_free(&o);
	/* A missing directory fails with the reason, and writes nothing. */
	CHECK(write_atomic(at("none/x"), write_hello, "x", &err) == -ENOENT);
	CHECK(strstr(err.msg, "directory does not exist") != NULL);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_kinds();
	test_writes();
	char *cmd = NULL;
	if (asprintf(&cmd, "rm -rf '%s'", dir) > 0 && system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	free(cmd);
	return unit_done("outpath_test");
}
