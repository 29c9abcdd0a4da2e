/*
 * The audit: find the ELF files under some paths, replay ld.so on each
 * with the analyzer, and put a modelled loader cost on each (docs/model.md):
 *
 *   cost = the cost of being dynamic at all (calibrated, minimal program)
 *        + for each library but libc: finding and mapping it (calibrated)
 *          and relocating it (the model)
 *        + relocating the program itself (the model)
 *
 * With -j, forked workers take every j-th file and stream their entries
 * back through a pipe: the analyzer keeps per-process caches that we do
 * not want to share between threads, and a crash in one file must not take
 * the audit down.
 */
#include "model/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "model/audit-wire.h"
#include "model/deps-report.h"
#include "model/model.h"
#include "ldso/resolve.h"

/* ---- finding the files ---- */

struct found {
	char **paths;
	size_t n, cap;
	struct {
		dev_t dev;
		ino_t ino;
	} * ids;
	size_t capids;
	struct audit *a;
};

static struct found *walk_state;

static void add_error(struct audit *a, const char *path, const char *why)
{
	GROW(a->e, a->cap, a->n);
	a->e[a->n++] = (struct audit_entry){.path = xstrdup(path),
					    .kind = AK_ERROR,
					    .error = xstrdup(why),
					    .measured_us = NAN,
					    .measured_loader_us = NAN};
}

/*
 * An ELF file worth auditing: an executable or a shared object. Relocatable
 * objects and core files are not; a header too short to tell is (and then
 * an error).
 */
static bool is_elf(const char *path)
{
	unsigned char h[18];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n = fd >= 0 ? read(fd, h, sizeof h) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 4 || memcmp(h, "\177ELF", 4))
		return false;
	if (n < (ssize_t)sizeof h)
		return true;
	unsigned type = h[5] == 2 ? (unsigned)(h[16] << 8 | h[17]) : (unsigned)(h[17] << 8 | h[16]);
	return type == 2 /* ET_EXEC */ || type == 3 /* ET_DYN */;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct found *f = walk_state;
	struct stat t;

	(void)ftw;
	if (interrupt_requested())
		return 1;
	if (type == FTW_SLN || (type == FTW_SL && stat(path, &t))) {
		add_error(f->a, path, "broken symbolic link");
		return 0;
	}
	if (type == FTW_DNR || type == FTW_NS) {
		add_error(f->a, path, type == FTW_DNR ? "unreadable directory" : "cannot stat");
		return 0;
	}
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	f->a->files_seen++;
	if (access(path, R_OK)) {
		add_error(f->a, path, strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < f->n; i++) /* hard links and -L's second paths */
		if (f->ids[i].dev == st->st_dev && f->ids[i].ino == st->st_ino)
			return 0;
	if (!is_elf(path))
		return 0;
	GROW(f->paths, f->cap, f->n);
	GROW(f->ids, f->capids, f->n);
	f->ids[f->n].dev = st->st_dev;
	f->ids[f->n].ino = st->st_ino;
	f->paths[f->n++] = xstrdup(path);
	return 0;
}

static void find_files(const struct audit_opts *o, struct audit *a, struct found *f)
{
	memset(f, 0, sizeof *f);
	f->a = a;
	walk_state = f;
	for (size_t i = 0; i < o->npaths && !interrupt_requested(); i++) {
		struct stat st;
		if (lstat(o->paths[i], &st)) {
			add_error(a, o->paths[i], strerror(errno));
			continue;
		}
		nftw(o->paths[i], visit, 32, o->follow ? 0 : FTW_PHYS);
	}
}

/* ---- one file ---- */

