/*
 * libunwind's remote accessors over one captured sample: registers from
 * the sample, memory from its stack bytes or, for an address inside a
 * loaded object, from that object's file (its .eh_frame_hdr and .eh_frame
 * are in a read-only segment, which perf does not report without
 * mmap_data, so objects are found by their whole load span, not by the
 * reported mappings). Nothing else of the process is known: any other
 * read fails, and libunwind then ends the walk.
 */
#include <string.h>

#include "stack/stack-int.h"

/* libunwind exports it for remote unwinders but declares it only internally. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

const struct stack_span *stack_span_find(struct stack_ctx *c, uint64_t addr)
{
	const struct stack_unwinder *u = c->u;

	if (c->last && addr >= c->last->lo && addr < c->last->hi)
		return c->last;
	size_t lo = 0, hi = u->nspans;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->spans[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= u->spans[lo - 1].hi)
		return NULL;
	return c->last = &u->spans[lo - 1];
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	const struct stack_span *s = stack_span_find(arg, ip);

	if (!s || !s->obj->has_table)
		return -UNW_ENOINFO;
	const struct stack_obj *o = s->obj;
	unw_dyn_info_t di = {
		.start_ip = s->bias + o->text_lo,
		.end_ip = s->bias + o->text_hi,
		.format = UNW_INFO_FORMAT_REMOTE_TABLE,
		.u.rti.segbase = s->bias + o->hdr_vaddr,
		.u.rti.table_data = s->bias + o->table_vaddr,
		/* in words, though each entry is two 4-byte offsets */
		.u.rti.table_len = o->fde_count * 8 / sizeof(unw_word_t),
	};
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

/* dwarf_search_unwind_table's info lives in libunwind's own pool, which it frees itself. */
static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as, (void)pi, (void)arg;
}

/* No JIT registers unwind info in a process that is starting up. */
static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

/* A word from the captured stack: all 8 bytes must be there. */
static bool read_stack(const struct stack_sample *s, uint64_t addr, unw_word_t *val)
{
	uint64_t sp = s->regs[PERF_REG_X86_SP];

	if (addr < sp || s->stack_len < sizeof(*val) || addr - sp > s->stack_len - sizeof(*val))
		return false;
	memcpy(val, s->stack + (addr - sp), sizeof(*val));
	return true;
}

/* A word from an object's file. */
static bool read_object(struct stack_ctx *c, uint64_t addr, unw_word_t *val)
{
	const struct stack_span *s = stack_span_find(c, addr);
	uint64_t v;

	if (!s || !stack_obj_word(s->obj, addr - s->bias, &v))
		return false;
	*val = v;
	return true;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	struct stack_ctx *c = arg;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (read_stack(c->sample, addr, val) || read_object(c, addr, val))
		return 0;
	return -UNW_EINVAL;
}

/* libunwind's x86-64 register numbers (UNW_X86_64_RAX...) as perf's. */
static int perf_reg(unw_regnum_t reg)
{
	static const int map[] = {
		[UNW_X86_64_RAX] = PERF_REG_X86_AX,  [UNW_X86_64_RDX] = PERF_REG_X86_DX,
		[UNW_X86_64_RCX] = PERF_REG_X86_CX,  [UNW_X86_64_RBX] = PERF_REG_X86_BX,
		[UNW_X86_64_RSI] = PERF_REG_X86_SI,  [UNW_X86_64_RDI] = PERF_REG_X86_DI,
		[UNW_X86_64_RBP] = PERF_REG_X86_BP,  [UNW_X86_64_RSP] = PERF_REG_X86_SP,
		[UNW_X86_64_R8] = PERF_REG_X86_R8,   [UNW_X86_64_R9] = PERF_REG_X86_R9,
		[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
		[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
		[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
		[UNW_X86_64_RIP] = PERF_REG_X86_IP,
	};

	return reg >= 0 && (size_t)reg < ARRAY_SIZE(map) ? map[reg] : -1;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	const struct stack_sample *s = ((struct stack_ctx *)arg)->sample;
	int r = perf_reg(reg);

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg == UNW_X86_64_RIP) {
		*val = s->ip; /* the sample's own ip, even without IP in the mask */
		return 0;
	}
	if (r < 0 || !(s->regs_mask >> r & 1))
		return -UNW_EBADREG;
	*val = s->regs[r];
	return 0;
}

/* perf does not capture the floating-point registers; CFI for them is never needed to unwind. */
static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cursor, void *arg)
{
	(void)as, (void)cursor, (void)arg;
	return -UNW_EINVAL;
}

/* Names come from stack_symbolize, which knows the object's best table. */
static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *offp, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)offp, (void)arg;
	return -UNW_EINVAL;
}

unw_accessors_t stack_accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};
