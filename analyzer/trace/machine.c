#include "trace/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/version.h"

char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512], *model = NULL;

	if (!f)
		return NULL;
	while (!model && fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + strspn(colon + 1, " \t");
		colon[strcspn(colon, "\n")] = 0;
		model = xstrdup(colon);
	}
	fclose(f);
	return model;
}

static void probe_machine(struct trace_machine *m)
{
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (uname(&u) == 0) {
		m->hostname = xstrdup(u.nodename);
		m->kernel = xasprintf("%s %s", u.sysname, u.release);
		m->kernel_version = xstrdup(u.version);
		m->arch = xstrdup(u.machine);
	}
	m->glibc = xstrdup(gnu_get_libc_version());
	m->cpu_model = cpu_model();
	m->ncpus = n > 0 ? (unsigned)n : 0;
}

bool env_matters(const char *nv)
{
	return !strncmp(nv, "LD_", 3) || !strncmp(nv, "GLIBC_TUNABLES=", 15);
}

void trace_record_context(struct trace *t, char **env)
{
	size_t cap = 0;
	char *cwd = getcwd(NULL, 0);

	probe_machine(&t->machine);
	for (char **e = env; e && *e; e++) {
		if (!env_matters(*e))
			continue;
		GROW(t->env, cap, t->nenv);
		t->env[t->nenv++] = xstrdup(*e);
	}
	t->cwd = cwd ? xstrdup(cwd) : NULL;
	free(cwd);
	t->recorded_at = (int64_t)time(NULL);
	t->ldprof_version = xstrdup(LDPROF_VERSION);
}

static char *hex(const unsigned char *p, size_t n)
{
	char *s = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", p[i]);
	s[2 * n] = 0;
	return s;
}

/* The NT_GNU_BUILD_ID note in one PT_NOTE segment, or NULL. */
static char *note_build_id(Elf *e, const GElf_Phdr *ph)
{
	Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph->p_offset, ph->p_filesz,
					   ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *base = d->d_buf;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(base + name_off, "GNU", 4) && nh.n_descsz)
			return hex((const unsigned char *)base + desc_off, nh.n_descsz);
	}
	return NULL;
}

int elf_build_id(const char *path, char **out, struct errbuf *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -ENOENT;
	size_t phnum = 0;
	Elf *e;

	*out = NULL;
	if (fd < 0)
		return set_err(err, errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &phnum)) {
		r = set_err(err, EINVAL, "%s: not an ELF file", path);
		phnum = 0;
	}
	for (size_t i = 0; i < phnum && !*out; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE)
			*out = note_build_id(e, &ph);
	}
	if (*out)
		r = 0;
	else if (r == -ENOENT)
		set_err(err, ENOENT, "%s: no build-id", path);
	elf_end(e);
	close(fd);
	return r;
}

char *object_file_path(const struct trace *t, const struct trace_object *o)
{
	const char *p = o->role == ROLE_EXECUTABLE && t->elf_path ? t->elf_path : o->path;

	if (p[0] != '/' && t->cwd)
		return xasprintf("%s/%s", t->cwd, p);
	return xstrdup(p);
}

void trace_record_identities(struct trace *t)
{
	for (size_t i = 0; i < t->nobj; i++) {
		struct trace_object *o = &t->obj[i];
		char *path = object_file_path(t, o);
		struct errbuf err;
		struct stat st;

		if (o->role != ROLE_VDSO && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			o->have_stat = true;
			o->file_size = (uint64_t)st.st_size;
			o->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
			free(o->build_id);
			elf_build_id(path, &o->build_id, &err);
		}
		free(path);
	}
}

/* Whether the file at path is not the one o recorded; false when it is not here. */
static bool changed_on_disk(const struct trace_object *o, const char *path)
{
	struct stat st;
	struct errbuf err;
	char *id = NULL;
	bool changed;

	if (!o->build_id && !o->have_stat)
		return false;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	if (o->build_id) {
		changed = elf_build_id(path, &id, &err) || strcmp(id, o->build_id);
		free(id);
		return changed;
	}
	return (uint64_t)st.st_size != o->file_size ||
	       (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != o->mtime_ns;
}

#define MAX_NAMED 4

size_t trace_changed_objects(const struct trace *t, char **note)
{
	struct sbuf names = {0};
	size_t n = 0;

	*note = NULL;
	for (size_t i = 0; i < t->nobj; i++) {
		char *path = object_file_path(t, &t->obj[i]);
		if (t->obj[i].role != ROLE_VDSO && changed_on_disk(&t->obj[i], path)) {
			if (n < MAX_NAMED)
				sbuf_printf(&names, "%s%s", n ? ", " : "", path);
			n++;
		}
		free(path);
	}
	if (n > MAX_NAMED)
		sbuf_printf(&names, " and %zu more", n - MAX_NAMED);
	if (n)
		*note = xasprintf("%zu file%s on disk %s not the one%s recorded (another build-id, "
				  "or size and mtime): %s; the report uses the facts recorded "
				  "with the trace",
				  n, n == 1 ? "" : "s", n == 1 ? "is" : "are", n == 1 ? "" : "s",
				  names.buf);
	sbuf_free(&names);
	return n;
}

static bool same(const char *a, const char *b)
{
	return !a || !b || !strcmp(a, b);
}

static char *describe(const struct trace_machine *m)
{
	return xasprintf("%s, %s, glibc %s, %s", m->hostname ? m->hostname : "?",
			 m->kernel ? m->kernel : "?", m->glibc ? m->glibc : "?",
			 m->cpu_model ? m->cpu_model : "unknown CPU");
}

char *trace_other_machine_note(const struct trace *t)
{
	struct trace here = {0};
	const struct trace_machine *a = &t->machine, *b;
	char *note = NULL;

	if (!a->hostname)
		return NULL;
	probe_machine(&here.machine);
	b = &here.machine;
	if (!same(a->hostname, b->hostname) || !same(a->kernel, b->kernel) ||
	    !same(a->glibc, b->glibc) || !same(a->cpu_model, b->cpu_model)) {
		char *then = describe(a), *now = describe(b);
		note = xasprintf("recorded on another machine or system (%s); this one is %s", then,
				 now);
		free(then);
		free(now);
	}
	trace_free(&here);
	return note;
}