/* The largest saving among the changes the analyzer can see, model only. */
static void top_advice(const struct deps_report *r, const double *feat,
		       const struct advice_facts *af, const double *obj_us,
		       const struct model_coefs *m, struct audit_entry *e)
{
	for (size_t i = 0; i < r->p.nobj; i++) {
		struct model_savings sv;
		model_object_savings(m, &feat[i * MODEL_NFEAT], &af[i], r->p.obj[i]->is_main, &sv);
		const char *name = r->p.obj[i]->elf && r->p.obj[i]->elf->soname
					   ? r->p.obj[i]->elf->soname
					   : r->p.obj[i]->name;
		struct {
			double us;
			char *what;
		} cand[] = {
			{af[i].unused ? m->load_per_object_us + obj_us[i] : 0,
			 xasprintf("drop %s (unused)", name)},
			{sv.lazy, xasprintf("bind %s lazily", name)},
			{sv.relr, xasprintf("pack %s's relative relocations", name)},
			{sv.gnu_hash, xasprintf("GNU hash for %s", name)},
			{sv.self_bind, xasprintf("hide %s's internal symbols", name)},
		};
		for (size_t k = 0; k < ARRAY_SIZE(cand); k++) {
			if (cand[k].us > 0.5 && cand[k].us > e->advice_us) {
				free(e->advice);
				e->advice = cand[k].what;
				e->advice_us = cand[k].us;
			} else {
				free(cand[k].what);
			}
		}
	}
}

static void unused_names(const struct deps_report *r, const struct advice_facts *af,
			 struct audit_entry *e)
{
	struct sbuf sb = {0};

	for (size_t i = 0; i < r->p.nobj; i++)
		if (af[i].unused)
			sbuf_printf(&sb, "%s%s", sb.len ? " " : "",
				    r->p.obj[i]->elf && r->p.obj[i]->elf->soname
					    ? r->p.obj[i]->elf->soname
					    : r->p.obj[i]->name);
	e->unused = sb.buf;
}

static void cost_of(const struct deps_report *r, const struct model_coefs *m, struct audit_entry *e)
{
	size_t n = r->p.nobj;
	double *feat = xcalloc((n + 1) * MODEL_NFEAT, sizeof *feat), *obj_us = xcalloc(n + 1, 8);
	struct advice_facts *af = xcalloc(n + 1, sizeof *af);

	model_replay_facts(r, feat, af);
	e->cost_us = m->dynamic_fixed_us;
	e->lib_paths = xcalloc(n + 1, sizeof *e->lib_paths);
	e->lib_us = xcalloc(n + 1, sizeof *e->lib_us);
	for (size_t i = 0; i < n; i++) {
		const struct dso *d = r->p.obj[i];
		obj_us[i] = model_object_us(m, &feat[i * MODEL_NFEAT]);
		e->lookups += feat[i * MODEL_NFEAT + MF_LOOKUPS];
		e->pages += feat[i * MODEL_NFEAT + MF_PAGES];
		if (d->elf)
			e->relocations += (double)reloc_counts_total(&d->elf->relocs);
		if (d->is_main) {
			e->cost_us += obj_us[i];
			continue;
		}
		if (d->is_rtld || d->is_vdso)
			continue;
		if (d->faked || !d->elf) {
			e->missing++;
			continue;
		}
		double lib = m->load_per_object_us + obj_us[i];
		e->lib_paths[e->libs] = xstrdup(d->path ? d->path : d->name);
		e->lib_us[e->libs++] = lib;
		if (!elf_soname_is_libc(d->elf->soname)) /* its cost is in the minimal program's */
			e->cost_us += lib;
	}
	e->share = e->cost_us / (m->static_min_us + e->cost_us);
	unused_names(r, af, e);
	top_advice(r, feat, af, obj_us, m, e);
	free(feat);
	free(obj_us);
	free(af);
}

static void analyze_file(struct ldenv *env, const struct model_coefs *m, const char *path,
			 struct audit_entry *e)
{
	struct deps_options opt = {.unused = true, .cold_lines = true};
	struct deps_report r;
	struct errbuf err;

	memset(e, 0, sizeof *e);
	e->path = xstrdup(path);
	e->measured_us = e->measured_loader_us = NAN;
	if (deps_report_build(env, path, &opt, &r, &err)) {
		size_t len = strlen(path);
		e->kind = AK_ERROR;
		/* The message names the file already; the entry does too. */
		e->error = xstrdup(!strncmp(err.msg, path, len) && !strncmp(err.msg + len, ": ", 2)
					   ? err.msg + len + 2
					   : err.msg);
		return;
	}
	struct dso *main = r.p.obj[r.p.main];
	e->elf_kind = xstrdup(main->elf ? elf_kind_name(main->elf->kind) : "ELF");
	if (r.p.is_static) {
		e->kind = AK_STATIC;
	} else {
		e->kind = AK_DYNAMIC;
		cost_of(&r, m, e);
	}
	deps_report_free(&r);
}

