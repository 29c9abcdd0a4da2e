/* The trace file's section payloads; tags are documented in docs/trace-format.md. */
#include "trace/tracefile-sections.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trace/tracefile.h"

enum meta_tag {
	META_LDPROF_VERSION = 1,
	META_RECORDED_AT = 2,
	META_ARG = 3,
	META_PROGRAM = 4,
	META_ELF_PATH = 5,
	META_ELF_KIND = 6,
	META_STATIC = 7,
	META_TSC_HZ = 8,
	META_INTERRUPTED = 9,
	META_RUNS = 10,
	META_CWD = 11,
	META_FOLLOW = 12,
	META_COLD_CACHE = 13,
};

enum machine_tag {
	MACH_HOSTNAME = 1,
	MACH_KERNEL = 2,
	MACH_KERNEL_VERSION = 3,
	MACH_ARCH = 4,
	MACH_GLIBC = 5,
	MACH_CPU_MODEL = 6,
	MACH_NCPUS = 7,
};

enum { ENV_VAR = 1, OBJECTS_OBJECT = 1, RUNS_FIRST = 1, RUNS_RUN = 2 };

enum object_tag {
	OBJ_PATH = 1,
	OBJ_ROLE = 2,
	OBJ_DLOPENED = 3,
	OBJ_UNTIMED = 4,
	OBJ_SONAME = 5,
	OBJ_RELOCS = 6, /* present iff the ELF facts were read */
	OBJ_INIT_FUNCS = 7,
	OBJ_FINI_FUNCS = 8,
	OBJ_BIND_NOW = 9,
	OBJ_FACTS_ERROR = 10,
	OBJ_BUILD_ID = 11,
	OBJ_FILE_SIZE = 12, /* present iff the file could be stat'ed */
	OBJ_MTIME_NS = 13,
	OBJ_FEATURES = 14, /* the cost model's counts: tag i + 1 holds feat[i] */
	OBJ_ADVICE = 15,   /* the facts behind the recommendations */
	OBJ_CRT_FAULTS = 16,
	OBJ_MAPPED_PAGES = 17, /* present iff counted (trace.h) */
};

enum advice_tag {
	ADV_UNUSED = 1,
	ADV_SYSV_ONLY = 2,
	ADV_SELF_BINDS = 3,
	ADV_NOW_PLT = 4,
	ADV_SYSV_PASSES = 5,
	ADV_AVG_CHAIN = 6,
	ADV_VERSION_LINES = 7,
	ADV_VERSION_BYTES = 8,
};

enum model_tag {
	MODEL_TAG_VERSION = 1, /* MODEL_VERSION: the meaning of the features' indices */
	MODEL_TAG_VALID = 2,
	MODEL_TAG_CALIBRATED = 3,
	MODEL_TAG_INTERCEPT_US = 4,
	MODEL_TAG_COEF_US = 5, /* nested: tag i + 1 holds coef_us[i] */
	MODEL_TAG_R2 = 6,
	MODEL_TAG_PROGRAMS = 7,
	MODEL_TAG_DYNAMIC_FIXED_US = 8, /* three f64 fields: value, low, high */
	MODEL_TAG_SOURCE = 9,
	MODEL_TAG_MACHINE = 10,
	MODEL_TAG_CREATED = 11,
	MODEL_TAG_LINE_HOT_NS = 12,	   /* the calibration's fastest hot cache-probe reading */
	MODEL_TAG_LINE_CONTENDED_PCT = 13, /* ...and the share of its runs read contended */
	MODEL_TAG_COLD_CACHE = 14,	   /* calibrate --cold-cache */
	MODEL_TAG_FIXED_RUNS =
		15, /* tag 8 measured after the runs in so many rounds (--fixed-runs) */
	MODEL_TAG_FIXED_CAL_US = 16,	  /* ...in place of the calibration's figure, this */
	MODEL_TAG_FIXED_INTERLEAVED = 17, /* 1: tag 8 measured in the programs' rounds */
	MODEL_TAG_IMAGE_FORKS = 18,	  /* the forks of the program's own image in one run */
	MODEL_TAG_FORK_US = 19,	       /* two f64 fields: a fork's price with libc, per library */
	MODEL_TAG_IMAGE_VFORKS = 20,   /* ...and its vfork and posix_spawn children */
	MODEL_TAG_FORK_PRICE_NOW = 21, /* 1: tags 19 and 23 measured after the runs */
	MODEL_TAG_FORK_LAZY = 22,      /* 1: it binds fork lazily, and its children their calls */
	MODEL_TAG_FORK_LAZY_US = 23,   /* two f64 fields: such a child's more (libc, per library) */
	MODEL_TAG_IMAGE_NSS = 24, /* the image's processes that looked something up through NSS */
	MODEL_TAG_NSS_US = 25,	  /* f64: the first such lookup's price, dynamic beyond static */
	MODEL_TAG_CONTENDED_BLOCKS_PCT = 26, /* f64: the fit's figures made of contended runs, % */
	MODEL_TAG_IMAGE_HEAP = 27,    /* 1: its first process had a heap at its exit; 0: not */
	MODEL_TAG_MALLOC_US = 28,     /* f64: a first allocation's price, dynamic beyond static */
	MODEL_TAG_NSS_PRICE_NOW = 29, /* f64: tag 25 measured after the runs, in place of this */
	MODEL_TAG_STATIC_FACTS = 30,  /* seven uint fields: a static build's IFUNCs and FDEs */
	MODEL_TAG_STATIC_KEPT = 31,   /* 1: tag 30's kept FDEs replayed through the archives */
	MODEL_TAG_UNWINDER = 32,      /* the object that defines _Unwind_Find_FDE */
	MODEL_TAG_FDE_SORT_US = 33,   /* four f64 fields: the sort's price, its low, high, floor */
	MODEL_TAG_UNWIND_PRICE_NOW = 34, /* f64: tag 33 measured after the runs, in place of this */
	MODEL_TAG_EXIT_US =
		35, /* four f64 fields: the exit path per object, page, KiB, page mapped */
	MODEL_TAG_FAULT_US = 36,     /* four f64 fields: the calibration's fault, low, high, rest */
	MODEL_TAG_FAULT_NOW_US = 37, /* f64: a fault's cost measured after the runs */
	MODEL_TAG_VERDICT_ERR = 38,  /* two f64 fields: the verdict's validated error, %, us */
	MODEL_TAG_PRICED_LINE_NS = 39,	 /* f64: the probe's reading the calibration priced */
	MODEL_TAG_COLD_LINE_CAL_US = 40, /* f64: the cold line's price tag 5's was shifted from */
};

