/*
 * Constructor and destructor trampolines, one pair per object.
 *
 * ld.so calls an object's DT_INIT/DT_INIT_ARRAY entries with (argc, argv,
 * envp) and its DT_FINI/DT_FINI_ARRAY entries with nothing. The audit module
 * points those entries at stub N of the object; the stub loads N and jumps to
 * the common C code, which times the original functions. Stubs have a fixed
 * size so that the address of stub N is computed, not stored in a table that
 * would need relocating.
 */
#include "shim-limits.h"

	.text

	.globl	ldprof_init_stubs
	.hidden	ldprof_init_stubs
	.type	ldprof_init_stubs, @function
	.p2align 4
ldprof_init_stubs:
	.set	n, 0
	.rept	LDPROF_MAX_OBJS
	.p2align 4
	endbr64
	movl	$n, %ecx		/* 4th argument after argc, argv, envp */
	jmp	ldprof_init_common
	.set	n, n + 1
	.endr
	.size	ldprof_init_stubs, . - ldprof_init_stubs

	.globl	ldprof_fini_stubs
	.hidden	ldprof_fini_stubs
	.type	ldprof_fini_stubs, @function
	.p2align 4
ldprof_fini_stubs:
	.set	n, 0
	.rept	LDPROF_MAX_OBJS
	.p2align 4
	endbr64
	movl	$n, %edi
	jmp	ldprof_fini_common
	.set	n, n + 1
	.endr
	.size	ldprof_fini_stubs, . - ldprof_fini_stubs

	.section .note.GNU-stack, "", @progbits
