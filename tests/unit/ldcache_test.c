/*
 * ld.so.cache: the name order, and every name `ldconfig -p` lists for the
 * system cache is found, at a path ldconfig lists for it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldso/ldcache.h"
#include "unit.h"

static void order(void)
{
	/* Digit runs compare as numbers. */
	CHECK(ldcache_libcmp("libfoo.so.10", "libfoo.so.9") > 0);
	CHECK(ldcache_libcmp("libfoo.so.9", "libfoo.so.10") < 0);
	CHECK(ldcache_libcmp("libfoo.so", "libfoo.so") == 0);
	CHECK(ldcache_libcmp("libfoo.so", "libfoo.so.1") < 0);
	CHECK(ldcache_libcmp("libfoo2.so", "libfoo.so") > 0);
	CHECK(ldcache_libcmp("liba.so", "libb.so") < 0);
}

static void count(const char *name, const char *path, int32_t flags, uint64_t hwcap, void *arg)
{
	(void)name, (void)path, (void)flags, (void)hwcap;
	++*(unsigned *)arg;
}

/*
 * "\tNAME (libc6,x86-64...) => PATH" lines; one name's lines are adjacent
 * (the cache is sorted by name). Our answer for a name must be one of them.
 */
static void against_ldconfig(const struct ldcache *c)
{
	FILE *p = popen("/sbin/ldconfig -p 2>/dev/null", "r");
	char line[4096], name[1024], path[2048], cur[1024] = "";
	unsigned listed = 0, ours = 0, names = 0, names_ok = 0;
	bool cur_ok = false;

	if (!p)
		return;
	if (fgets(line, sizeof line, p))
		sscanf(line, "%u libs found", &listed);
	while (fgets(line, sizeof line, p)) {
		if (sscanf(line, " %1023s (libc6,x86-64%*[^=]=> %2047s", name, path) != 2)
			continue;
		if (strcmp(name, cur)) {
			names += *cur != 0;
			names_ok += *cur && cur_ok;
			snprintf(cur, sizeof cur, "%s", name);
			cur_ok = false;
		}
		const char *hit = ldcache_lookup(c, name);
		cur_ok |= hit && !strcmp(hit, path);
	}
	names += *cur != 0;
	names_ok += *cur && cur_ok;
	pclose(p);
	if (!listed)
		return; /* no ldconfig here */
	ldcache_foreach(c, count, &ours);
	CHECK(ours == listed);
	CHECK(names > 0 && names_ok == names);
}

int main(void)
{
	struct cpu_facts cpu;
	struct hwcaps hw;
	struct ldcache c;
	struct errbuf err;

	order();
	cpu_facts_detect(&cpu);
	hwcaps_init(&hw, &cpu);
	CHECK(!ldcache_open("/etc/ld.so.cache", &hw, &c, &err));
	if (!c.absent) {
		against_ldconfig(&c);
		CHECK(ldcache_lookup(&c, "libc.so.6") != NULL);
		CHECK(ldcache_lookup(&c, "libdoes-not-exist.so.42") == NULL);
	}
	ldcache_close(&c);
	CHECK(!ldcache_open("/nonexistent/ld.so.cache", &hw, &c, &err) && c.absent);
	ldcache_close(&c);
	hwcaps_free(&hw);
	return unit_done("ldcache");
}