enum run_tag {
	RUN_FLAGS = 1,
	RUN_EXEC_TS = 2,
	RUN_DURATION = 3,
	RUN_WAIT_STATUS = 4,
	RUN_MINFLT = 5,
	RUN_MAJFLT = 6,
	RUN_MAXRSS_KB = 7,
	RUN_UTIME_US = 8,
	RUN_STIME_US = 9,
	RUN_SHM_FLAGS = 10,
	RUN_EVENTS = 11,
	RUN_LAUNCHER_RSS_KB = 12,
	RUN_LINE_NS = 13,
	RUN_LINE_HOT_NS = 14,
	RUN_NIVCSW = 15,
	RUN_DECAY_NS = 16,    /* CACHE_DECAY_POINTS f64 fields, in the order of cache_decay_ms */
	RUN_TREE_CPU_US = 17, /* f64: the CPU time of the run's whole tree (trace_run_usage) */
};

/* A sampled run is flagged warmup too: a reader before --sample leaves it out of the timing. */
enum {
	RUNF_PROFILED = 1,
	RUNF_WARMUP = 2,
	RUNF_TIMED_OUT = 4,
	RUNF_SHIM_ATTACHED = 8,
	RUNF_SAMPLED = 16,
};

/* The relocation counts, in the order of their tags (1...). */
static uint64_t *reloc_field(struct reloc_counts *r, unsigned i)
{
	uint64_t *f[] = {&r->relative, &r->relr,      &r->glob_dat, &r->jump_slot, &r->symbolic,
			 &r->tls,      &r->irelative, &r->copy,	    &r->other};
	return i < ARRAY_SIZE(f) ? f[i] : NULL;
}

void tf_encode_meta(const struct trace *t, struct bbuf *b)
{
	tlv_str(b, META_LDPROF_VERSION, t->ldprof_version);
	tlv_sint(b, META_RECORDED_AT, t->recorded_at);
	for (int i = 0; i < t->argc; i++)
		tlv_str(b, META_ARG, t->argv[i]);
	tlv_str(b, META_PROGRAM, t->program);
	tlv_str(b, META_ELF_PATH, t->elf_path);
	tlv_uint(b, META_ELF_KIND, (uint64_t)t->kind);
	tlv_uint(b, META_STATIC, t->is_static);
	tlv_f64(b, META_TSC_HZ, t->tsc_hz);
	tlv_uint(b, META_INTERRUPTED, t->interrupted);
	tlv_uint(b, META_RUNS, t->nrun);
	tlv_str(b, META_CWD, t->cwd);
	if (t->follow)
		tlv_uint(b, META_FOLLOW, 1);
	if (t->cold_cache)
		tlv_uint(b, META_COLD_CACHE, 1);
}

void tf_encode_machine(const struct trace *t, struct bbuf *b)
{
	const struct trace_machine *m = &t->machine;

	tlv_str(b, MACH_HOSTNAME, m->hostname);
	tlv_str(b, MACH_KERNEL, m->kernel);
	tlv_str(b, MACH_KERNEL_VERSION, m->kernel_version);
	tlv_str(b, MACH_ARCH, m->arch);
	tlv_str(b, MACH_GLIBC, m->glibc);
	tlv_str(b, MACH_CPU_MODEL, m->cpu_model);
	tlv_uint(b, MACH_NCPUS, m->ncpus);
}

void tf_encode_env(const struct trace *t, struct bbuf *b)
{
	for (size_t i = 0; i < t->nenv; i++)
		tlv_str(b, ENV_VAR, t->env[i]);
}

static void encode_f64s(struct bbuf *b, unsigned tag, const double *v, size_t n)
{
	struct bbuf nested = {0};

	for (size_t i = 0; i < n; i++)
		tlv_f64(&nested, (unsigned)i + 1, v[i]);
	tlv_nested(b, tag, &nested);
}

/* A repeated f64 field: the tag once for each of v[0..n), in order. */
static void encode_repeated_f64(struct bbuf *b, unsigned tag, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tlv_f64(b, tag, v[i]);
}

static void encode_features(const struct trace_object *o, struct bbuf *b)
{
	const struct advice_facts *a = &o->advice;
	struct bbuf adv = {0};

	encode_f64s(b, OBJ_FEATURES, o->feat, MODEL_NFEAT);
	tlv_uint(&adv, ADV_UNUSED, a->unused);
	tlv_uint(&adv, ADV_SYSV_ONLY, a->sysv_only);
	tlv_f64(&adv, ADV_SELF_BINDS, a->self_binds);
	tlv_f64(&adv, ADV_NOW_PLT, a->now_plt);
	tlv_f64(&adv, ADV_SYSV_PASSES, a->sysv_passes);
	tlv_f64(&adv, ADV_AVG_CHAIN, a->avg_chain);
	tlv_f64(&adv, ADV_VERSION_LINES, a->version_lines);
	tlv_f64(&adv, ADV_VERSION_BYTES, a->version_bytes);
	tlv_nested(b, OBJ_ADVICE, &adv);
}

