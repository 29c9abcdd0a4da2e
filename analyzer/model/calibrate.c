/*
 * Calibration: build synthetic programs that vary one kind of relocation
 * work each, run them interleaved under the shim, and fit the model's
 * coefficients to their measured relocate phases by non-negative least
 * squares. The inputs of the fit are the analyzer's counts for every object
 * of each program (libc and ld.so included), so the fitted model applies to
 * any program the analyzer can replay.
 */
#include "model/calibrate.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cacheprobe.h"
#include "base/doomed-dir.h"
#include "base/interrupt.h"
#include "base/pagecache.h"
#include "elf/elfobj.h"
#include "model/calibrate-fork.h"
#include "model/calibrate-nss.h"
#include "model/calibrate-machine.h"
#include "model/calibrate-unwind.h"
#include "model/calibrate-warm.h"
#include "model/compare.h"
#include "model/minimal-pair.h"
#include "trace/machine.h"
#include "model/model.h"
#include "base/nnls.h"
#include "run/target.h"

/* One synthetic library: its name and gen-reloc-lib arguments. */
struct lib_spec {
	char name[40];
	char args[96];
	bool versioned; /* a version per function: gen-reloc-lib -V, linked with its script */
	bool bloom_full; /* every Bloom word set to all ones after the link (elf_fill_bloom) */
};

struct prog_spec {
	char name[32];
	struct lib_spec libs[52]; /* depth-48: 48 fillers, a provider and a user */
	int nlibs;
	bool relr;  /* link its libraries with -z pack-relative-relocs */
	bool nolibc; /* no libc at all: what libc costs every other program */
};

static void __attribute__((format(printf, 3, 4)))
add_lib(struct prog_spec *p, const char *name, const char *fmt, ...)
{
	struct lib_spec *l = &p->libs[p->nlibs++];
	va_list ap;

	snprintf(l->name, sizeof l->name, "%s", name);
	l->versioned = false;
	l->bloom_full = false;
	va_start(ap, fmt);
	vsnprintf(l->args, sizeof l->args, fmt, ap);
	va_end(ap);
}

/* K libraries PREFIX0 .. PREFIX(K-1), each exporting N unreferenced functions. */
static void add_exporters(struct prog_spec *p, const char *prefix, long k, long n)
{
	for (long i = 0; i < k; i++) {
		char nm[24];
		snprintf(nm, sizeof nm, "%s%ld", prefix, i);
		add_lib(p, nm, "-e %ld -n %s", n, nm);
	}
}

/*
 * K fillers of 64 exports, then a provider of 2000 functions and a user
 * that looks each up: every lookup probes the K fillers first. With
 * bloom_full, the fillers' Bloom words are all ones (bloom-K).
 */
static void add_sweep(struct prog_spec *p, long k, bool bloom_full)
{
	add_exporters(p, "f", k, 64);
	for (int i = 0; i < p->nlibs; i++)
		p->libs[i].bloom_full = bloom_full;
	add_lib(p, "prov", "-e %d -n prov", 2000);
	add_lib(p, "user", "-x %d -X prov -n user", 2000);
}