/* ---- running, alone or with workers ---- */

static void add_entry(struct audit *a, struct audit_entry *e)
{
	GROW(a->e, a->cap, a->n);
	a->e[a->n++] = *e;
}

static void progress(const struct audit_opts *o, size_t done, size_t total, const char *path)
{
	int width = 30, fill = total ? (int)(width * done / total) : width;

	if (!o->progress)
		return;
	fprintf(stderr, "\r\033[K[%.*s%*s] %zu/%zu %.40s", fill, "##############################",
		width - fill, "", done, total, path ? path : "");
	if (done == total)
		fputs("\r\033[K", stderr);
}

static void run_worker(struct ldenv *env, const struct model_coefs *m, const struct found *f,
		       unsigned k, unsigned jobs, int fd)
{
	for (size_t i = k; i < f->n && !interrupt_requested(); i += jobs) {
		struct audit_entry e;
		analyze_file(env, m, f->paths[i], &e);
		if (wire_send(fd, &e))
			break;
	}
	close(fd);
	_exit(0);
}

static int run_parallel(const struct audit_opts *o, struct ldenv *env, const struct found *f,
			struct audit *a, struct errbuf *err)
{
	unsigned jobs = o->jobs;
	pid_t *pids = xcalloc(jobs, sizeof *pids);
	int *fds = xcalloc(jobs, sizeof *fds), live = 0;
	size_t done = 0;

	fflush(NULL);
	for (unsigned k = 0; k < jobs; k++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC))
			return set_err(err, errno, "pipe: %s", strerror(errno));
		if ((pids[k] = fork()) < 0)
			return set_err(err, errno, "fork: %s", strerror(errno));
		if (!pids[k]) {
			close(p[0]);
			run_worker(env, &a->model, f, k, jobs, p[1]);
		}
		close(p[1]);
		fds[k] = p[0];
		live++;
	}
	while (live) {
		for (unsigned k = 0; k < jobs; k++) {
			struct audit_entry e;
			if (fds[k] < 0)
				continue;
			if (wire_recv(fds[k], &e) <= 0) { /* one entry at a time, round robin */
				close(fds[k]);
				fds[k] = -1;
				live--;
				continue;
			}
			add_entry(a, &e);
			progress(o, ++done, f->n, e.path);
		}
	}
	for (unsigned k = 0; k < jobs; k++)
		waitpid(pids[k], NULL, 0);
	free(pids);
	free(fds);
	return 0;
}

int audit_run(const struct audit_opts *o, struct audit *a, struct errbuf *err)
{
	struct ldenv env;
	struct ldenv_options eo = {0};
	struct found f;
	int r = 0;

	memset(a, 0, sizeof *a);
	model_load(&a->model);
	if ((r = ldenv_init(&env, &eo, err)))
		return r;
	interrupt_begin();
	find_files(o, a, &f);
	if (o->jobs > 1 && f.n > 1) {
		r = run_parallel(o, &env, &f, a, err);
	} else {
		for (size_t i = 0; i < f.n && !interrupt_requested(); i++) {
			struct audit_entry e;
			analyze_file(&env, &a->model, f.paths[i], &e);
			add_entry(a, &e);
			progress(o, i + 1, f.n, f.paths[i]);
		}
	}
	for (size_t i = 0; !r && o->measure && i < a->n && !interrupt_requested(); i++)
		if (a->e[i].kind == AK_DYNAMIC)
			audit_measure(o, &a->e[i]);
	a->interrupted = interrupt_requested();
	if (a->interrupted)
		progress(o, f.n, f.n, NULL);
	interrupt_end();
	audit_summarize(a);
	for (size_t i = 0; i < f.n; i++)
		free(f.paths[i]);
	free(f.paths);
	free(f.ids);
	ldenv_free(&env);
	return r;
}