/* The static side's facts (static-facts.h), so that a report's verdict is the run's. */
static void encode_static_side(const struct trace *t, struct bbuf *b)
{
	const struct static_facts *sf = &t->static_side;
	const struct model_coefs *m = &t->model;
	const uint32_t facts[] = {sf->ifunc_bound,	sf->ifunc_extra,      sf->fdes,
				  sf->fdes_erratic,	sf->fdes_erratic_own, sf->fdes_runtime_kept,
				  sf->fdes_erratic_kept};

	if (!sf->known)
		return;
	for (size_t i = 0; i < sizeof facts / sizeof *facts; i++)
		tlv_uint(b, MODEL_TAG_STATIC_FACTS, facts[i]);
	if (sf->have_kept)
		tlv_uint(b, MODEL_TAG_STATIC_KEPT, 1);
	if (sf->have_unwinder)
		tlv_uint(b, MODEL_TAG_UNWINDER, sf->unwinder);
	encode_repeated_f64(
		b, MODEL_TAG_FDE_SORT_US,
		(const double[]){m->fde_sort_us, m->fde_sort_lo, m->fde_sort_hi, m->fde_floor}, 4);
	if (t->unwind_price_now)
		tlv_f64(b, MODEL_TAG_UNWIND_PRICE_NOW, t->unwind_cal_price);
}

void tf_encode_model(const struct trace *t, struct bbuf *b)
{
	const struct model_coefs *m = &t->model;

	tlv_uint(b, MODEL_TAG_VERSION, MODEL_VERSION);
	tlv_uint(b, MODEL_TAG_VALID, m->valid);
	tlv_uint(b, MODEL_TAG_CALIBRATED, m->calibrated);
	tlv_f64(b, MODEL_TAG_INTERCEPT_US, m->intercept_us);
	encode_f64s(b, MODEL_TAG_COEF_US, m->coef_us, MODEL_NFEAT);
	tlv_f64(b, MODEL_TAG_R2, m->r2);
	tlv_uint(b, MODEL_TAG_PROGRAMS, m->programs);
	encode_repeated_f64(
		b, MODEL_TAG_DYNAMIC_FIXED_US,
		(const double[]){m->dynamic_fixed_us, m->dynamic_fixed_lo, m->dynamic_fixed_hi}, 3);
	tlv_str(b, MODEL_TAG_SOURCE, m->source);
	tlv_str(b, MODEL_TAG_MACHINE, m->machine);
	tlv_str(b, MODEL_TAG_CREATED, m->created);
	if (m->line_hot_ns > 0) {
		tlv_f64(b, MODEL_TAG_LINE_HOT_NS, m->line_hot_ns);
		tlv_f64(b, MODEL_TAG_LINE_CONTENDED_PCT, m->line_contended_pct);
	}
	if (!isnan(m->contended_blocks_pct))
		tlv_f64(b, MODEL_TAG_CONTENDED_BLOCKS_PCT, m->contended_blocks_pct);
	if (m->cold_cache)
		tlv_uint(b, MODEL_TAG_COLD_CACHE, 1);
	if (t->fixed_runs) {
		tlv_uint(b, MODEL_TAG_FIXED_RUNS, t->fixed_runs);
		tlv_f64(b, MODEL_TAG_FIXED_CAL_US, t->fixed_cal_us);
		if (t->fixed_interleaved)
			tlv_uint(b, MODEL_TAG_FIXED_INTERLEAVED, 1);
	}
	if (t->forks_counted) {
		tlv_uint(b, MODEL_TAG_IMAGE_FORKS, t->image_forks);
		tlv_uint(b, MODEL_TAG_IMAGE_VFORKS, t->image_vforks);
		encode_repeated_f64(b, MODEL_TAG_FORK_US,
				    (const double[]){m->fork_fixed_us, m->fork_per_object_us}, 2);
		encode_repeated_f64(
			b, MODEL_TAG_FORK_LAZY_US,
			(const double[]){m->fork_lazy_fixed_us, m->fork_lazy_per_object_us}, 2);
		if (t->static_side.fork_lazy)
			tlv_uint(b, MODEL_TAG_FORK_LAZY, 1);
		if (t->fork_price_now)
			tlv_uint(b, MODEL_TAG_FORK_PRICE_NOW, 1);
		tlv_uint(b, MODEL_TAG_IMAGE_NSS, t->image_nss);
		tlv_f64(b, MODEL_TAG_NSS_US, m->nss_us);
		if (t->nss_price_now)
			tlv_f64(b, MODEL_TAG_NSS_PRICE_NOW, t->nss_cal_us);
		if (t->heap_seen)
			tlv_uint(b, MODEL_TAG_IMAGE_HEAP, t->image_heap);
		tlv_f64(b, MODEL_TAG_MALLOC_US, m->malloc_us);
	}
	encode_repeated_f64(b, MODEL_TAG_EXIT_US,
			    (const double[]){m->exit_per_object_us, m->exit_per_page_us,
					     m->exit_per_kib_us, m->unmap_page_us},
			    4);
	if (m->fault_us > 0)
		encode_repeated_f64(
			b, MODEL_TAG_FAULT_US,
			(const double[]){m->fault_us, m->fault_lo, m->fault_hi, m->fault_rest_us},
			4);
	if (t->fault_us_now > 0)
		tlv_f64(b, MODEL_TAG_FAULT_NOW_US, t->fault_us_now);
	if (m->verdict_err_pct > 0 || m->verdict_err_us > 0)
		encode_repeated_f64(b, MODEL_TAG_VERDICT_ERR,
				    (const double[]){m->verdict_err_pct, m->verdict_err_us}, 2);
	if (m->priced_line_ns > 0)
		tlv_f64(b, MODEL_TAG_PRICED_LINE_NS, m->priced_line_ns);
	if (t->cold_line_shifted)
		tlv_f64(b, MODEL_TAG_COLD_LINE_CAL_US, t->cold_line_cal_us);
	encode_static_side(t, b);
}

