/*
 * An object's function names, from the best table it has: its own .symtab,
 * else the .symtab of its separate debug file, else .dynsym. They are kept
 * as one array sorted by address with aliases reduced to one name, so a
 * lookup is a binary search.
 */
#include <stdlib.h>
#include <string.h>

#include "stack/stack-int.h"

/* Whether section ndx of elf holds code. */
static bool in_code_section(Elf *elf, GElf_Section ndx)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, ndx);

	return scn && gelf_getshdr(scn, &sh) && sh.sh_flags & SHF_EXECINSTR;
}

/*
 * Functions, and the untyped labels that hand-written assembly defines in
 * code (ld.so's _start and _dl_start_user), but not the assembler's local
 * labels.
 */
static bool is_code_symbol(Elf *elf, const GElf_Sym *s, const char *name)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE || s->st_value == 0)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	return type == STT_NOTYPE && name[0] != '.' && name[0] != '$' &&
	       in_code_section(elf, s->st_shndx);
}

/* The first section of type in elf, or NULL. */
static Elf_Scn *find_section(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

static unsigned leading_underscores(const char *name)
{
	unsigned n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/*
 * Which of two aliases at one address names it: the one with a size, then
 * a function over a label, then a global over a weak or local one, then fewer leading underscores,
 * then the longer name, then the alphabetically first (so the choice never depends on table order).
 * The same preferences as perf's, so that the two tools name a function alike.
 */
struct candidate {
	GElf_Sym sym;
	const char *name;
};

static int rank(const struct candidate *c)
{
	int bind = GELF_ST_BIND(c->sym.st_info);

	return (c->sym.st_size != 0) * 8 + (GELF_ST_TYPE(c->sym.st_info) != STT_NOTYPE) * 4 +
	       (bind == STB_GLOBAL) * 2 + (bind != STB_WEAK);
}

static int by_preference(const struct candidate *a, const struct candidate *b)
{
	if (rank(a) != rank(b))
		return rank(b) - rank(a);
	unsigned ua = leading_underscores(a->name), ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	size_t la = strlen(a->name), lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_address(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;

	if (a->sym.st_value != b->sym.st_value)
		return a->sym.st_value < b->sym.st_value ? -1 : 1;
	return by_preference(a, b);
}

/* The code symbols of one symbol table section, or 0 found. */
static size_t collect(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct candidate **out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = 0, cap = 0;
	struct candidate *c = NULL;

	if (!data || !sh->sh_entsize)
		return 0;
	size_t count = data->d_size / sh->sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		if (!gelf_getsym(data, (int)i, &s) ||
		    !(name = elf_strptr(elf, sh->sh_link, s.st_name)) || !*name ||
		    !is_code_symbol(elf, &s, name))
			continue;
		GROW(c, cap, n + 1);
		c[n++] = (struct candidate){s, name};
	}
	*out = c;
	return n;
}

/*
 * Sorted, one name per address, each symbol ending at its size or, when it
 * has none (hand-written assembly), at the next symbol.
 */
static void build_table(struct stack_obj *o, struct candidate *c, size_t n)
{
	qsort(c, n, sizeof(*c), by_address);
	o->syms = xcalloc(n ? n : 1, sizeof(*o->syms));
	for (size_t i = 0; i < n; i++) {
		if (o->nsyms && o->syms[o->nsyms - 1].start == c[i].sym.st_value)
			continue; /* an alias of the preferred one before it */
		o->syms[o->nsyms++] = (struct stack_symbol){
			c[i].sym.st_value, c[i].sym.st_value + c[i].sym.st_size, c[i].name};
	}
	for (size_t i = 0; i < o->nsyms; i++) {
		struct stack_symbol *s = &o->syms[i];
		uint64_t next = i + 1 < o->nsyms ? o->syms[i + 1].start : UINT64_MAX;
		if (s->end == s->start || s->end > next)
			s->end = next;
	}
}

/* Load the symbols of one table type of elf; false if it has none. */
static bool load_from(struct stack_obj *o, Elf *elf, GElf_Word type)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, type, &sh);
	struct candidate *c = NULL;

	if (!scn)
		return false;
	size_t n = collect(elf, scn, &sh, &c);
	if (n)
		build_table(o, c, n);
	free(c);
	return n != 0;
}

void stack_syms_load(struct stack_obj *o)
{
	o->syms_loaded = true;
	o->sym_source = SYM_NONE;
	if (o->open_err)
		return;
	if (load_from(o, o->elf, SHT_SYMTAB)) {
		o->sym_source = SYM_SYMTAB;
		return;
	}
	o->debug_fd = stack_debug_open(o, &o->debug_elf);
	if (o->debug_elf && load_from(o, o->debug_elf, SHT_SYMTAB)) {
		o->sym_source = SYM_DEBUGFILE;
		return;
	}
	if (load_from(o, o->elf, SHT_DYNSYM))
		o->sym_source = SYM_DYNSYM;
}

const struct stack_symbol *stack_syms_find(const struct stack_obj *o, uint64_t vaddr)
{
	size_t lo = 0, hi = o->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= o->syms[lo - 1].end)
		return NULL;
	return &o->syms[lo - 1];
}
