/*
 * main's entry and return, and calls to exit/_exit/_Exit, seen from the
 * audit module alone.
 *
 * Auditing reports neither. The classic answer is an LD_PRELOAD that
 * interposes __libc_start_main and exit (preload.c, `ldprof --preload`),
 * but mapping one more object costs ~30 us per exec on these machines,
 * as much as the whole audit module. So by default, once relocation is
 * done (LA_ACT_CONSISTENT), we point the executable's GOT slots for these
 * functions at our wrappers: its _start calls __libc_start_main through
 * the GOT, and its exit() calls go through GOT or PLT slots.
 *
 * Only the executable: scanning every library's relocations faults in
 * pages ld.so never touched (~3 us each here), for calls to exit() that
 * libraries rarely make. When a library does call exit(), the analyzer
 * falls back to the start of _dl_fini (LA_ACT_DELETE) as the boundary.
 * Slots under RELRO would need an mprotect pair around the stores (~7 us
 * here: the page's mapping is split, merged and split again); instead the
 * shim asks ld.so, at the executable's la_objopen, not to protect the
 * executable's RELRO, and protects it itself once the stores are done:
 * one mprotect, ld.so's own, in place of three (shim_take_relro).
 */
#include "shim-elfsym.h"
#include "shim.h"

#define PAGE 4096ul

static int hook_of(const char *name)
{
	/* A cheap first test: every relocation's name passes here. */
	if (name[0] != '_' && name[0] != 'e')
		return -1;
	if (shim_streq(name, "__libc_start_main"))
		return HOOK_START_MAIN;
	if (shim_streq(name, "exit"))
		return HOOK_EXIT;
	if (shim_streq(name, "_exit"))
		return HOOK__EXIT;
	if (shim_streq(name, "_Exit"))
		return HOOK__EXIT_C99;
	return -1;
}

/*
 * The function a wrapper forwards to: the one the slot was bound to, or,
 * for a slot still unbound (lazy), its PLT stub, so that ld.so binds it at
 * the first call as it does without ldprof (and lazy.c counts it so).
 */
static void *target(int id)
{
	return shim.real[id] ? shim.real[id] : shim.stub[id];
}

static int main_wrapper(int argc, char **argv, char **envp)
{
	int ret;

	shim_emit(shim_now(), LDPROF_REC_MAIN_ENTER, LDPROF_NO_OBJ, 0, 0, 0);
	ret = shim.real_main(argc, argv, envp);
	shim_emit(shim_now(), LDPROF_REC_MAIN_RETURN, LDPROF_NO_OBJ, 0, (uint64_t)(int64_t)ret, 0);
	if (shim_owner())
		shim.main_done = 1;
	shim_note_end();
	return ret;
}

static int start_main_wrapper(main_fn main, int argc, char **argv, void (*init)(void),
			      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	shim.real_main = main;
	shim_note_argv(argc, argv);
	return ((start_main_fn)target(HOOK_START_MAIN))(main_wrapper, argc, argv, init, fini,
							rtld_fini, stack_end);
}

static __attribute__((noreturn)) void do_exit(enum hook_id id, uint32_t kind, int status)
{
	uint64_t ts = shim_now();

	/*
	 * A vfork child shares our memory, TCB included, and may _exit
	 * through this GOT: only the owner, asked of the kernel, sets the
	 * recursion guard and records. One system call per run.
	 */
	int owner = shim_owner_strict();

	if (owner && !__atomic_exchange_n(&shim.exiting, 1, __ATOMIC_RELAXED)) {
		shim_emit(ts, LDPROF_REC_EXIT_CALL, LDPROF_NO_OBJ, kind, (uint64_t)(int64_t)status,
			  0);
		shim.main_done = 1;
		shim_note_end();
	}
	/*
	 * A vfork child shares our GOT: ld.so binding _exit's slot there would
	 * take our wrapper out of the parent's, so the child gets _exit's
	 * system call itself, all that glibc's _exit does. (exit() in a vfork
	 * child is undefined behaviour.)
	 */
	while (!owner && id != HOOK_EXIT && !shim.real[id])
		shim_syscall1(SHIM_SYS_exit_group, status);
	((exit_fn)target(id))(status);
	__builtin_unreachable();
}

static void exit_wrapper(int status)
{
	do_exit(HOOK_EXIT, LDPROF_EXIT_EXIT, status);
}

static void _exit_wrapper(int status)
{
	do_exit(HOOK__EXIT, LDPROF_EXIT__EXIT, status);
}

static void _Exit_wrapper(int status)
{
	do_exit(HOOK__EXIT_C99, LDPROF_EXIT__EXIT_C99, status);
}