static void encode_object(const struct trace_object *o, struct bbuf *b)
{
	tlv_str(b, OBJ_PATH, o->path);
	tlv_uint(b, OBJ_ROLE, (uint64_t)o->role);
	tlv_uint(b, OBJ_DLOPENED, o->dlopened);
	tlv_uint(b, OBJ_UNTIMED, o->untimed_seen);
	if (o->have_facts) {
		struct bbuf r = {0};
		struct reloc_counts rc = o->relocs;
		for (unsigned i = 0; reloc_field(&rc, i); i++)
			tlv_uint(&r, i + 1, *reloc_field(&rc, i));
		tlv_str(b, OBJ_SONAME, o->soname);
		tlv_nested(b, OBJ_RELOCS, &r);
		tlv_uint(b, OBJ_INIT_FUNCS, o->init_funcs);
		tlv_uint(b, OBJ_FINI_FUNCS, o->fini_funcs);
		tlv_uint(b, OBJ_BIND_NOW, o->bind_now);
		tlv_uint(b, OBJ_CRT_FAULTS, o->crt_faults16);
	}
	if (o->have_mapped)
		tlv_uint(b, OBJ_MAPPED_PAGES, o->mapped_pages);
	if (o->have_feat)
		encode_features(o, b);
	tlv_str(b, OBJ_FACTS_ERROR, o->facts_error);
	tlv_str(b, OBJ_BUILD_ID, o->build_id);
	if (o->have_stat) {
		tlv_uint(b, OBJ_FILE_SIZE, o->file_size);
		tlv_sint(b, OBJ_MTIME_NS, o->mtime_ns);
	}
}

void tf_encode_objects(const struct trace *t, struct bbuf *b)
{
	for (size_t i = 0; i < t->nobj; i++) {
		struct bbuf o = {0};
		encode_object(&t->obj[i], &o);
		tlv_nested(b, OBJECTS_OBJECT, &o);
	}
}

static void encode_run(const struct trace_run *r, struct bbuf *b)
{
	struct bbuf ev = {0};
	uint64_t flags = (r->profiled ? RUNF_PROFILED : 0) | (r->warmup ? RUNF_WARMUP : 0) |
			 (r->timed_out ? RUNF_TIMED_OUT : 0) |
			 (r->shim_attached ? RUNF_SHIM_ATTACHED : 0) |
			 (r->sampled ? RUNF_SAMPLED | RUNF_WARMUP : 0);

	tlv_uint(b, RUN_FLAGS, flags);
	tlv_uint(b, RUN_EXEC_TS, r->exec_ts);
	tlv_sint(b, RUN_DURATION, (int64_t)(r->reap_ts - r->exec_ts));
	tlv_uint(b, RUN_WAIT_STATUS, (uint32_t)r->wait_status);
	tlv_sint(b, RUN_MINFLT, r->usage.minflt);
	tlv_sint(b, RUN_MAJFLT, r->usage.majflt);
	tlv_sint(b, RUN_MAXRSS_KB, r->usage.maxrss_kb);
	if (r->usage.launcher_rss_kb)
		tlv_sint(b, RUN_LAUNCHER_RSS_KB, r->usage.launcher_rss_kb);
	tlv_f64(b, RUN_UTIME_US, r->usage.utime_us);
	tlv_f64(b, RUN_STIME_US, r->usage.stime_us);
	if (r->usage.nivcsw >= 0)
		tlv_sint(b, RUN_NIVCSW, r->usage.nivcsw);
	if (isfinite(r->usage.tree_cpu_us))
		tlv_f64(b, RUN_TREE_CPU_US, r->usage.tree_cpu_us);
	tlv_uint(b, RUN_SHM_FLAGS, r->shm_flags);
	if (r->line_ns > 0) {
		tlv_f64(b, RUN_LINE_NS, r->line_ns);
		tlv_f64(b, RUN_LINE_HOT_NS, r->line_hot_ns);
	}
	if (r->decay_ns[0] > 0)
		for (int i = 0; i < CACHE_DECAY_POINTS; i++)
			tlv_f64(b, RUN_DECAY_NS, r->decay_ns[i]);
	tf_encode_events(r->ev, r->nev, r->exec_ts, &ev);
	tlv_nested(b, RUN_EVENTS, &ev);
}

void tf_encode_runs(const struct trace *t, size_t first, size_t n, struct bbuf *b)
{
	tlv_uint(b, RUNS_FIRST, first);
	for (size_t i = first; i < first + n && i < t->nrun; i++) {
		struct bbuf r = {0};
		encode_run(&t->run[i], &r);
		tlv_nested(b, RUNS_RUN, &r);
	}
}

/* Replace *dst with the field's string. */
static void take_str(char **dst, struct cursor *v)
{
	free(*dst);
	*dst = val_str(v);
}

static bool decode_meta_field(unsigned tag, struct cursor *v, struct trace *t,
			      struct tf_decode_state *st)
{
	uint64_t x;