/* The programs: each varies one count, the others stay as in "base". */
static size_t plan(bool quick, struct prog_spec *ps)
{
	static const long rel[] = {4000, 16000, 32000}, relr[] = {8000, 32000},
			  pages[] = {32, 128, 256}, sym[] = {1000, 3000, 6000},
			  depth[] = {0, 6, 12}, cached[] = {3000, 12000}, tls[] = {200, 800},
			  ifunc[] = {200, 800}, objs[] = {8, 16}, names[] = {64, 160},
			  deep[] = {24, 48}, vers[] = {100, 300}, passed[] = {12, 6};
	size_t n = 0, q = quick ? 2 : 3;
	struct prog_spec *p;

#define NEW(...)                                                                                   \
	(p = &ps[n++], memset(p, 0, sizeof *p), snprintf(p->name, sizeof p->name, __VA_ARGS__))
	NEW("base");
	NEW("nolibc");
	p->nolibc = true;
	for (size_t i = 0; i < q; i++) {
		NEW("relative-%ld", rel[i]);
		add_lib(p, "r", "-r %ld -n r", rel[i]);
		NEW("pages-%ld", pages[i]); /* one relocation per page */
		add_lib(p, "p", "-r %ld -p %ld -n p", pages[i], pages[i]);
		NEW("symbolic-%ld", sym[i]);
		add_lib(p, "s", "-s %ld -n s", sym[i]);
		NEW("depth-%ld", depth[i]);
		add_sweep(p, depth[i], false);
	}
	/*
	 * Long scopes, as a large C++ program's (cmake 49 objects, gdb 60): a
	 * probe past the twelfth object costs more (deep_probes).
	 */
	for (size_t i = 0; i < (quick ? 1u : 2u); i++) {
		NEW("depth-%ld", deep[i]);
		add_sweep(p, deep[i], false);
	}
	/*
	 * depth-N's fillers with every Bloom word all ones: each of the
	 * user's lookups passes each filler's filter and walks a hash chain
	 * to its end, as the probes a real library's filter lets through do
	 * (12% of cmake's probes pass, 2.2 a lookup; 1.3 a lookup in
	 * depth-12, most of them the one that finds the symbol). Without
	 * them the passes moved with the lookups in every program, and the
	 * fit priced either at 0 by turns: a pass that cost 9.4 ns was once
	 * priced at 0 (docs/model.md, "A probe the filter lets through").
	 */
	for (size_t i = 0; i < (quick ? 1u : 2u); i++) {
		NEW("bloom-%ld", passed[i]);
		add_sweep(p, passed[i], true);
	}
	/* Relative pointers that are const: in the RELRO segment, whose pages
	   ld.so's mprotect flushes one by one (relro_pages). */
	NEW("relro-24");
	add_lib(p, "rr", "-r %d -p %d -R -n rr", 24, 24);
	/*
	 * A large library's lookups read a name and a symbol entry in each of
	 * many pages, as a program's into a real library do: the first read of
	 * each page, which the fault before it mapped, costs (pages_read).
	 */
	NEW("sparse-8");
	add_lib(p, "prov", "-e %d -l 64 -n prov", 16000);
	add_lib(p, "user", "-x %d -X prov -k 8 -l 64 -S -n user", 2000);
	for (size_t i = 0; i < 2; i++) {
		/* -z pack-relative-relocs: the same relative work as DT_RELR. */
		NEW("relr-%ld", relr[i]);
		add_lib(p, "relr", "-r %ld -n relr", relr[i]);
		p->relr = true;
		NEW("cached-%ld", cached[i]);
		add_lib(p, "c", "-c %ld -n c", cached[i]);
		NEW("tls-%ld", tls[i]);
		add_lib(p, "t", "-t %ld -n t", tls[i]);
		NEW("ifunc-%ld", ifunc[i]);
		add_lib(p, "i", "-i %ld -n i", ifunc[i]);
		NEW("objects-%ld", objs[i]);
		add_exporters(p, "o", objs[i], 1);
		/* C++'s mangled names: every lookup hashes its name, and one that
		   finds the symbol in another object compares it in full. */
		NEW("names-%ld", names[i]);
		add_lib(p, "n", "-s %d -l %ld -n n", 3000, names[i]);
		NEW("xnames-%ld", names[i]);
		add_lib(p, "prov", "-e %d -l %ld -n prov", 2000, names[i]);
		add_lib(p, "user", "-x %d -X prov -l %ld -n user", 2000, names[i]);
		/* The same names looked up out of their order, as a real
		   library's are: each one read is a cache miss (cold lines). */
		NEW("scatter-%ld", names[i]);
		add_lib(p, "n", "-s %d -S -l %ld -n n", 3000, names[i]);
		/* A library of N versions and one needing each: the version
		   check walks its definitions from the first for each
		   (version_steps, N * N / 2), as for libstdc++'s 48 versions and
		   libc's 39. */
		NEW("versions-%ld", vers[i]);
		add_lib(p, "vp", "-e %ld -n vp", vers[i]);
		p->libs[p->nlibs - 1].versioned = true;
		add_lib(p, "vu", "-x %ld -X vp -n vu", vers[i]);
	}
#undef NEW
	return n;
}

/* Where tools/gen-reloc-lib is: next to the binary, or installed. */
static char *find_generator(void)
{
	char exe[PATH_MAX], *cand[4];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	const char *env = getenv("LDPROF_GEN_RELOC_LIB");
	char *found = NULL;

	if (env && *env)
		return xstrdup(env);
	if (len <= 0)
		return xstrdup(LDPROF_PKGLIBDIR "/gen-reloc-lib");
	exe[len] = '\0';
	*strrchr(exe, '/') = '\0';
	cand[0] = xasprintf("%s/tools/gen-reloc-lib", exe);	    /* the build tree */
	cand[1] = xasprintf("%s/../tools/gen-reloc-lib", exe);	    /* build-asan/ldprof */
	cand[2] = xasprintf("%s/../lib/ldprof/gen-reloc-lib", exe); /* an install */
	cand[3] = xstrdup(LDPROF_PKGLIBDIR "/gen-reloc-lib");
	for (int i = 0; i < 4; i++) {
		if (!found && !access(cand[i], X_OK))
			found = cand[i];
		else
			free(cand[i]);
	}
	return found;
}

