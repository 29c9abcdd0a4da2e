/*
 * ldprof's preload (LD_PRELOAD): it sees what auditing cannot, the return
 * from main and the call to exit/_exit/_Exit. It is as small as we can make
 * it: no libc, no DT_NEEDED, no constructors. It wraps main through
 * __libc_start_main and interposes the exit functions.
 *
 * It finds the functions it wraps itself (the next definition in the global
 * scope, as RTLD_NEXT would), walking ld.so's r_debug list, so that it keeps
 * the program working even when the audit module is absent. The audit module
 * fills in hook.record when recording is on; without it nothing is recorded.
 *
 * None of these entries touch errno: they call no libc function before the
 * wrapped one, and the recorder uses raw system calls.
 */
#include "ldprof-record.h"
#include "shim-elfsym.h"

SHIM_EXPORT struct ldprof_preload_hook ldprof_preload_hook = {.version = LDPROF_HOOK_VERSION};

/* Weak: a program whose scope lacks ld.so still loads (and is not wrapped). */
extern struct r_debug _r_debug __attribute__((weak));

typedef int (*start_main_fn)(int (*)(int, char **, char **), int, char **, void (*)(void),
			     void (*)(void), void (*)(void), void *);
typedef void (*exit_fn)(int);

/* What we export; the prototypes match glibc's. */
SHIM_EXPORT int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv,
				  void (*init)(void), void (*fini)(void), void (*rtld_fini)(void),
				  void *stack_end);
SHIM_EXPORT __attribute__((noreturn)) void exit(int status);
SHIM_EXPORT __attribute__((noreturn)) void _exit(int status);
SHIM_EXPORT __attribute__((noreturn)) void _Exit(int status);

static struct {
	start_main_fn start_main;
	exit_fn exit, _exit, _Exit;
	int (*main)(int, char **, char **);
	int resolved;
} real;

static void record(uint16_t type, uint32_t u32, uint64_t a)
{
	void (*rec)(uint16_t, uint32_t, uint64_t) = ldprof_preload_hook.record;

	if (rec)
		rec(type, u32, a);
}

/* The definition that the program would have bound to without us. */
static uintptr_t next_definition(const char *name)
{
	uintptr_t self = (uintptr_t)&ldprof_preload_hook, addr;
	int after_self = 0;

	if (!&_r_debug)
		return 0;
	for (struct link_map *m = _r_debug.r_map; m; m = m->l_next) {
		if (!after_self) {
			after_self = shim_lookup(m, LDPROF_HOOK_SYMBOL) == self;
			continue;
		}
		if ((addr = shim_lookup(m, name)))
			return addr;
	}
	return 0;
}

static void resolve(void)
{
	if (real.resolved)
		return;
	real.start_main = (start_main_fn)next_definition("__libc_start_main");
	real.exit = (exit_fn)next_definition("exit");
	real._exit = (exit_fn)next_definition("_exit");
	real._Exit = (exit_fn)next_definition("_Exit");
	real.resolved = 1;
}

/* Without the function we wrap there is no safe way on: say so and stop. */
static __attribute__((noreturn)) void die(const char *what)
{
	static const char msg[] = "ldprof preload: cannot find the real ";

	shim_syscall3(SHIM_SYS_write, 2, (long)msg, sizeof msg - 1);
	shim_syscall3(SHIM_SYS_write, 2, (long)what, (long)shim_strlen(what));
	shim_syscall3(SHIM_SYS_write, 2, (long)"\n", 1);
	for (;;)
		shim_syscall1(SHIM_SYS_exit_group, 127);
}

static int main_wrapper(int argc, char **argv, char **envp)
{
	int ret;

	record(LDPROF_REC_MAIN_ENTER, 0, 0);
	ret = real.main(argc, argv, envp);
	record(LDPROF_REC_MAIN_RETURN, 0, (uint64_t)(int64_t)ret);
	return ret;
}

int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	resolve();
	if (!real.start_main)
		die("__libc_start_main");
	real.main = main;
	record(LDPROF_HOOK_ARGV, (uint32_t)argc, (uint64_t)(uintptr_t)argv); /* follow mode only */
	return real.start_main(main_wrapper, argc, argv, init, fini, rtld_fini, stack_end);
}

static __attribute__((noreturn)) void do_exit(exit_fn *fn, const char *name, uint32_t kind,
					      int status)
{
	resolve();
	if (!*fn)
		die(name);
	/* The audit module keeps the recursion guard, for its owner only (vfork). */
	record(LDPROF_REC_EXIT_CALL, kind, (uint64_t)(int64_t)status);
	(*fn)(status);
	__builtin_unreachable();
}

void exit(int status)
{
	do_exit(&real.exit, "exit", LDPROF_EXIT_EXIT, status);
}

void _exit(int status)
{
	do_exit(&real._exit, "_exit", LDPROF_EXIT__EXIT, status);
}

void _Exit(int status)
{
	do_exit(&real._Exit, "_Exit", LDPROF_EXIT__EXIT_C99, status);
}