	switch (tag) {
	case META_LDPROF_VERSION:
		take_str(&t->ldprof_version, v);
		break;
	case META_RECORDED_AT:
		t->recorded_at = val_sint(v);
		break;
	case META_ARG:
		GROW(st->argv, st->capargv, st->argc);
		st->argv[st->argc] = val_str(v);
		st->argc += st->argv[st->argc] != NULL;
		break;
	case META_PROGRAM:
		take_str(&t->program, v);
		break;
	case META_ELF_PATH:
		take_str(&t->elf_path, v);
		break;
	case META_ELF_KIND:
		if ((x = val_uint(v)) > ELF_KIND_OTHER)
			return false;
		t->kind = (enum elf_kind)x;
		break;
	case META_STATIC:
		t->is_static = val_uint(v) != 0;
		break;
	case META_TSC_HZ:
		t->tsc_hz = val_f64(v);
		break;
	case META_INTERRUPTED:
		t->interrupted = val_uint(v) != 0;
		break;
	case META_RUNS:
		st->runs_expected = (size_t)val_uint(v);
		break;
	case META_CWD:
		take_str(&t->cwd, v);
		break;
	case META_FOLLOW:
		t->follow = val_uint(v) != 0;
		break;
	case META_COLD_CACHE:
		t->cold_cache = val_uint(v) != 0;
		break;
	}
	return !v->bad;
}

static int decode_meta(struct cursor *c, struct trace *t, struct tf_decode_state *st,
		       struct errbuf *err)
{
	struct cursor v;
	unsigned tag;

	if (st->have_meta)
		return set_err(err, EPROTO, "two META sections");
	while (tlv_next(c, &tag, &v))
		if (!decode_meta_field(tag, &v, t, st))
			return set_err(err, EPROTO, "damaged META field %u", tag);
	if (c->bad || !t->program || !(t->tsc_hz > 0) || !isfinite(t->tsc_hz))
		return set_err(err, EPROTO, "damaged META section");
	st->have_meta = true;
	return 0;
}

static int decode_machine(struct cursor *c, struct trace *t, struct errbuf *err)
{
	struct trace_machine *m = &t->machine;
	char **strs[] = {NULL,	   &m->hostname, &m->kernel,   &m->kernel_version,
			 &m->arch, &m->glibc,	 &m->cpu_model};
	struct cursor v = {0};
	unsigned tag;

	while (tlv_next(c, &tag, &v) && !v.bad) {
		if (tag > 0 && tag < ARRAY_SIZE(strs))
			take_str(strs[tag], &v);
		else if (tag == MACH_NCPUS)
			m->ncpus = (unsigned)val_uint(&v);
		if (v.bad)
			break;
	}
	return c->bad || v.bad ? set_err(err, EPROTO, "damaged MACHINE section") : 0;
}

static int decode_env(struct cursor *c, struct trace *t, struct errbuf *err)
{
	struct cursor v;
	unsigned tag;
	size_t cap = t->nenv;

	while (tlv_next(c, &tag, &v)) {
		if (tag != ENV_VAR)
			continue;
		GROW(t->env, cap, t->nenv);
		if (!(t->env[t->nenv] = val_str(&v)))
			return set_err(err, EPROTO, "damaged ENV section");
		t->nenv++;
	}
	return c->bad ? set_err(err, EPROTO, "damaged ENV section") : 0;
}

static bool decode_relocs(struct cursor *c, struct reloc_counts *r)
{
	struct cursor v;
	unsigned tag;

	while (tlv_next(c, &tag, &v)) {
		uint64_t *f = tag ? reloc_field(r, tag - 1) : NULL;
		if (f)
			*f = val_uint(&v);
		if (v.bad)
			return false;
	}
	return !c->bad;
}

/* Nested f64 fields, tag i + 1 into v[i]; tags beyond n (a newer model) are skipped. */
static bool decode_f64s(struct cursor *c, double *v, size_t n)
{
	struct cursor f;
	unsigned tag;

	while (tlv_next(c, &tag, &f)) {
		if (tag >= 1 && tag <= n)
			v[tag - 1] = val_f64(&f);
		if (f.bad)
			return false;
	}
	return !c->bad;
}

static bool decode_advice(struct cursor *c, struct advice_facts *a)
{
	struct cursor v;
	unsigned tag;

	while (tlv_next(c, &tag, &v)) {
		if (tag == ADV_UNUSED)
			a->unused = val_uint(&v) != 0;
		else if (tag == ADV_SYSV_ONLY)
			a->sysv_only = val_uint(&v) != 0;
		else if (tag == ADV_SELF_BINDS)
			a->self_binds = val_f64(&v);
		else if (tag == ADV_NOW_PLT)
			a->now_plt = val_f64(&v);
		else if (tag == ADV_SYSV_PASSES)
			a->sysv_passes = val_f64(&v);
		else if (tag == ADV_AVG_CHAIN)
			a->avg_chain = val_f64(&v);
		else if (tag == ADV_VERSION_LINES)
			a->version_lines = val_f64(&v);
		else if (tag == ADV_VERSION_BYTES)
			a->version_bytes = val_f64(&v);
		if (v.bad)
			return false;
	}
	return !c->bad;
}

static bool decode_object_field(unsigned tag, struct cursor *v, struct trace_object *o)
{
	uint64_t x;

	switch (tag) {
	case OBJ_PATH:
		take_str(&o->path, v);
		break;
	case OBJ_ROLE:
		if ((x = val_uint(v)) > ROLE_SHIM)
			return false;
		o->role = (enum obj_role)x;
		break;
	case OBJ_DLOPENED:
		o->dlopened = val_uint(v) != 0;
		break;
	case OBJ_UNTIMED:
		o->untimed_seen = val_uint(v) != 0;
		break;
	case OBJ_SONAME:
		take_str(&o->soname, v);
		break;
	case OBJ_RELOCS:
		o->have_facts = true;
		return decode_relocs(v, &o->relocs);
	case OBJ_INIT_FUNCS:
		o->init_funcs = (uint32_t)val_uint(v);
		break;
	case OBJ_FINI_FUNCS:
		o->fini_funcs = (uint32_t)val_uint(v);
		break;
	case OBJ_BIND_NOW:
		o->bind_now = val_uint(v) != 0;
		break;
	case OBJ_CRT_FAULTS:
		o->crt_faults16 = (uint32_t)val_uint(v);
		break;
	case OBJ_MAPPED_PAGES:
		o->have_mapped = true;
		o->mapped_pages = (uint32_t)fmin(val_uint(v), UINT32_MAX);
		break;
	case OBJ_FACTS_ERROR:
		take_str(&o->facts_error, v);
		break;
	case OBJ_BUILD_ID:
		take_str(&o->build_id, v);
		break;
	case OBJ_FILE_SIZE:
		o->have_stat = true;
		o->file_size = val_uint(v);
		break;
	case OBJ_MTIME_NS:
		o->mtime_ns = val_sint(v);
		break;
	case OBJ_FEATURES:
		o->have_feat = true;
		return decode_f64s(v, o->feat, MODEL_NFEAT);
	case OBJ_ADVICE:
		return decode_advice(v, &o->advice);
	}
	return !v->bad;
}