/*
 * A dynamic executable that needs no library: its _start exits by system
 * call. ld.so loads and relocates only it and itself, so its relocate
 * phase is the per-process cost without libc's.
 */
static int build_nolibc(const char *dir, const char *name, struct errbuf *err)
{
	char *src = xasprintf("%s/%s.c", dir, name), *cmd = NULL;
	FILE *f = fopen(src, "w");
	int r;

	if (!f) {
		r = set_err(err, errno, "%s: %s", src, strerror(errno));
		goto out;
	}
	fputs("void _start(void)\n{\n\t__asm__ volatile(\"mov $231, %eax\\n\\t"
	      "xor %edi, %edi\\n\\tsyscall\");\n\t__builtin_unreachable();\n}\n",
	      f);
	if (fclose(f)) {
		r = set_err(err, errno, "%s: %s", src, strerror(errno));
		goto out;
	}
	char *qd = sh_quote(dir);
	cmd = xasprintf("cd %s && %s -O1 -w -fPIE -pie -nostdlib -o %s %s.c", qd, calib_cc(), name,
			name);
	free(qd);
	r = calib_sh(cmd, err);
out:
	free(cmd);
	free(src);
	return r;
}

static int build_prog(const char *dir, const char *gen, const struct prog_spec *p,
		      struct errbuf *err)
{
	char *libs, *cmd, *qd, *qgen;
	int r = 0;

	if (p->nolibc)
		return build_nolibc(dir, p->name, err);
	qd = sh_quote(dir);
	qgen = sh_quote(gen);
	libs = xstrdup("");
	for (int i = 0; i < p->nlibs && !r; i++) {
		const struct lib_spec *l = &p->libs[i];
		char *map = l->versioned ? xasprintf("%s-%s.map", p->name, l->name) : NULL;
		cmd = xasprintf("cd %s && %s %s%s%s > %s-%s.c && %s -O1 -w -fPIC -shared %s "
				"%s%s -Wl,-soname,lib%s-%s.so -o lib%s-%s.so %s-%s.c -L. %s",
				qd, qgen, l->args, map ? " -V " : "", map ? map : "", p->name,
				l->name, calib_cc(), p->relr ? "-Wl,-z,pack-relative-relocs" : "",
				map ? "-Wl,--version-script=" : "", map ? map : "", p->name,
				l->name, p->name, l->name, p->name, l->name, libs);
		free(map);
		r = calib_sh(cmd, err);
		free(cmd);
		if (!r && l->bloom_full) {
			char *so = xasprintf("%s/lib%s-%s.so", dir, p->name, l->name);
			r = elf_fill_bloom(so, err);
			free(so);
		}
		char *more = xasprintf("%s -l%s-%s", libs, p->name, l->name);
		free(libs);
		libs = more;
	}
	if (!r) {
		cmd = xasprintf("cd %s && printf 'int main(void){return 0;}\\n' > %s.c && %s -O1 "
				"-o %s %s.c -L. -Wl,--no-as-needed %s -Wl,-rpath,'$ORIGIN'",
				qd, p->name, calib_cc(), p->name, p->name, libs);
		r = calib_sh(cmd, err);
		free(cmd);
	}
	free(libs);
	free(qd);
	free(qgen);
	return r;
}

static int build_all(const char *dir, const struct prog_spec *ps, size_t n, bool quick, FILE *log,
		     struct errbuf *err)
{
	char *gen = find_generator();
	int r = 0;

	if (!gen)
		return set_err(err, ENOENT, "cannot find gen-reloc-lib (set LDPROF_GEN_RELOC_LIB)");
	for (size_t i = 0; i < n && !r; i++) {
		if (log && isatty(fileno(log)))
			fprintf(log, "\rbuilding %zu/%zu: %-20s", i + 1, n, ps[i].name);
		r = build_prog(dir, gen, &ps[i], err);
	}
	if (!r)
		r = minimal_pair_build(dir, err);
	if (!r)
		r = minimal_pair_build_plain(dir, err);
	if (!r)
		r = unwind_build(dir, quick, err);
	if (!r)
		r = fork_build(dir, err);
	if (!r)
		r = nss_build(dir, err);
	/*
	 * Every program and library in the state of one read from disk
	 * (base/pagecache.h), as the installed libraries a real program loads
	 * are: as GNU ld left them, librel-like libraries sat 96% in 64 KiB
	 * folios, and their relocate phase ran 5 to 8% faster for it (29 us of
	 * 396 for 30000 relative relocations), their exit 10 to 28 us faster;
	 * and a fresh copy of min-static ran 57 to 80 us faster, a third of
	 * the fixed cost.
	 */
	if (!r)
		r = page_cache_settle_dir(dir, err);
	if (log && isatty(fileno(log)))
		fputc('\n', log);
	free(gen);
	return r;
}