/* Computed, not a table: a table of pointers would need relocating. */
static void *wrapper_of(int id)
{
	switch (id) {
	case HOOK_START_MAIN:
		return (void *)start_main_wrapper;
	case HOOK_EXIT:
		return (void *)exit_wrapper;
	case HOOK__EXIT:
		return (void *)_exit_wrapper;
	default:
		return (void *)_Exit_wrapper;
	}
}

int shim_is_wrapper(uintptr_t addr)
{
	for (int id = 0; id < HOOK_COUNT; id++)
		if (addr == (uintptr_t)wrapper_of(id))
			return 1;
	return 0;
}

/* The executable's extent and the pages ld.so makes read-only (RELRO). */
struct layout {
	uintptr_t lo, hi;
	uintptr_t relro_lo, relro_hi;
	uintptr_t relro_vaddr, relro_memsz; /* PT_GNU_RELRO as the file says */
};

static int main_layout(struct layout *l)
{
	const ElfW(Phdr) *ph = 0;
	uintptr_t base = shim.main->l_addr;
	size_t n = 0;

	*l = (struct layout){UINTPTR_MAX, 0, 0, 0, 0, 0};
	for (const ElfW(auxv_t) *a = shim.auxv; a && a->a_type != AT_NULL; a++) {
		if (a->a_type == AT_PHDR)
			ph = (const void *)a->a_un.a_val;
		else if (a->a_type == AT_PHNUM)
			n = a->a_un.a_val;
	}
	for (size_t i = 0; ph && i < n; i++) {
		uintptr_t start = base + ph[i].p_vaddr, end = start + ph[i].p_memsz;
		if (ph[i].p_type == PT_LOAD) {
			l->lo = start < l->lo ? start : l->lo;
			l->hi = end > l->hi ? end : l->hi;
		} else if (ph[i].p_type == PT_GNU_RELRO) {
			/* Rounded as ld.so's _dl_protect_relro rounds. */
			l->relro_lo = start & ~(PAGE - 1);
			l->relro_hi = end & ~(PAGE - 1);
			l->relro_vaddr = ph[i].p_vaddr;
			l->relro_memsz = ph[i].p_memsz;
		}
	}
	/*
	 * AT_PHDR describes the program the kernel started: when that was ld.so
	 * itself ("ld.so ./prog"), these are not the executable's headers.
	 * Patch nothing rather than guess where its RELRO lies.
	 */
	uintptr_t dyn = (uintptr_t)shim.main->l_ld;
	if (!l->hi || (uintptr_t)ph < l->lo || (uintptr_t)ph >= l->hi || dyn < l->lo ||
	    dyn >= l->hi)
		return -1;
	return 0;
}

struct pending {
	void **slot;
	void *value;
};

/* Where one slot should point, or NULL to leave it alone. */
static void *wrap_slot(void **slot, int id, const struct layout *l)
{
	void *cur = *slot;

	/*
	 * A lazy PLT slot still points into the executable, at its stub:
	 * no lookup now (~0.6 us a name here), target() forwards there.
	 */
	if ((uintptr_t)cur >= l->lo && (uintptr_t)cur < l->hi) {
		if (shim.stub[id] && shim.stub[id] != cur)
			return 0; /* one wrapper can only forward to one function */
		shim.stub[id] = cur;
	} else {
		if (!cur || (shim.real[id] && shim.real[id] != cur))
			return 0;
		shim.real[id] = cur;
	}
	return wrapper_of(id);
}

static size_t scan(const struct shim_dynobj *o, const ElfW(Rela) * r, size_t size,
		   const struct layout *l, struct pending *out, size_t n, size_t cap)
{
	for (size_t i = 0; r && i < size / sizeof(*r) && n < cap; i++) {
		uint32_t type = ELF64_R_TYPE(r[i].r_info), sym = ELF64_R_SYM(r[i].r_info);
		if ((type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT) || !sym)
			continue;
		int id = hook_of(o->strtab + o->symtab[sym].st_name);
		if (id < 0)
			continue;
		void **slot = (void **)(o->base + r[i].r_offset);
		void *value = wrap_slot(slot, id, l);
		if (value)
			out[n++] = (struct pending){slot, value};
	}
	return n;
}

