#include "model/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/stats.h"
#include "model/cache-state.h"
#include "model/deps-report.h"
#include "model/line-decay.h"
#include "model/static-side.h"
#include "ldso/resolve.h"
#include "ldso/symbind.h"

double model_object_us(const struct model_coefs *m, const double feat[MODEL_NFEAT])
{
	double us = 0;

	for (int k = 0; k < MODEL_NFEAT; k++)
		us += m->coef_us[k] * feat[k];
	return us;
}

void model_object_savings(const struct model_coefs *m, const double feat[MODEL_NFEAT],
			  const struct advice_facts *af, bool is_executable,
			  struct model_savings *s)
{
	static const int lookup_work[] = {MF_LOOKUPS,	MF_PROBES,     MF_BLOOM,
					  MF_CHAIN,	MF_STRCMPS,    MF_HASH_BYTES,
					  MF_CMP_BYTES, MF_COLD_LINES, MF_WARM_LINES};
	const double *c = m->coef_us;
	double per_lookup = 0;

	if (feat[MF_LOOKUPS] > 0) {
		/* The version check's lines are priced as the object's others:
		   all warm or all cold (model_warm_lines). */
		double line = feat[MF_WARM_LINES] > 0 ? c[MF_WARM_LINES] : c[MF_COLD_LINES];
		for (size_t k = 0; k < ARRAY_SIZE(lookup_work); k++)
			per_lookup += c[lookup_work[k]] * feat[lookup_work[k]];
		per_lookup -= line * af->version_lines + c[MF_CMP_BYTES] * af->version_bytes;
		per_lookup = fmax(0, per_lookup) / feat[MF_LOOKUPS];
	}
	s->lazy = af->now_plt * per_lookup;
	s->relr = feat[MF_RELATIVE] * fmax(0, c[MF_RELATIVE] - c[MF_RELR]);
	s->gnu_hash = af->sysv_only ? af->sysv_passes * af->avg_chain * c[MF_CHAIN] : 0;
	/* The executable's own references are not looked up by name. */
	s->self_bind = is_executable ? 0 : af->self_binds * per_lookup;
}

/*
 * The kernel flushes an mprotect's pages from the TLB one by one up to its
 * ceiling (tlb_single_page_flush_ceiling), each a few us on these
 * machines, and the whole TLB at once past it. The first page is in every
 * object's fixed cost (objects): the pages past it.
 */
#define TLB_FLUSH_CEILING 33

static double relro_flushed(uint64_t pages)
{
	if (pages > TLB_FLUSH_CEILING)
		pages = TLB_FLUSH_CEILING;
	return pages > 1 ? (double)(pages - 1) : 0;
}

/* One loaded object's counts, as the analyzer replayed ld.so. */
static void object_features(const struct dso *d, const struct obj_binding *b, double *f)
{
	const struct elfobj *e = d->elf;

	memset(f, 0, MODEL_NFEAT * sizeof *f);
	if (!e || !b->relocated)
		return;
	f[MF_RELATIVE] = (double)e->relocs.relative;
	f[MF_RELR] = (double)e->relocs.relr;
	f[MF_LOOKUPS] = (double)b->work.lookups;
	f[MF_PROBES] = (double)b->work.probes;
	f[MF_DEEP_PROBES] = (double)b->work.deep_probes;
	f[MF_BLOOM] = (double)b->work.bloom_rejects;
	f[MF_CHAIN] = (double)b->work.chain;
	f[MF_STRCMPS] = (double)b->work.strcmps;
	f[MF_HASH_BYTES] = (double)b->work.hash_bytes;
	f[MF_CMP_BYTES] = (double)b->work.cmp_bytes;
	f[MF_COLD_LINES] = (double)b->work.cold_lines;
	f[MF_READ_FAULTS] = (double)b->work.read_fault_16ths / 16;
	f[MF_PAGES_READ] = (double)b->work.pages_read;
	f[MF_RELRO_PAGES] = relro_flushed(e->relro_pages);
	f[MF_CACHED] = (double)b->work.cached;
	f[MF_VERSION_STEPS] = (double)b->work.ver_entries;
	f[MF_TLS] = (double)e->relocs.tls;
	f[MF_IFUNC] = (double)b->ifunc_calls;
	/* The copy-on-write faults: ld.so's own pages were written when it
	   relocated itself first, before any audit module ran. */
	f[MF_PAGES] = d->is_rtld ? 0 : (double)e->reloc_pages_faulted;
	f[MF_OBJECTS] = 1;
	/* In every process libc costs twice what its counts price (uprobes on
	   _dl_relocate_object, docs/model.md), plus its TLS setup and early
	   init in the same phase; calibration prices it against no libc. */
	f[MF_LIBC] = elf_soname_is_libc(e->soname);
}

