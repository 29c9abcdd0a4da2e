/* The unwinder's life and the names of frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stack/stack-int.h"

/* libunwind's default cache of register rules holds 128 addresses; a startup touches thousands. */
#define RS_CACHE_SIZE 8192

int stack_unwinder_new(struct stack_unwinder **out, struct errbuf *err)
{
	struct stack_unwinder *u;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return set_err(err, EINVAL, "libelf: %s", elf_errmsg(-1));
	u = xcalloc(1, sizeof(*u));
	u->as = unw_create_addr_space(&stack_accessors, 0);
	if (!u->as) {
		free(u);
		return set_err(err, ENOMEM, "libunwind: cannot create an address space");
	}
	unw_set_caching_policy(u->as, UNW_CACHE_GLOBAL);
	unw_set_cache_size(u->as, RS_CACHE_SIZE, 0);
	*out = u;
	return 0;
}

void stack_unwinder_free(struct stack_unwinder *u)
{
	if (!u)
		return;
	unw_destroy_addr_space(u->as);
	for (size_t i = 0; i < u->nmaps; i++)
		free((char *)u->maps[i].path);
	free(u->maps);
	free(u->spans);
	strmap_free(&u->objs, stack_obj_free);
	stack_obj_free(u->vdso);
	free(u);
}

int stack_symbolize(struct stack_unwinder *u, const char *path, uint64_t file_offset,
		    struct stack_sym *out, struct errbuf *err)
{
	struct stack_obj *o = !strcmp(path, "[vdso]") ? stack_obj_vdso(u) : stack_obj_get(u, path);
	uint64_t vaddr;

	*out = (struct stack_sym){NULL, o->base, file_offset, SYM_NONE};
	if (o->open_err)
		return set_err(err, o->open_err, "%s", o->open_msg);
	if (!stack_obj_offset_to_vaddr(o, file_offset, &vaddr))
		return set_err(err, ERANGE, "%s: offset %#lx is in no load segment", o->path,
			       (unsigned long)file_offset);
	out->offset = vaddr;
	if (!o->syms_loaded)
		stack_syms_load(o);
	const struct stack_symbol *s = stack_syms_find(o, vaddr);
	if (s)
		*out = (struct stack_sym){s->name, o->base, vaddr - s->start, o->sym_source};
	return 0;
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