/* Write the slots; those under RELRO, unless still writable, in one mprotect window. */
static void store(const struct pending *p, size_t n, const struct layout *l)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (size_t i = 0; i < n && !shim.relro_size_at; i++) {
		uintptr_t page = (uintptr_t)p[i].slot & ~(PAGE - 1);
		if (page >= l->relro_lo && page < l->relro_hi) {
			lo = page < lo ? page : lo;
			hi = page + PAGE > hi ? page + PAGE : hi;
		}
	}
	if (hi && shim_syscall3(SHIM_SYS_mprotect, (long)lo, (long)(hi - lo), 3 /* RW */) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		*p[i].slot = p[i].value;
	if (hi)
		shim_syscall3(SHIM_SYS_mprotect, (long)lo, (long)(hi - lo), 1 /* R */);
}

/* A relocation table from .dynamic, as a run-time range. */
struct range {
	const ElfW(Rela) * start;
	size_t size;
};

static struct range table(const struct shim_dynobj *o, ElfW(Dyn) * dyn, ElfW(Sxword) tag,
			  ElfW(Sxword) size_tag)
{
	ElfW(Dyn) *d = shim_dyn_find(dyn, tag), *sz = shim_dyn_find(dyn, size_tag);

	if (!d || !sz)
		return (struct range){0, 0};
	return (struct range){(const void *)shim_dyn_addr(o->base, d->d_un.d_ptr), sz->d_un.d_val};
}

static void install(void)
{
	enum { MAX_SLOTS = 16 };
	struct pending p[MAX_SLOTS];
	struct shim_dynobj o;
	struct layout l;
	struct link_map *m = shim.main;
	size_t n;

	if (!m || shim_dynobj_init(&o, m) || main_layout(&l))
		return;
	struct range rela = table(&o, m->l_ld, DT_RELA, DT_RELASZ);
	struct range plt = table(&o, m->l_ld, DT_JMPREL, DT_PLTRELSZ);
	/* Linkers may put the PLT at the end of DT_RELA; ld.so then splits it off. */
	if (plt.size && plt.size <= rela.size &&
	    (const char *)rela.start + rela.size == (const char *)plt.start + plt.size)
		rela.size -= plt.size;
	/*
	 * The DT_RELACOUNT relative relocations come first and name no
	 * symbol; ld.so skips them by count too. Most of a large executable's
	 * (bash: 2379 of 2607), whose reading would cost more than the rest.
	 */
	ElfW(Dyn) *rc = shim_dyn_find(m->l_ld, DT_RELACOUNT);
	if (rc && rc->d_un.d_val <= rela.size / sizeof(*rela.start)) {
		rela.start += rc->d_un.d_val;
		rela.size -= rc->d_un.d_val * sizeof(*rela.start);
	}
	n = scan(&o, rela.start, rela.size, &l, p, 0, MAX_SLOTS);
	n = scan(&o, plt.start, plt.size, &l, p, n, MAX_SLOTS);
	store(p, n, &l);
}

uint64_t shim_install_hooks(void)
{
	install();
	return shim_protect_relro();
}

/*
 * Where ld.so keeps the executable's PT_GNU_RELRO in its link_map
 * (l_relro_addr, l_relro_size: the segment's link-time address and size,
 * 0x490 into glibc 2.36's struct link_map): found by value, so that
 * another glibc's layout finds nothing rather than something wrong. Only
 * the words below 0x4c0 are read, inside the struct and what ld.so
 * allocates with it.
 */
static size_t *relro_size_field(struct link_map *m, const struct layout *l)
{
	size_t *w = (size_t *)m;

	for (int k = 0; k + 1 < 0x4c0 / 8; k++)
		if (w[k] == l->relro_vaddr && w[k + 1] == l->relro_memsz)
			return &w[k + 1];
	return 0;
}

/*
 * ld.so protects an object's RELRO right after relocating it, only if
 * l_relro_size is not 0, before LA_ACT_CONSISTENT. Set to 0 here, in the
 * executable's la_objopen, it leaves the executable's GOT writable for
 * install(), then shim_protect_relro does what ld.so would have done.
 */
void shim_take_relro(void)
{
	struct layout l;
	size_t *at;

	if (!shim.main || main_layout(&l) || l.relro_lo == l.relro_hi ||
	    !(at = relro_size_field(shim.main, &l)))
		return;
	shim.relro_size = *at;
	shim.relro_lo = l.relro_lo;
	shim.relro_hi = l.relro_hi;
	shim.relro_size_at = at;
	*at = 0;
}

uint64_t shim_protect_relro(void)
{
	uint64_t t0 = shim_now();

	if (!shim.relro_size_at)
		return 0;
	shim_syscall3(SHIM_SYS_mprotect, (long)shim.relro_lo, (long)(shim.relro_hi - shim.relro_lo),
		      1 /* PROT_READ */);
	*shim.relro_size_at = shim.relro_size; /* as ld.so left it */
	shim.relro_size_at = 0;
	return shim_now() - t0;
}