/*
 * The runs: all the programs interleaved round by round, in CALIB_PASSES
 * blocks, each program's figure the median of its blocks' medians (a
 * drift of the machine between blocks moves no program alone). Interleaved,
 * each program's tables are evicted from the caches by the others' runs
 * before its next one, as a real program evicts them by its own run (its
 * init, main and exit). Run one at a time, the synthetic programs, which
 * do nothing after relocation, found their names cached: a name read out
 * of order (scatter-N) cost 17 ns, not 105, and the model then
 * underestimated real programs by 30 to 50% (docs/model.md).
 */
#define CALIB_PASSES 3

/*
 * The exit phase ends when the launcher reaps the program, so a busy
 * machine adds the launcher's wait to be scheduled: noise of one sign,
 * which a median keeps (medians of 1 to 3 ms against 0.1 ms at rest). Its
 * lowest tenth over the runs is the exit path's own cost.
 */
static double exit_low_tenth(const struct report *rep)
{
	double *v = xcalloc(rep->nbd + 1, sizeof *v), q = NAN;
	size_t n = 0;

	for (size_t i = 0; i < rep->nbd; i++)
		if (rep->bd[i].valid && !isnan(rep->bd[i].phase_us[PH_EXIT]))
			v[n++] = rep->bd[i].phase_us[PH_EXIT];
	if (n) {
		qsort(v, n, sizeof *v, cmp_double);
		q = v[n / 10];
	}
	free(v);
	return q;
}

/*
 * One program's relocate phase in one block, run by run, with the shared
 * cache's state each ran in (base/cacheprobe.h).
 */
struct block_runs {
	double *reloc;
	bool *contended;
	double *line, *hot;
	size_t n;
	size_t sched_runs, sched_preempted; /* the scheduler's preemptions (sched-state.h) */
};

/* One block of runs of programs cmds[0..n), interleaved round by round. */
static int measure_pass(const struct calib_opts *o, size_t n, const struct profile_cmd *cmds,
			struct block_runs *runs, double *load, double *exit_us, size_t stride)
{
	struct profile_opts po = o->prof;
	struct trace *t = xcalloc(n, sizeof *t);
	int r;

	po.plan.runs = po.plan.runs / CALIB_PASSES > 5 ? po.plan.runs / CALIB_PASSES : 5;
	r = model_profile_programs(&po, n, cmds, t, false);
	for (size_t i = 0; i < n; i++) {
		struct report rep;
		if (!r) {
			struct block_runs *b = &runs[i * stride];
			report_build(&t[i], &rep);
			b->reloc = xcalloc(rep.nbd + 1, sizeof *b->reloc);
			b->contended = xcalloc(rep.nbd + 1, sizeof *b->contended);
			b->line = xcalloc(rep.nbd + 1, sizeof *b->line);
			b->hot = xcalloc(rep.nbd + 1, sizeof *b->hot);
			for (size_t k = 0; k < rep.nbd; k++)
				if (rep.bd[k].valid && !isnan(rep.bd[k].phase_us[PH_RELOCATE])) {
					const struct trace_run *tr = &t[i].run[rep.bd[k].run];
					b->reloc[b->n] = rep.bd[k].phase_us[PH_RELOCATE];
					b->line[b->n] = tr->line_ns;
					b->hot[b->n++] = tr->line_hot_ns;
				}
			b->sched_runs = rep.sched.runs;
			b->sched_preempted = rep.sched.preempted;
			load[i * stride] = rep.phase[PH_LOAD].median;
			exit_us[i * stride] = exit_low_tenth(&rep);
			report_free(&rep);
		}
		trace_free(&t[i]);
	}
	free(t);
	return r;
}