static int decode_objects(struct cursor *c, struct trace *t, struct tf_decode_state *st,
			  struct errbuf *err)
{
	struct cursor ov, v;
	unsigned tag, otag;

	if (!st->have_meta || st->have_objects)
		return set_err(err, EPROTO, "OBJECTS section out of place");
	while (tlv_next(c, &otag, &ov)) {
		if (otag != OBJECTS_OBJECT)
			continue;
		GROW(t->obj, t->capobj, t->nobj);
		struct trace_object *o = &t->obj[t->nobj++];
		memset(o, 0, sizeof *o);
		o->role = ROLE_LIBRARY;
		while (tlv_next(&ov, &tag, &v))
			if (!decode_object_field(tag, &v, o))
				return set_err(err, EPROTO, "damaged object %zu", t->nobj - 1);
		if (ov.bad || !o->path)
			return set_err(err, EPROTO, "damaged object %zu", t->nobj - 1);
	}
	st->have_objects = true;
	return c->bad ? set_err(err, EPROTO, "damaged OBJECTS section") : 0;
}

static void copy_str(char *dst, size_t n, struct cursor *v)
{
	char *s = val_str(v);

	snprintf(dst, n, "%s", s ? s : "");
	free(s);
}

/* A cache-probe reading: NaN, negative or absurd is damage, read as not probed. */
static double sane_ns(double ns)
{
	return ns >= 0 && ns < 1e9 ? ns : 0;
}

/* A price in microseconds: finite and not below zero, else 0 (not counted). */
static double sane_price(double us)
{
	return us >= 0 && us < 1e9 ? us : 0;
}

/* A count that must fit 32 bits; 0 when it does not. */
static uint32_t count32(uint64_t x)
{
	return x <= UINT32_MAX ? (uint32_t)x : 0;
}

/*
 * The next of a repeated price field's n slots, *k of them filled so far;
 * one past the last is ignored.
 */
static void decode_repeated_price(double *const *slot, int n, int *k, struct cursor *v)
{
	if (*k < n)
		*slot[(*k)++] = sane_price(val_f64(v));
}

/* How many of the repeated MODEL fields came so far. */
struct model_repeats {
	int fixed, fork, fork_lazy, facts, fde_sort, exit, fault, verdict_err;
};

/* Tags 30 to 34: the static side's facts; false for another tag. */
static bool decode_static_field(unsigned tag, struct cursor *v, struct trace *t,
				struct model_repeats *rep)
{
	struct static_facts *sf = &t->static_side;
	struct model_coefs *m = &t->model;
	uint32_t *facts[] = {&sf->ifunc_bound,	    &sf->ifunc_extra,	   &sf->fdes,
			     &sf->fdes_erratic,	    &sf->fdes_erratic_own, &sf->fdes_runtime_kept,
			     &sf->fdes_erratic_kept};
	double *sort[] = {&m->fde_sort_us, &m->fde_sort_lo, &m->fde_sort_hi, &m->fde_floor};
	uint64_t x;

	switch (tag) {
	case MODEL_TAG_STATIC_FACTS:
		if (rep->facts < (int)(sizeof facts / sizeof *facts))
			*facts[rep->facts++] = count32(val_uint(v));
		sf->known = true;
		return true;
	case MODEL_TAG_STATIC_KEPT:
		sf->have_kept = val_uint(v) == 1;
		return true;
	case MODEL_TAG_UNWINDER:
		x = val_uint(v);
		sf->have_unwinder = x < UINT32_MAX; /* the verdict checks it against nobj */
		sf->unwinder = count32(x);
		return true;
	case MODEL_TAG_FDE_SORT_US:
		decode_repeated_price(sort, (int)ARRAY_SIZE(sort), &rep->fde_sort, v);
		return true;
	case MODEL_TAG_UNWIND_PRICE_NOW:
		t->unwind_cal_price = sane_price(val_f64(v));
		t->unwind_price_now = true;
		return true;
	default:
		return false;
	}
}

static bool decode_model_field(unsigned tag, struct cursor *v, struct trace *t,
			       struct tf_decode_state *st, struct model_repeats *rep)
{
	struct model_coefs *m = &t->model;
	double *fix[] = {&m->dynamic_fixed_us, &m->dynamic_fixed_lo, &m->dynamic_fixed_hi};
	double *fork_us[] = {&m->fork_fixed_us, &m->fork_per_object_us};
	double *lazy_us[] = {&m->fork_lazy_fixed_us, &m->fork_lazy_per_object_us};
	double *exit_us[] = {&m->exit_per_object_us, &m->exit_per_page_us, &m->exit_per_kib_us,
			     &m->unmap_page_us};
	double *fault_us[] = {&m->fault_us, &m->fault_lo, &m->fault_hi, &m->fault_rest_us};
	double *verdict_err[] = {&m->verdict_err_pct, &m->verdict_err_us};
	uint64_t x;