/* The loader's environment as the profiled runs had it. */
static int env_for_runs(struct ldenv *env, struct errbuf *err)
{
	const char *preload = getenv("LD_PRELOAD");
	struct ldenv_options opt = {.library_path = getenv("LD_LIBRARY_PATH"),
				    .preload = preload && *preload ? &preload : NULL,
				    .npreload = preload && *preload ? 1 : 0};

	return ldenv_init(env, &opt, err);
}

struct replay {
	struct ldenv env;
	struct deps_report r;
};

static int replay(const char *path, struct replay *rp, struct errbuf *err)
{
	const char *now = getenv("LD_BIND_NOW");
	struct deps_options opt = {.unused = true, .bind_now = now && *now, .cold_lines = true};
	int ret;

	memset(rp, 0, sizeof *rp);
	if ((ret = env_for_runs(&rp->env, err)))
		return ret;
	if ((ret = deps_report_build(&rp->env, path, &opt, &rp->r, err))) {
		ldenv_free(&rp->env);
		return ret;
	}
	return 0;
}

static void replay_free(struct replay *rp)
{
	deps_report_free(&rp->r);
	ldenv_free(&rp->env);
}

int model_process_features(const char *path, double feat[MODEL_NFEAT], struct errbuf *err)
{
	struct replay rp;
	double f[MODEL_NFEAT];
	int ret = replay(path, &rp, err);

	memset(feat, 0, MODEL_NFEAT * sizeof *feat);
	if (ret)
		return ret;
	for (size_t i = 0; i < rp.r.p.nobj && i < rp.r.bs.nobj; i++) {
		object_features(rp.r.p.obj[i], &rp.r.bs.obj[i], f);
		for (int k = 0; k < MODEL_NFEAT; k++)
			feat[k] += f[k];
	}
	replay_free(&rp);
	return 0;
}

static int dso_for(const struct process *p, const struct trace_object *o)
{
	if (o->role == ROLE_EXECUTABLE)
		return p->main;
	for (size_t i = 0; i < p->nobj; i++)
		if (p->obj[i]->path && !strcmp(p->obj[i]->path, o->path))
			return (int)i;
	return -1;
}

static bool symbolic(uint32_t type)
{
	return type == R_X86_64_GLOB_DAT || type == R_X86_64_JUMP_SLOT || type == R_X86_64_64;
}

/* The recommendations' inputs for every object, from the bindings. */
static void advice_facts(const struct deps_report *r, struct advice_facts *af)
{
	const struct process *p = &r->p;

	for (size_t i = 0; i < p->nobj; i++) {
		const struct elfobj *e = p->obj[i]->elf;
		af[i].sysv_only = e && e->hash.style == HASH_SYSV;
		af[i].avg_chain = e ? e->hash.avg_chain : 0;
		af[i].version_lines = (double)r->bs.obj[i].versions.cold_lines;
		af[i].version_bytes = (double)r->bs.obj[i].versions.cmp_bytes;
	}
	for (size_t k = 0; k < r->nunused; k++)
		if (r->unused[k].unused_by_all && r->unused[k].obj == p->main &&
		    r->unused[k].dep >= 0)
			af[r->unused[k].dep].unused = true;
	for (size_t k = 0; k < r->bs.n; k++) {
		const struct binding *b = &r->bs.b[k];
		if (!symbolic(b->type) || (b->flags & (BIND_DEFERRED | BIND_CACHED | BIND_VDSO)))
			continue;
		if (b->from == b->to)
			af[b->from].self_binds++;
		if (b->type == R_X86_64_JUMP_SLOT)
			af[b->from].now_plt++;
		/* Objects earlier in the global scope than the definition were probed in vain. */
		int stop = b->to >= 0 ? p->obj[b->to]->scope_pos : (int)p->nscope;
		for (int s = 0; s < stop && s < (int)p->nscope; s++)
			af[p->scope[s]].sysv_passes += af[p->scope[s]].sysv_only;
	}
}