static double median3(double a, double b, double c)
{
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/*
 * The shared cache over every block: the median reading after an idle
 * spell, the fastest hot one (base/cacheprobe.h; the previous
 * calibration's, prev_hot_ns, when faster: a tenant streaming all along
 * slows every hot pass too), each run's state, and the share of runs read
 * contended.
 */
static void cache_over_blocks(struct block_runs *runs, size_t nb, double prev_hot_ns,
			      struct model_coefs *m)
{
	size_t total = 0, k = 0, busy = 0;
	double *idle, fastest = prev_hot_ns > 0 ? prev_hot_ns : INFINITY;
	struct summary s;

	for (size_t i = 0; i < nb; i++) {
		total += runs[i].n;
		for (size_t j = 0; j < runs[i].n; j++)
			if (runs[i].line[j] > 0 && runs[i].hot[j] > 0)
				fastest = fmin(fastest, runs[i].hot[j]);
	}
	idle = xmalloc((total + 1) * sizeof *idle);
	for (size_t i = 0; i < nb; i++)
		for (size_t j = 0; j < runs[i].n; j++) {
			runs[i].contended[j] = cache_reading_contended(runs[i].line[j], fastest);
			if (runs[i].line[j] > 0) {
				busy += runs[i].contended[j];
				idle[k++] = runs[i].line[j];
			}
		}
	summarize(idle, k, &s);
	m->line_ns = k ? s.median : 0;
	m->line_hot_ns = k && !isinf(fastest) ? fastest : 0;
	m->line_contended_pct = k ? 100.0 * (double)busy / (double)k : 0;
	free(idle);
}

/* The share of every block's runs the scheduler preempted for another task. */
static void sched_over_blocks(const struct block_runs *runs, size_t nb, struct model_coefs *m)
{
	size_t n = 0, pre = 0;

	for (size_t i = 0; i < nb; i++)
		n += runs[i].sched_runs, pre += runs[i].sched_preempted;
	m->preempted_pct = n ? 100.0 * (double)pre / (double)n : 0;
}

/*
 * A block's relocate phase: the median of its uncontended runs when it has
 * CALIB_CALM_MIN of them, else of all (calibrate then warns, by
 * line_contended_pct). The model prices the uncontended machine, which
 * reports hold it to (model/cache-state.h). The probe's readings of the
 * runs it takes go to lines[*nlines...] (NULL: nowhere): their median is
 * the state the fit's cold-line price holds for (priced_line_ns).
 */
#define CALIB_CALM_MIN 3

static double block_reloc(const struct block_runs *b, bool *fell_back, double *lines,
			  size_t *nlines)
{
	double *calm = xmalloc((b->n + 1) * sizeof *calm);
	size_t k = 0;
	struct summary s;

	for (size_t j = 0; j < b->n; j++)
		k += !b->contended[j];
	*fell_back = k < CALIB_CALM_MIN;
	k = 0;
	for (size_t j = 0; j < b->n; j++) {
		if (!*fell_back && b->contended[j])
			continue;
		calm[k++] = b->reloc[j];
		if (lines && b->line[j] > 0)
			lines[(*nlines)++] = b->line[j];
	}
	summarize(calm, k, &s);
	free(calm);
	return s.median;
}

/*
 * cmds[0..n) are fitted; after them, res->nchecks --check programs are run
 * in the same rounds, each block's runs judged by the fitted programs'
 * fastest hot reading, and kept out of the calibration's cache figures.
 */
static int measure_runs(const struct calib_opts *o, size_t nfit, const struct profile_cmd *cmds,
			struct calib_result *res)
{
	size_t n = nfit + res->nchecks;
	struct block_runs *runs = xcalloc(n * CALIB_PASSES, sizeof *runs);
	double *load = xcalloc(n * CALIB_PASSES, sizeof *load);
	double *exit_us = xcalloc(n * CALIB_PASSES, sizeof *exit_us);
	double x[CALIB_PASSES];
	size_t fell_back = 0; /* the fitted programs' blocks priced on all their runs */
	bool all_runs;
	double *lines = NULL; /* the readings of the runs the fit's figures are made of */
	size_t nlines = 0;
	int r = 0;

	for (size_t p = 0; !r && p < CALIB_PASSES && !interrupt_requested(); p++)
		r = measure_pass(o, n, cmds, &runs[p], &load[p], &exit_us[p], CALIB_PASSES);
	if (!r) {
		struct model_coefs prev;
		model_load(&prev);
		cache_over_blocks(runs, nfit * CALIB_PASSES, prev.calibrated ? prev.line_hot_ns : 0,
				  &res->coefs);
		sched_over_blocks(runs, nfit * CALIB_PASSES, &res->coefs);
		struct model_coefs scratch = res->coefs;
		if (res->nchecks)
			cache_over_blocks(&runs[nfit * CALIB_PASSES], res->nchecks * CALIB_PASSES,
					  res->coefs.line_hot_ns, &scratch);
	}
	if (!r) {
		size_t total = 0;
		for (size_t i = 0; i < nfit * CALIB_PASSES; i++)
			total += runs[i].n;
		lines = xmalloc((total + 1) * sizeof *lines);
	}
	for (size_t i = 0; !r && i < n; i++) {
		for (size_t p = 0; p < CALIB_PASSES; p++) {
			x[p] = block_reloc(&runs[i * CALIB_PASSES + p], &all_runs,
					   i < nfit ? lines : NULL, &nlines);
			fell_back += i < nfit && all_runs;
		}
		const double *y = &load[i * CALIB_PASSES];
		res->measured_us[i] = median3(x[0], x[1], x[2]);
		res->load_us[i] = median3(y[0], y[1], y[2]);
		const double *z = &exit_us[i * CALIB_PASSES];
		res->exit_us[i] = fmin(z[0], fmin(z[1], z[2])); /* the blocks' lowest */
	}
	if (!r && nfit)
		res->coefs.contended_blocks_pct = 100.0 * (double)fell_back / (double)(nfit * CALIB_PASSES);
	if (!r && nlines) {
		struct summary s;
		summarize(lines, nlines, &s);
		res->coefs.priced_line_ns = s.median;
	}
	free(lines);
	for (size_t i = 0; i < n * CALIB_PASSES; i++) {
		free(runs[i].reloc);
		free(runs[i].contended);
		free(runs[i].line);
		free(runs[i].hot);
	}
	free(runs);
	free(load);
	free(exit_us);
	return r;
}

/* A --check program's counts: those of the ELF that runs (a script's interpreter). */
static int check_features(const struct calib_check *c, double feat[MODEL_NFEAT],
			  struct errbuf *err)
{
	struct target tg;
	int r = target_resolve(c->argv[0], &tg, err);

	if (r)
		return r;
	if (tg.is_static)
		r = set_err(err, EINVAL, "--check %s: a static program, with nothing to relocate",
			    c->line);
	else
		r = model_process_features(tg.elf_path, feat, err);
	target_free(&tg);
	return r;
}

/* Run every program; the median relocate phase of each. */
static int measure(const struct calib_opts *o, const char *dir, const struct prog_spec *ps,
		   size_t n, struct calib_result *res)
{
	size_t all = n + res->nchecks;
	struct profile_cmd *cmds = xcalloc(all, sizeof *cmds);
	char **paths = xcalloc(2 * n, sizeof *paths); /* argv pairs: path, NULL */
	struct errbuf err;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		paths[2 * i] = xasprintf("%s/%s", dir, ps[i].name);
		cmds[i] = (struct profile_cmd){1, &paths[2 * i]};
	}
	for (size_t i = 0; i < res->nchecks; i++)
		cmds[n + i] = (struct profile_cmd){(int)o->checks[i].argc, o->checks[i].argv};
	/* Checked first: a --check the analyzer cannot replay fails before the minutes of runs. */
	for (size_t i = 0; !r && i < res->nchecks; i++)
		if ((r = check_features(&o->checks[i], &res->features[(n + i) * MODEL_NFEAT], &err)))
			error_msg("%s", err.msg);
	if (!r && o->log)
		fprintf(o->log, "running %zu programs interleaved, in %d blocks%s...\n", all,
			CALIB_PASSES,
			o->prof.plan.cold_cache ? ", the CPU caches emptied before each run" : "");
	if (!r)
		r = measure_runs(o, n, cmds, res);
	for (size_t i = 0; !r && i < n; i++)
		if ((r = model_process_features(paths[2 * i], &res->features[i * MODEL_NFEAT],
						&err)))
			error_msg("%s", err.msg);
	for (size_t i = 0; i < n; i++)
		free(paths[2 * i]);
	free(cmds);
	free(paths);
	return r;
}