	switch (tag) {
	case MODEL_TAG_VERSION:
		st->model_version = (unsigned)val_uint(v);
		break;
	case MODEL_TAG_VALID:
		m->valid = val_uint(v) != 0;
		break;
	case MODEL_TAG_CALIBRATED:
		m->calibrated = val_uint(v) != 0;
		break;
	case MODEL_TAG_INTERCEPT_US:
		m->intercept_us = val_f64(v);
		break;
	case MODEL_TAG_COEF_US:
		return decode_f64s(v, m->coef_us, MODEL_NFEAT);
	case MODEL_TAG_R2:
		m->r2 = val_f64(v);
		break;
	case MODEL_TAG_PROGRAMS:
		m->programs = (size_t)val_uint(v);
		break;
	case MODEL_TAG_DYNAMIC_FIXED_US:
		if (rep->fixed < 3)
			*fix[rep->fixed++] = val_f64(v);
		break;
	case MODEL_TAG_SOURCE:
		copy_str(m->source, sizeof m->source, v);
		break;
	case MODEL_TAG_MACHINE:
		copy_str(m->machine, sizeof m->machine, v);
		break;
	case MODEL_TAG_CREATED:
		copy_str(m->created, sizeof m->created, v);
		break;
	case MODEL_TAG_LINE_HOT_NS:
		m->line_hot_ns = sane_ns(val_f64(v));
		break;
	case MODEL_TAG_COLD_CACHE:
		m->cold_cache = val_uint(v) != 0;
		break;
	case MODEL_TAG_LINE_CONTENDED_PCT:
		m->line_contended_pct = val_f64(v);
		if (!(m->line_contended_pct >= 0 && m->line_contended_pct <= 100))
			m->line_contended_pct = 0;
		break;
	case MODEL_TAG_CONTENDED_BLOCKS_PCT:
		m->contended_blocks_pct = val_f64(v);
		if (!(m->contended_blocks_pct >= 0 && m->contended_blocks_pct <= 100))
			m->contended_blocks_pct = NAN;
		break;
	case MODEL_TAG_FIXED_RUNS:
		t->fixed_runs = (size_t)val_uint(v);
		break;
	case MODEL_TAG_FIXED_CAL_US:
		t->fixed_cal_us = val_f64(v);
		break;
	case MODEL_TAG_FIXED_INTERLEAVED:
		t->fixed_interleaved = val_uint(v) == 1;
		break;
	case MODEL_TAG_IMAGE_FORKS:
		x = val_uint(v);
		t->forks_counted = x <= UINT32_MAX;
		t->image_forks = count32(x);
		break;
	case MODEL_TAG_IMAGE_VFORKS:
		t->image_vforks = count32(val_uint(v));
		break;
	case MODEL_TAG_FORK_PRICE_NOW:
		t->fork_price_now = val_uint(v) == 1;
		break;
	case MODEL_TAG_FORK_US:
		decode_repeated_price(fork_us, (int)ARRAY_SIZE(fork_us), &rep->fork, v);
		break;
	case MODEL_TAG_FORK_LAZY_US:
		decode_repeated_price(lazy_us, (int)ARRAY_SIZE(lazy_us), &rep->fork_lazy, v);
		break;
	case MODEL_TAG_FORK_LAZY:
		t->static_side.fork_lazy = val_uint(v) == 1;
		break;
	case MODEL_TAG_IMAGE_NSS:
		t->image_nss = count32(val_uint(v));
		break;
	case MODEL_TAG_NSS_US:
		m->nss_us = sane_price(val_f64(v));
		break;
	case MODEL_TAG_IMAGE_HEAP:
		x = val_uint(v);
		t->heap_seen = x <= 1;
		t->image_heap = x == 1;
		break;
	case MODEL_TAG_MALLOC_US:
		m->malloc_us = sane_price(val_f64(v));
		break;
	case MODEL_TAG_EXIT_US:
		decode_repeated_price(exit_us, (int)ARRAY_SIZE(exit_us), &rep->exit, v);
		break;
	case MODEL_TAG_FAULT_US:
		decode_repeated_price(fault_us, (int)ARRAY_SIZE(fault_us), &rep->fault, v);
		break;
	case MODEL_TAG_FAULT_NOW_US:
		t->fault_us_now = sane_price(val_f64(v));
		break;
	case MODEL_TAG_VERDICT_ERR:
		decode_repeated_price(verdict_err, (int)ARRAY_SIZE(verdict_err), &rep->verdict_err,
				      v);
		break;
	case MODEL_TAG_PRICED_LINE_NS:
		m->priced_line_ns = sane_ns(val_f64(v));
		break;
	case MODEL_TAG_COLD_LINE_CAL_US:
		t->cold_line_cal_us = sane_price(val_f64(v));
		t->cold_line_shifted = true;
		break;
	case MODEL_TAG_NSS_PRICE_NOW:
		t->nss_cal_us = sane_price(val_f64(v));
		t->nss_price_now = true;
		break;
	default:
		decode_static_field(tag, v, t, rep);
		break;
	}
	return !v->bad;
}

static int decode_model(struct cursor *c, struct trace *t, struct tf_decode_state *st,
			struct errbuf *err)
{
	struct cursor v;
	unsigned tag;
	struct model_repeats rep = {0};

	t->model.contended_blocks_pct = NAN; /* absent: an older trace's calibration */
	while (tlv_next(c, &tag, &v))
		if (!decode_model_field(tag, &v, t, st, &rep))
			return set_err(err, EPROTO, "damaged MODEL field %u", tag);
	return c->bad ? set_err(err, EPROTO, "damaged MODEL section") : 0;
}

static bool decode_run_field(unsigned tag, struct cursor *v, struct trace_run *r,
			     struct cursor *events)
{
	uint64_t x;

