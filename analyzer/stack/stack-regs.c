/* The sample's registers: which ones the sampler asks perf for, and unpacking them. */
#include <errno.h>

#include "stack/stack.h"

/*
 * Every general-purpose register of a 64-bit task: the unwinder needs IP, SP
 * and the callee-saved ones, but CFI may name any of them. The segment
 * registers are left out: perf refuses DS, ES, FS and GS for 64-bit tasks.
 */
uint64_t stack_regs_mask(void)
{
	static const int regs[] = {
		PERF_REG_X86_AX,  PERF_REG_X86_BX,  PERF_REG_X86_CX,  PERF_REG_X86_DX,
		PERF_REG_X86_SI,  PERF_REG_X86_DI,  PERF_REG_X86_BP,  PERF_REG_X86_SP,
		PERF_REG_X86_IP,  PERF_REG_X86_R8,  PERF_REG_X86_R9,  PERF_REG_X86_R10,
		PERF_REG_X86_R11, PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
		PERF_REG_X86_R15,
	};
	uint64_t mask = 0;

	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		mask |= 1ull << regs[i];
	return mask;
}

int stack_regs_unpack(struct stack_sample *sample, uint64_t mask, const uint64_t *packed, size_t n)
{
	size_t used = 0;

	if (mask >> PERF_REG_X86_64_MAX || (size_t)__builtin_popcountll(mask) != n)
		return -EINVAL;
	for (int r = 0; r < PERF_REG_X86_64_MAX; r++)
		sample->regs[r] = mask >> r & 1 ? packed[used++] : 0;
	sample->regs_mask = mask;
	return 0;
}