/*
 * What being dynamic costs the minimal program: a compare of the two
 * builds; with the pair that never allocates in the same rounds, what its
 * first allocation adds (malloc_us).
 */
static int dynamic_fixed(const struct calib_opts *o, const char *dir, struct model_coefs *m)
{
	struct minimal_pair_cost c;
	/*
	 * A small difference between two fast programs, and every static-link
	 * estimate adds it whole: at least 1000 runs of each (12 to 19 s here).
	 * With 100, its CI was 60 us wide and its median moved by 30 us between
	 * calibrations on one machine. --quick (the tests) takes 250: a
	 * calibrated run measures the fixed cost again anyway (minimal-pair.h).
	 */
	unsigned fewest = o->quick ? 250 : 1000;
	unsigned runs = o->prof.plan.runs * 5 > fewest ? o->prof.plan.runs * 5 : fewest;
	int r = minimal_pairs_measure(&o->prof, dir, runs, &c, &m->malloc_us);

	if (!r) {
		m->dynamic_fixed_us = c.us;
		m->static_min_us = c.static_us;
		m->dynamic_fixed_lo = c.lo;
		m->dynamic_fixed_hi = c.hi;
	}
	return r;
}

/* The fork programs (calibrate-fork.h), after the fixed cost. */
static int measure_forks(const struct calib_opts *o, struct calib_result *res)
{
	struct fork_price p;
	struct errbuf err;
	int r = fork_measure(res->workdir, o->quick, &p, &err);

	if (r)
		error_msg("the fork programs: %s", err.msg);
	else
		fork_price_store(&p, &res->coefs);
	return r;
}