	switch (tag) {
	case RUN_FLAGS:
		x = val_uint(v);
		r->profiled = x & RUNF_PROFILED, r->warmup = x & RUNF_WARMUP;
		r->timed_out = x & RUNF_TIMED_OUT, r->shim_attached = x & RUNF_SHIM_ATTACHED;
		r->sampled = x & RUNF_SAMPLED;
		r->warmup = r->warmup || r->sampled;
		break;
	case RUN_EXEC_TS:
		r->exec_ts = val_uint(v);
		break;
	case RUN_DURATION:
		r->reap_ts = (uint64_t)val_sint(v); /* exec_ts is added below */
		break;
	case RUN_WAIT_STATUS:
		r->wait_status = (int)(uint32_t)val_uint(v);
		break;
	case RUN_MINFLT:
		r->usage.minflt = (long)val_sint(v);
		break;
	case RUN_MAJFLT:
		r->usage.majflt = (long)val_sint(v);
		break;
	case RUN_MAXRSS_KB:
		r->usage.maxrss_kb = (long)val_sint(v);
		break;
	case RUN_LAUNCHER_RSS_KB:
		r->usage.launcher_rss_kb = (long)val_sint(v);
		break;
	case RUN_UTIME_US:
		r->usage.utime_us = val_f64(v);
		break;
	case RUN_STIME_US:
		r->usage.stime_us = val_f64(v);
		break;
	case RUN_SHM_FLAGS:
		r->shm_flags = (uint32_t)val_uint(v);
		break;
	case RUN_LINE_NS:
		r->line_ns = sane_ns(val_f64(v));
		break;
	case RUN_LINE_HOT_NS:
		r->line_hot_ns = sane_ns(val_f64(v));
		break;
	case RUN_DECAY_NS: /* repeated, in order; extra ones from a later reader are left */
		for (int i = 0; i < CACHE_DECAY_POINTS; i++)
			if (!(r->decay_ns[i] > 0)) {
				r->decay_ns[i] = sane_ns(val_f64(v));
				break;
			}
		break;
	case RUN_NIVCSW:
		r->usage.nivcsw = (long)val_sint(v);
		if (r->usage.nivcsw < 0)
			r->usage.nivcsw = -1;
		break;
	case RUN_TREE_CPU_US: {
		double us = val_f64(v);
		r->usage.tree_cpu_us = us >= 0 && us < 1e12 ? us : NAN;
		break;
	}
	case RUN_EVENTS:
		*events = *v; /* decoded once exec_ts is known */
		break;
	}
	return !v->bad;
}

static int decode_runs(struct cursor *c, struct trace *t, struct tf_decode_state *st,
		       struct errbuf *err)
{
	struct cursor rv, v;
	unsigned tag, rtag;

	if (!st->have_objects)
		return set_err(err, EPROTO, "RUNS section before the objects");
	while (tlv_next(c, &rtag, &rv)) {
		if (rtag == RUNS_FIRST && val_uint(&rv) != t->nrun)
			return set_err(err, EPROTO, "RUNS section out of order");
		if (rtag != RUNS_RUN)
			continue;
		/* A stream of runs beyond META's count is damage, not more to read. */
		if (t->nrun >= st->runs_expected)
			return set_err(err, EPROTO, "damaged: more runs than the header's %zu",
				       st->runs_expected);
		struct trace_run *r = trace_add_run(t);
		struct cursor events = cursor_of("", 0);
		while (tlv_next(&rv, &tag, &v))
			if (!decode_run_field(tag, &v, r, &events))
				return set_err(err, EPROTO, "damaged run %zu", t->nrun - 1);
		r->reap_ts += r->exec_ts;
		if (rv.bad || !tf_decode_events(&events, t, r->exec_ts, r))
			return set_err(err, EPROTO, "damaged run %zu", t->nrun - 1);
	}
	return c->bad ? set_err(err, EPROTO, "damaged RUNS section") : 0;
}

int tf_decode_section(uint32_t type, struct cursor payload, struct trace *t,
		      struct tf_decode_state *st, struct errbuf *err)
{
	if (type != TF_SEC_META && !st->have_meta)
		return set_err(err, EPROTO, "the first section is not META");
	switch (type) {
	case TF_SEC_META:
		return decode_meta(&payload, t, st, err);
	case TF_SEC_MACHINE:
		return decode_machine(&payload, t, err);
	case TF_SEC_ENV:
		return decode_env(&payload, t, err);
	case TF_SEC_OBJECTS:
		return decode_objects(&payload, t, st, err);
	case TF_SEC_RUNS:
		return decode_runs(&payload, t, st, err);
	case TF_SEC_MODEL:
		return decode_model(&payload, t, st, err);
	case TF_SEC_TREE:
		return tf_decode_tree(&payload, t, err);
	case TF_SEC_SAMPLES:
		return tf_decode_samples(&payload, t, err);
	default:
		return 1;
	}
}

void tf_decode_finish(struct trace *t, struct tf_decode_state *st)
{
	/* Features of another model version mean something else: fall back to counts. */
	if (st->model_version != MODEL_VERSION) {
		memset(&t->model, 0, sizeof t->model);
		t->fixed_runs = 0;
		t->fixed_cal_us = 0;
		t->fixed_interleaved = false;
		t->forks_counted = false;
		t->image_forks = t->image_vforks = t->image_nss = 0;
		t->heap_seen = t->image_heap = false;
		t->fork_price_now = false;
		t->nss_price_now = false;
		t->unwind_price_now = false;
		t->fault_us_now = 0;
		memset(&t->static_side, 0, sizeof t->static_side);
		for (size_t i = 0; i < t->nobj; i++)
			t->obj[i].have_feat = false;
	}
	t->argc = (int)st->argc;
	t->argv = xcalloc(st->argc + 1, sizeof *t->argv);
	for (size_t i = 0; i < st->argc; i++)
		t->argv[i] = st->argv[i];
	free(st->argv);
	memset(st, 0, sizeof *st);
}