void model_replay_facts(const struct deps_report *r, double *feat, struct advice_facts *af)
{
	advice_facts(r, af);
	for (size_t i = 0; i < r->p.nobj; i++) {
		if (i < r->bs.nobj)
			object_features(r->p.obj[i], &r->bs.obj[i], &feat[i * MODEL_NFEAT]);
		else
			memset(&feat[i * MODEL_NFEAT], 0, MODEL_NFEAT * sizeof *feat);
	}
}

int model_features(struct trace *t, struct errbuf *err)
{
	struct replay rp;
	struct advice_facts *af;
	double *feat;
	int ret, unwinder;

	if (t->is_static)
		return 0;
	if ((ret = replay(t->elf_path, &rp, err)))
		return ret;
	af = xcalloc(rp.r.p.nobj + 1, sizeof *af);
	feat = xcalloc((rp.r.p.nobj + 1) * MODEL_NFEAT, sizeof *feat);
	model_replay_facts(&rp.r, feat, af);
	static_side_facts(&rp.r, &t->static_side, &unwinder);
	for (size_t i = 0; i < t->nobj; i++) {
		struct trace_object *o = &t->obj[i];
		int d = dso_for(&rp.r.p, o);
		if (d < 0 || (size_t)d >= rp.r.bs.nobj)
			continue;
		if (d == unwinder) {
			t->static_side.have_unwinder = true;
			t->static_side.unwinder = (uint32_t)i;
		}
		memcpy(o->feat, &feat[(size_t)d * MODEL_NFEAT], sizeof o->feat);
		o->advice = af[d];
		o->have_feat = true;
	}
	free(feat);
	free(af);
	replay_free(&rp);
	return 0;
}

/*
 * The bytes a process's relocation moves through the caches: the pages it
 * copies on write, the relocation entries it reads (24 bytes each) and the
 * lines its lookups read first.
 */
double model_reloc_footprint(const struct trace *t)
{
	double bytes = 0;

	for (size_t i = 0; i < t->nobj; i++) {
		const double *f = t->obj[i].feat;
		if (!t->obj[i].have_feat)
			continue;
		bytes += f[MF_PAGES] * 4096 + (f[MF_RELATIVE] + f[MF_LOOKUPS] + f[MF_CACHED]) * 24 +
			 (f[MF_COLD_LINES] + f[MF_WARM_LINES]) * 64;
	}
	return bytes;
}

double model_warm_share(const struct trace *t)
{
	double warm = 0, cold = 0;

	for (size_t i = 0; i < t->nobj; i++)
		if (t->obj[i].have_feat) {
			warm += t->obj[i].feat[MF_WARM_LINES];
			cold += t->obj[i].feat[MF_COLD_LINES];
		}
	return warm + cold > 0 ? warm / (warm + cold) : 0;
}

/*
 * What the rest of a run moves through the L2 between two relocations: a
 * page a minor fault of its constructors and main (the distinct lines
 * callgrind counts there come to 2.9 to 4.6 KiB a fault in uconv, ninja,
 * cppcheck, apt-cache and ssh; docs/model.md, "Faults, not CPU time"),
 * else, in a trace without the start's CPU record, a byte per microsecond
 * of its CPU time outside its start (the same lines over that time, 0.37
 * to 0.53 KiB a us: "The run's own traffic"), which prices a main that
 * computes without moving memory as if it streamed. And what the launcher
 * and the next exec move before it relocates: a guess, to which the
 * bench's programs are insensitive from 0 to 200 KiB.
 */
#define OWN_TRAFFIC_BYTES_PER_FAULT 4096.0
#define OWN_TRAFFIC_BYTES_PER_US    460.0
#define BETWEEN_RUNS_BYTES	    (100.0 * 1024)

/* A run's page faults between its two CPU records; NAN without both. */
static double run_own_faults(const struct trace *t, const struct trace_run *r, const void *arg)
{
	size_t s = trace_run_start_cpu_index(r), k = trace_run_cpu_index(r);

	(void)t, (void)arg;
	if (s == r->nev || k == r->nev || k < s || r->ev[k].b < r->ev[s].b)
		return NAN;
	return (double)(r->ev[k].b - r->ev[s].b);
}