/*
 * A warm line (calibrate-warm.h), right after the interleaved rounds; the
 * fit prices it, and no price at all leaves every line cold (a warning).
 */
static int measure_warm(const struct calib_opts *o, struct calib_result *res)
{
	struct errbuf err;

	if (warm_measure(o, res, &res->warm_us, &err)) {
		res->warm_us = 0;
		warn_msg("the price of a warm line: %s: every line is priced cold", err.msg);
		return 0;
	}
	res->coefs.warm_priced = true;
	if (o->log) {
		fprintf(o->log, "a line the run before left cached: %.1f ns (%s)\n",
			res->warm_us * 1000, "scatter-160 against names-160, each run after base");
	}
	return 0;
}

/* The NSS pair (calibrate-nss.h), after the forks. */
static int measure_nss(const struct calib_opts *o, struct calib_result *res)
{
	struct errbuf err;
	int r = nss_measure(&o->prof, res->workdir, o->quick, &res->coefs.nss_us, &err);

	/*
	 * Busy: the built-in price, as uncalibrated, and not stored as the
	 * calibration's; the rest of the calibration stands.
	 */
	if (r == -EAGAIN) {
		struct model_coefs d;
		model_defaults(&d);
		res->coefs.nss_us = d.nss_us;
		res->coefs.nss_builtin = true;
		warn_msg("the NSS pair: %s: the built-in price (%.1f us) stands in, not stored",
			 err.msg, d.nss_us);
		return 0;
	}
	if (r)
		error_msg("the NSS pair: %s", err.msg);
	return r;
}

/* One pass of the unwind pair (calibrate-unwind.h) into up. */
static int measure_unwind(const struct calib_opts *o, struct calib_result *res,
			  struct unwind_prices *up)
{
	char *prog = xasprintf("%s/unwind-static", res->workdir);
	struct errbuf err;
	/* A millisecond or two apart: 100 runs resolve a pass to a few percent. */
	unsigned runs = o->prof.plan.runs * 5 / UNWIND_PASSES;
	int r = unwind_measure(&o->prof, runs > 100 ? runs : 100, prog, up, &err);

	if (r)
		error_msg("%s", err.msg);
	free(prog);
	return r;
}

/* What one more library costs to find and map: the load phase of the
 * objects-K programs against base's, per library. */
static void load_cost(struct calib_result *res)
{
	double base = NAN, sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->names[i], "base"))
			base = res->load_us[i];
	for (size_t i = 0; i < res->n; i++) {
		long objs;
		if (sscanf(res->names[i], "objects-%ld", &objs) == 1 && objs > 0 && !isnan(base)) {
			sum += (res->load_us[i] - base) / (double)objs;
			k++;
		}
	}
	res->coefs.load_per_object_us = k ? fmax(0, sum / (double)k) : 0;
}

/*
 * The fit, by NNLS, but for the read faults: they are priced at the fault
 * cost calibrate_machine measured (a fault-around fault on a file in
 * single pages, what each of them is), and taken off each program's
 * measured phase first. The synthetic libraries' tables grow with their
 * names, so a fit could not tell the faults from the bytes hashed.
 */
static void fit(struct calib_result *res)
{
	size_t n = res->n, cols = MODEL_NFEAT + 1;
	double *A = xcalloc(n * cols, sizeof *A), *B = xcalloc(n * cols, sizeof *B);
	double *rest = xcalloc(n, sizeof *rest), x[MODEL_NFEAT + 1];
	struct model_coefs *m = &res->coefs;
	double fault = m->fault_us > 0 ? m->fault_us : 0;

	for (size_t i = 0; i < n; i++) {
		memcpy(&A[i * cols], &res->features[i * MODEL_NFEAT], MODEL_NFEAT * sizeof *A);
		A[i * cols + MODEL_NFEAT] = 1; /* the per-process intercept */
		memcpy(&B[i * cols], &A[i * cols], cols * sizeof *B);
		B[i * cols + MF_READ_FAULTS] = 0;
		rest[i] = res->measured_us[i] - fault * A[i * cols + MF_READ_FAULTS];
	}
	nnls(B, rest, n, cols, x);
	x[MF_READ_FAULTS] = fault;
	/* Timed apart (calibrate-warm.h: no fitted program has any), never dearer than a cold one.
	 */
	x[MF_WARM_LINES] = fmin(res->warm_us, x[MF_COLD_LINES]);
	memcpy(m->coef_us, x, sizeof m->coef_us);
	m->intercept_us = x[MODEL_NFEAT];
	m->r2 = nnls_r2(A, res->measured_us, n, cols, x, NULL);
	m->programs = n;
	for (size_t i = 0; i < n + res->nchecks; i++)
		res->model_us[i] =
			m->intercept_us + model_object_us(m, &res->features[i * MODEL_NFEAT]);
	free(A);
	free(B);
	free(rest);
	load_cost(res);
}

