/*
 * Synthetic traces for the unit tests of the trace file, the renderers and
 * diff: a program with ld.so, the vDSO and two or three libraries, runs
 * with every milestone, a constructor and a destructor, and jitter from a
 * fixed seed. At 1 GHz one tick is one nanosecond.
 */
#ifndef LDPROF_FAKE_TRACE_H
#define LDPROF_FAKE_TRACE_H

#include <string.h>

#include "ldprof-record.h"
#include "trace/trace.h"

struct fake_opts {
	size_t runs;	/* profiled runs; as many plain ones are interleaved */
	double slow;	/* factor on every duration (1 = baseline) */
	bool extra_lib; /* a third library, libextra.so, with a 300 us constructor */
	uint64_t seed;
};

static inline uint64_t fake_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* d nanoseconds times the slowdown, with up to 5% jitter. */
static inline uint64_t fake_dur(const struct fake_opts *o, uint64_t *seed, double d)
{
	return (uint64_t)(d * o->slow * (1 + (double)(fake_rand(seed) % 50) / 1000));
}

static inline void fake_ev(struct trace_run *r, uint64_t *ts, uint64_t dt, uint16_t type,
			   uint32_t obj, uint32_t u32)
{
	*ts += dt;
	struct trace_event e = {.ts = *ts, .type = type, .obj = obj, .u32 = u32};
	trace_add_event(r, &e);
}

static inline void fake_objects(struct trace *t, const struct fake_opts *o)
{
	const char *paths[] = {"/bin/prog",	  "/lib64/ld-linux-x86-64.so.2",
			       "linux-vdso.so.1", "/lib/liba.so.1",
			       "/lib/libb.so.2",  "/lib/libextra.so"};
	const enum obj_role roles[] = {ROLE_EXECUTABLE, ROLE_LOADER,  ROLE_VDSO,
				       ROLE_LIBRARY,	ROLE_LIBRARY, ROLE_LIBRARY};

	for (size_t i = 0; i < (o->extra_lib ? 6u : 5u); i++) {
		uint32_t id = trace_intern(t, paths[i]);
		struct trace_object *ob = &t->obj[id];
		ob->role = roles[i];
		if (roles[i] == ROLE_VDSO)
			continue;
		ob->have_facts = true;
		ob->relocs.relative = 100 * (i + 1);
		ob->relocs.glob_dat = 10;
		ob->init_funcs = ob->fini_funcs = 1;
		if (i >= 3) {
			const char *slash = strrchr(paths[i], '/');
			ob->soname = strdup(slash + 1);
		}
	}
}

static inline void fake_profiled_run(const struct fake_opts *o, uint64_t *seed, struct trace_run *r)
{
	uint64_t ts = r->exec_ts = 1000000 + fake_rand(seed) % 1000;
	uint32_t nobj = o->extra_lib ? 6 : 5;

	r->profiled = r->shim_attached = true;
	fake_ev(r, &ts, fake_dur(o, seed, 400000), LDPROF_REC_VERSION, TRACE_NO_OBJ, 0);
	for (uint32_t i = 0; i < nobj; i++)
		fake_ev(r, &ts, i < 3 ? 1000 : fake_dur(o, seed, 40000), LDPROF_REC_OBJOPEN, i, 0);
	fake_ev(r, &ts, fake_dur(o, seed, 150000), LDPROF_REC_ACTIVITY, TRACE_NO_OBJ, 0);
	for (uint32_t i = nobj - 1; i >= 3; i--) {
		fake_ev(r, &ts, 500, LDPROF_REC_INIT_BEGIN, i, 0);
		fake_ev(r, &ts, fake_dur(o, seed, i == 5 ? 300000 : 3000), LDPROF_REC_INIT_END, i,
			1);
	}
	fake_ev(r, &ts, 2000, LDPROF_REC_PREINIT, TRACE_NO_OBJ, 0);
	fake_ev(r, &ts, fake_dur(o, seed, 30000), LDPROF_REC_EXIT_CALL, TRACE_NO_OBJ, 1);
	fake_ev(r, &ts, 1000, LDPROF_REC_ACTIVITY, TRACE_NO_OBJ, 2);
	fake_ev(r, &ts, 500, LDPROF_REC_FINI_BEGIN, 4, 0);
	fake_ev(r, &ts, fake_dur(o, seed, 2000), LDPROF_REC_FINI_END, 4, 1);
	fake_ev(r, &ts, 500, LDPROF_REC_OBJCLOSE, 0, 0);
	r->reap_ts = ts + fake_dur(o, seed, 100000);
}

/* A trace as profile_program would leave it, with its context recorded. */
static inline void fake_trace(struct trace *t, const struct fake_opts *o)
{
	uint64_t seed = o->seed ? o->seed : 88172645463325252ull;

	trace_init(t, 2, (char *[]){"prog", "--flag", NULL});
	t->program = strdup("/bin/prog");
	t->elf_path = strdup("/bin/prog");
	t->kind = ELF_KIND_PIE;
	t->tsc_hz = 1e9;
	t->machine.hostname = strdup("fakehost");
	t->machine.cpu_model = strdup("Fake CPU");
	t->machine.ncpus = 2;
	t->env = calloc(1, sizeof *t->env);
	t->env[t->nenv++] = strdup("LD_BIND_NOW=1");
	t->cwd = strdup("/nonexistent-cwd");
	t->recorded_at = 1700000000;
	fake_objects(t, o);
	t->obj[3].build_id = strdup("00112233445566778899aabbccddeeff00112233");
	for (size_t i = 0; i < o->runs; i++) {
		fake_profiled_run(o, &seed, trace_add_run(t));
		struct trace_run *p = trace_add_run(t);
		p->exec_ts = 5000000;
		p->reap_ts = p->exec_ts + fake_dur(o, &seed, 650000);
		p->usage.minflt = 100;
	}
}

#endif
