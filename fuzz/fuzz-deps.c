/*
 * libFuzzer target for `ldprof deps`: the input is an ELF file. It is
 * parsed as elfobj_open would parse it (every table checked), and when it
 * is a dynamic program, loaded and bound as ldprof deps would: its
 * DT_NEEDED entries are searched for in this machine's real directories,
 * so the binding simulation runs against real libraries too.
 *
 * Nothing here may crash, hang or leak on any input; the sanitizers and
 * libFuzzer's limits check that. Build and run with `make fuzz`.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ldso/resolve.h"
#include "ldso/symbind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The loader's environment is kept between inputs (libc is parsed once),
   and rebuilt now and then so that the memo of paths tried stays small. */
static struct ldenv env;
static unsigned uses;

static struct ldenv *environment(void)
{
	static const struct ldenv_options opt = {.preload_file = "/nonexistent"};
	struct errbuf err;

	if (uses && uses % 5000 == 0) {
		ldenv_free(&env);
		uses = 0;
	}
	if (!uses++ && ldenv_init(&env, &opt, &err))
		abort();
	return &env;
}

static void simulate(struct elfobj *elf)
{
	struct process p;
	struct bindset bs;
	struct bind_options bo = {false};
	struct errbuf err;

	if (process_load_elf(environment(), "fuzz-input", elf, "/nonexistent/fuzz", &p, &err))
		return;
	bind_process(&p, &bo, &bs);
	bindset_free(&bs);
	process_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfobj *elf;
	struct errbuf err;

	if (elfobj_open_memory("fuzz-input", data, size, &elf, &err))
		return 0;
	if (elf->dyn)
		simulate(elf);
	elfobj_close(elf);
	return 0;
}