static void describe_machine(struct model_coefs *m)
{
	char *cpu = cpu_model();
	time_t now = time(NULL);

	snprintf(m->machine, sizeof m->machine, "%s, %ld CPUs", cpu ? cpu : "unknown CPU",
		 sysconf(_SC_NPROCESSORS_ONLN));
	free(cpu);
	strftime(m->created, sizeof m->created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
}

int calibrate(const struct calib_opts *o, struct calib_result *res, struct errbuf *err)
{
	static struct prog_spec ps[40]; /* 280 KiB: off the stack; calibrate runs once a process */
	struct model_coefs d;
	struct unwind_prices up = {0};
	char tmpl[] = "/tmp/ldprof-calibrate.XXXXXX";
	const char *tmpdir = getenv("TMPDIR");
	int r;

	memset(res, 0, sizeof *res);
	res->keep = o->keep;
	res->workdir =
		tmpdir && *tmpdir ? xasprintf("%s/ldprof-calibrate.XXXXXX", tmpdir) : xstrdup(tmpl);
	if (!mkdtemp(res->workdir))
		return set_err(err, errno, "%s: %s", res->workdir, strerror(errno));
	if (!res->keep)
		doomed_dir_set(res->workdir); /* `kill ldprof` leaves no build behind */
	res->n = plan(o->quick, ps);
	res->nchecks = o->nchecks;
	size_t all = res->n + res->nchecks;
	res->names = xcalloc(all, sizeof *res->names);
	res->measured_us = xcalloc(all, sizeof(double));
	res->load_us = xcalloc(all, sizeof(double));
	res->exit_us = xcalloc(all, sizeof(double));
	res->model_us = xcalloc(all, sizeof(double));
	res->features = xcalloc(all * MODEL_NFEAT, sizeof(double));
	for (size_t i = 0; i < res->n; i++)
		res->names[i] = xstrdup(ps[i].name);
	for (size_t i = 0; i < res->nchecks; i++)
		res->names[res->n + i] = xstrdup(o->checks[i].line);
	/*
	 * One Ctrl-C scope from the builds to the last measurement: the second
	 * one ends ldprof. The builds are in it so that a SIGINT sent to
	 * ldprof alone (kill -INT, timeout -s INT) stops them too (calib_sh).
	 */
	interrupt_begin();
	if ((r = build_all(res->workdir, ps, res->n, o->quick, o->log, err))) {
		interrupt_end();
		return r;
	}
	model_defaults(&d);
	res->coefs.fde_sort_us = d.fde_sort_us; /* kept if the unwind pair resolves nothing */
	res->coefs.fde_floor = d.fde_floor;
	/* The unwind pair's passes before, between and after the rest. */
	r = measure_unwind(o, res, &up) || measure(o, res->workdir, ps, res->n, res) ||
	    (!o->prof.plan.cold_cache && measure_warm(o, res)) || measure_unwind(o, res, &up) ||
	    dynamic_fixed(o, res->workdir, &res->coefs) || measure_forks(o, res) ||
	    measure_nss(o, res) || measure_unwind(o, res, &up);
	unwind_prices_apply(&up, o->quick ? UNWIND_FUNCS_QUICK : UNWIND_FUNCS, &res->coefs);
	if (interrupt_requested())
		r = set_err(err, EINTR, "interrupted: no calibration written");
	else if (r)
		r = set_err(err, EIO, "calibration runs failed");
	interrupt_end();
	if (r)
		return r;
	/* The machine first: the fit prices the read faults at its fault cost. */
	if ((r = calibrate_machine(res, err)))
		return r;
	fit(res);
	res->coefs.valid = res->coefs.calibrated = true;
	describe_machine(&res->coefs);
	res->coefs.cold_cache = o->prof.plan.cold_cache;
	return 0;
}

void calib_result_free(struct calib_result *res)
{
	if (res->workdir && !res->keep) {
		doomed_dir_set(NULL);
		char *qd = sh_quote(res->workdir);
		char *cmd = xasprintf("rm -rf -- %s", qd);
		free(qd);
		if (system(cmd)) {
			/* A leftover temporary directory is not worth failing for. */
		}
		free(cmd);
	}
	for (size_t i = 0; i < res->n + res->nchecks && res->names; i++)
		free(res->names[i]);
	free(res->names);
	free(res->measured_us);
	free(res->load_us);
	free(res->exit_us);
	for (size_t i = 0; i < res->nwarnings; i++)
		free(res->warnings[i]);
	free(res->warnings);
	free(res->model_us);
	free(res->features);
	free(res->workdir);
	memset(res, 0, sizeof *res);
}
