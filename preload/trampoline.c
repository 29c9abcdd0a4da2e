/*
 * The common code of the constructor and destructor trampolines: stub N of
 * stubs.S loads N and jumps here, and this runs object N's original
 * functions in the order glibc would (DT_INIT, then DT_INIT_ARRAY in order;
 * DT_FINI_ARRAY in reverse, then DT_FINI), timing each, between one
 * BEGIN and one END record. ctor.c points the objects at the stubs.
 */
#include "shim.h"

typedef void (*init_fn)(int, char **, char **);
typedef void (*fini_fn)(void);

struct slowest {
	uint32_t calls, index;
	uint64_t ticks;
};

static void note(struct slowest *s, uint64_t t0)
{
	uint64_t dt = shim_now() - t0;

	if (dt > s->ticks || !s->calls) {
		s->ticks = dt;
		s->index = s->calls;
	}
	s->calls++;
}

SHIM_HIDDEN void ldprof_init_common(int argc, char **argv, char **envp, unsigned idx);
void ldprof_init_common(int argc, char **argv, char **envp, unsigned idx)
{
	const struct fn_list *l = &shim_obj(idx)->init;
	const init_fn *arr = (const init_fn *)l->array;
	struct slowest s = {0, 0, 0};
	uint64_t t;

	shim_emit(shim_now(), LDPROF_REC_INIT_BEGIN, (uint16_t)idx, 0, 0, 0);
	if (l->single) {
		t = shim_now();
		((init_fn)l->single)(argc, argv, envp);
		note(&s, t);
	}
	for (uint32_t k = 0; k < l->count; k++) {
		t = shim_now();
		arr[k](argc, argv, envp);
		note(&s, t);
	}
	shim_emit(shim_now(), LDPROF_REC_INIT_END, (uint16_t)idx, s.calls, s.index, s.ticks);
}

SHIM_HIDDEN void ldprof_fini_common(unsigned idx);
void ldprof_fini_common(unsigned idx)
{
	const struct fn_list *l = &shim_obj(idx)->fini;
	const fini_fn *arr = (const fini_fn *)l->array;
	struct slowest s = {0, 0, 0};
	uint64_t t;

	shim_emit(shim_now(), LDPROF_REC_FINI_BEGIN, (uint16_t)idx, 0, 0, 0);
	for (uint32_t k = l->count; k-- > 0;) {
		t = shim_now();
		arr[k]();
		note(&s, t);
	}
	if (l->single) {
		t = shim_now();
		((fini_fn)l->single)();
		note(&s, t);
	}
	shim_emit(shim_now(), LDPROF_REC_FINI_END, (uint16_t)idx, s.calls, s.index, s.ticks);
}