double model_own_faults(const struct trace *t)
{
	return trace_profiled_median(t, run_own_faults, NULL);
}

/* A run's CPU time outside its start, in us; NAN without its CPU record. */
static double run_own_work_us(const struct trace *t, const struct trace_run *r, const void *arg)
{
	size_t c = trace_run_consistent_index(r), k = trace_run_cpu_index(r);

	(void)arg;
	if (c == r->nev || k == r->nev || !r->reap_ts || r->ev[c].ts < r->exec_ts ||
	    r->ev[k].ts > r->reap_ts)
		return NAN;
	return (double)r->ev[k].a - trace_ticks_to_us(t, r->ev[c].ts - r->exec_ts) +
	       trace_ticks_to_us(t, r->reap_ts - r->ev[k].ts);
}

double model_own_work_us(const struct trace *t)
{
	double us = trace_profiled_median(t, run_own_work_us, NULL);

	return isnan(us) ? NAN : fmax(0, us);
}

/*
 * Runs back to back of a program whose relocation fits in the L2 find the
 * lines the run before read still cached (ninja --version: 37 ns a line
 * against the 137 of the calibration, whose programs run interleaved and
 * evict each other's; 16 MiB read between two of its runs, and it pays
 * 174 ns more a line, 256 to 768 KiB and under 14: docs/model.md, "Lines
 * the run before left"). What the rest of the run moves evicts them too:
 * the share of its footprint that the L2 has room for after that traffic
 * is priced warm, the rest cold (apt-cache --version: 702 KiB of lines, its
 * init, main and exit 1.3 ms of CPU, about half kept). between: the bytes
 * the other programs of the rounds move (0 for a program run alone); l2:
 * the L2's size, 0 unknown.
 */
void model_warm_lines(struct trace *t, double between, size_t l2)
{
	double footprint = model_reloc_footprint(t), own = model_own_work_us(t), room, share;
	double faults = model_own_faults(t);

	if (t->cold_cache || !t->model.warm_priced || !l2 || footprint <= 0)
		return;
	room = (double)l2 - between;
	if (!isnan(faults))
		room -= BETWEEN_RUNS_BYTES + OWN_TRAFFIC_BYTES_PER_FAULT * faults;
	else if (!isnan(own))
		room -= BETWEEN_RUNS_BYTES + OWN_TRAFFIC_BYTES_PER_US * own;
	else if (footprint > room)
		return; /* a trace without CPU records: all or nothing, as before */
	share = fmin(1, fmax(0, room / footprint));
	/* What a tenant left of them in the time between two execs (model/line-decay.h). */
	double surviving = line_decay_surviving(t, line_decay_interval_us(t));
	if (!isnan(surviving))
		share = fmin(share, surviving);
	for (size_t i = 0; i < t->nobj; i++) {
		double *f = t->obj[i].feat;
		f[MF_WARM_LINES] += share * f[MF_COLD_LINES];
		f[MF_COLD_LINES] *= 1 - share;
	}
}

/*
 * The probe's chase and a lookup's first read of a line are the same kind
 * of access: a dependent load of a line last read milliseconds before. A
 * tenant streaming through the shared cache sends both to memory, and the
 * calibration's cold line moved with the chase one for one (56 ns a line
 * fitted with the chase at 13 ns, 139 ns with it at 91, a minute apart;
 * docs/model.md, "A cold line in the runs' state").
 */
void model_line_state(struct trace *t)
{
	struct model_coefs *m = &t->model;
	double line, *c = m->coef_us;

	if (t->cold_cache || m->cold_cache || !(m->priced_line_ns > 0))
		return;
	line = cache_state_runs_line_ns(t, m->line_hot_ns, model_priced_contended(m));
	if (!(line > 0))
		return;
	t->cold_line_shifted = true;
	t->cold_line_cal_us = c[MF_COLD_LINES];
	c[MF_COLD_LINES] = fmax(m->warm_priced ? c[MF_WARM_LINES] : 0,
				c[MF_COLD_LINES] + (line - m->priced_line_ns) / 1000);
}
