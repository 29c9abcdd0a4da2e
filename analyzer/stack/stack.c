/* The unwinder: stubs until the libunwind remote unwinder lands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stack/stack.h"

struct stack_unwinder {
	int unused;
};

int stack_unwinder_new(struct stack_unwinder **out, struct errbuf *err)
{
	*out = xcalloc(1, sizeof(**out));
	(void)err;
	return 0;
}

void stack_unwinder_free(struct stack_unwinder *u)
{
	free(u);
}

int stack_unwind(struct stack_unwinder *u, const struct stack_map *maps, size_t nmaps,
		 const struct stack_sample *sample, struct stack_frame *frames, int max,
		 bool *complete, struct errbuf *err)
{
	(void)u, (void)maps, (void)nmaps, (void)sample, (void)frames, (void)max;
	*complete = false;
	return set_err(err, ENOSYS, "unwinding: not implemented yet");
}

int stack_symbolize(struct stack_unwinder *u, const char *path, uint64_t file_offset,
		    struct stack_sym *out, struct errbuf *err)
{
	(void)u;
	*out = (struct stack_sym){
		.object = path_basename(path), .offset = file_offset, .source = SYM_NONE};
	return set_err(err, ENOSYS, "%s: symbols: not implemented yet", path);
}

const char *stack_sym_source_name(enum stack_sym_source source)
{
	switch (source) {
	case SYM_SYMTAB:
		return "symtab";
	case SYM_DEBUGFILE:
		return "debug";
	case SYM_DYNSYM:
		return "dynsym";
	case SYM_NONE:
		break;
	}
	return "none";
}
