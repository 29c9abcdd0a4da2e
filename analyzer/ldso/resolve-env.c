/*
 * The loader's environment for a run: this CPU's hwcaps, ld.so.cache,
 * --library-path and --preload (read as ld.so reads LD_LIBRARY_PATH and
 * LD_PRELOAD), /etc/ld.so.preload, and the kernel's vDSO image.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "ldso/resolve.h"

static void add_preload(struct ldenv *env, size_t *cap, const char *name, size_t len,
			const char *from)
{
	if (!len)
		return;
	GROW(env->preload, *cap, env->npreload);
	env->preload_from = xrealloc(env->preload_from, *cap * sizeof *env->preload_from);
	env->preload[env->npreload] = xmalloc(len + 1);
	memcpy(env->preload[env->npreload], name, len);
	env->preload[env->npreload][len] = '\0';
	env->preload_from[env->npreload++] = from;
}

static void split_preloads(struct ldenv *env, size_t *cap, const char *list, const char *seps,
			   const char *from)
{
	while (*list) {
		size_t len = strcspn(list, seps);
		add_preload(env, cap, list, len, from);
		list += len;
		if (*list)
			list++;
	}
}

/* /etc/ld.so.preload: names separated by white space or ':', '#' starts
   a comment. Absent in normal systems. */
static void read_preload_file(struct ldenv *env, size_t *cap, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[4096];

	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "#")] = '\0';
		split_preloads(env, cap, line, ": \t\n", "/etc/ld.so.preload");
	}
	fclose(f);
}

/* The vDSO's size: its mapping in /proc/self/maps. */
static size_t vdso_size(uintptr_t base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	size_t size = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base &&
		    strstr(line, "[vdso]")) {
			size = hi - lo;
			break;
		}
	}
	fclose(f);
	return size;
}

/* Our own process has the vDSO every program gets from this kernel. */
static void load_vdso(struct ldenv *env)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	size_t size = base ? vdso_size(base) : 0;
	struct errbuf err;

	if (size &&
	    elfobj_open_memory("linux-vdso.so.1", (const void *)base, size, &env->vdso, &err))
		env->vdso = NULL;
}

int ldenv_init(struct ldenv *env, const struct ldenv_options *opt, struct errbuf *err)
{
	struct cpu_facts cpu;
	size_t cap = 0;
	int r;

	memset(env, 0, sizeof *env);
	cpu_facts_detect(&cpu);
	hwcaps_init(&env->hw, &cpu);
	ldfs_init(&env->fs);
	memo_table_init(&env->memo);
	env->default_interp = "/lib64/ld-linux-x86-64.so.2";
	if (opt->library_path)
		env->library_path = xstrdup(opt->library_path);
	for (size_t i = 0; i < opt->npreload; i++)
		split_preloads(env, &cap, opt->preload[i], " :", "--preload");
	read_preload_file(env, &cap, opt->preload_file ? opt->preload_file : "/etc/ld.so.preload");
	if (!opt->no_vdso)
		load_vdso(env);
	r = ldcache_open(opt->cache_file ? opt->cache_file : "/etc/ld.so.cache", &env->hw,
			 &env->cache, err);
	if (r)
		ldenv_free(env);
	return r;
}

void ldenv_free(struct ldenv *env)
{
	ldcache_close(&env->cache);
	memo_table_free(&env->memo);
	ldfs_free(&env->fs);
	hwcaps_free(&env->hw);
	elfobj_close(env->vdso);
	for (size_t i = 0; i < env->npreload; i++)
		free(env->preload[i]);
	free(env->preload);
	free(env->preload_from);
	free(env->library_path);
	memset(env, 0, sizeof *env);
}
