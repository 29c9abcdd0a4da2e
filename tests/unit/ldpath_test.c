/* Dynamic string tokens and search list decomposition, as ld.so does them. */
#include <stdlib.h>
#include <string.h>

#include "ldso/ldpath.h"
#include "unit.h"

static int expands(const char *in, const char *origin, const char *want)
{
	char *got = dst_expand(in, origin, "x86_64");
	int ok = !strcmp(got, want);

	if (!ok)
		fprintf(stderr, "dst_expand(%s) = %s, want %s\n", in, got, want);
	free(got);
	return ok;
}

static void tokens(void)
{
	CHECK(expands("$ORIGIN/lib", "/opt/app/bin", "/opt/app/bin/lib"));
	CHECK(expands("${ORIGIN}/../$LIB", "/o", "/o/../lib/x86_64-linux-gnu"));
	CHECK(expands("/p/$PLATFORM/x", "/o", "/p/x86_64/x"));
	/* Longer identifiers are not the token. */
	CHECK(expands("$ORIGINX/a", "/o", "$ORIGINX/a"));
	CHECK(expands("/q/$ORIGIN_/", "/o", "/q/$ORIGIN_/"));
	CHECK(expands("${ORIGIN", "/o", "${ORIGIN"));
	CHECK(expands("$$ORIGIN", "/o", "$/o"));
	/* An unknown origin discards the whole path. */
	CHECK(expands("$ORIGIN/lib", NULL, ""));
	CHECK(expands("/no/tokens", NULL, "/no/tokens"));
	CHECK(dst_present("a:$LIB") && dst_present("${PLATFORM}") && !dst_present("$LIBX"));
}

static void lists(void)
{
	struct cpu_facts c = {ISA_BASELINE, false, false, false, false, "x86_64"};
	struct hwcaps h;
	struct dirstate ds;
	struct spath *sp;

	hwcaps_init(&h, &c);
	dirstate_init(&ds, &h);
	/* Trailing slashes fold, duplicates go, an empty element is ".". */
	sp = spath_new(&ds, "/a//:/b:/a/::$ORIGIN/c", ":", "RPATH", "x", "/o", "x86_64");
	CHECK(sp && sp->n == 4);
	CHECK(!strcmp(sp->dir[0]->name, "/a/"));
	CHECK(!strcmp(sp->dir[1]->name, "/b/"));
	CHECK(!strcmp(sp->dir[2]->name, ""));
	CHECK(!strcmp(sp->dir[3]->name, "/o/c/"));
	/* A relative directory is never written off. */
	CHECK(sp->dir[2]->status[0] == DIR_EXISTS && sp->dir[0]->status[0] == DIR_UNKNOWN);
	spath_free(sp);
	/* LD_LIBRARY_PATH also splits at ';'. */
	sp = spath_new(&ds, "/x;/y", ":;", "LD_LIBRARY_PATH", NULL, "/o", "x86_64");
	CHECK(sp && sp->n == 2);
	spath_free(sp);
	/* Nothing left after expansion: no list at all. */
	CHECK(!spath_new(&ds, "$ORIGIN/x", ":", "RPATH", "x", NULL, "x86_64"));
	dirstate_free(&ds);
	hwcaps_free(&h);
}

int main(void)
{
	tokens();
	lists();
	return unit_done("ldpath");
}
