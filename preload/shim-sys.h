/*
 * Raw system calls and the clock for the freestanding shim.
 *
 * The audit module runs inside ld.so before libc exists (and in its own link
 * namespace, where linking libc would load a second copy, ~800 us). So it
 * makes its few system calls directly. None of these touch errno: the kernel
 * returns -errno in rax and we keep it there.
 */
#ifndef LDPROF_SHIM_SYS_H
#define LDPROF_SHIM_SYS_H

#include <stdint.h>
#include <stddef.h>

#include "ldprof-syscall.h"

#define SHIM_HIDDEN __attribute__((visibility("hidden")))
#define SHIM_EXPORT __attribute__((visibility("default")))

/* x86_64 system call numbers used by the shim. */
enum {
	SHIM_SYS_write = 1,
	SHIM_SYS_open = 2,
	SHIM_SYS_close = 3,
	SHIM_SYS_fstat = 5,
	SHIM_SYS_mmap = 9,
	SHIM_SYS_mprotect = 10,
	SHIM_SYS_munmap = 11,
	SHIM_SYS_mincore = 27,
	SHIM_SYS_shmat = 30,
	SHIM_SYS_shmctl = 31,
	SHIM_SYS_getpid = 39,
	SHIM_SYS_getcwd = 79,
	SHIM_SYS_getrusage = 98,
	SHIM_SYS_getppid = 110,
	SHIM_SYS_exit_group = 231,
};

static inline int shim_getpid(void)
{
	return (int)shim_syscall1(SHIM_SYS_getpid, 0);
}

/*
 * Where glibc's struct pthread keeps the thread's kernel tid on x86-64
 * (0x2d0 in glibc 2.36, Debian 12's, and the releases around it). Since
 * glibc 2.34 ld.so sets it (set_tid_address, in __tls_init_tp) together
 * with the thread pointer, before it loads any audit module; fork writes
 * the child's own tid there (CLONE_CHILD_SETTID), pthread_create a new
 * thread's. The thread pointer is always set when an audit module runs
 * (ld.so sets up TLS first, for the modules' own use), so the load cannot
 * fault. The shim checks the value against getpid() once at setup and
 * uses it only if they agree, so another layout or an older glibc costs a
 * system call per record, never a wrong answer.
 */
#define SHIM_TCB_TID_OFFSET 0x2d0

/* The calling thread's tid as glibc stored it: one load, no system call. */
static inline int shim_tcb_tid(void)
{
	int tid;
	__asm__ volatile("movl %%fs:%c1, %0" : "=r"(tid) : "i"(SHIM_TCB_TID_OFFSET));
	return tid;
}

/*
 * A word of glibc's TCB that nothing uses (tcbhead_t's
 * unused_vgetcpu_cache[0] on x86-64, zero in every thread), where
 * la_version leaves its timestamp for the first la_objopen, which takes
 * it and zeroes the word again before the program runs. The shim has no
 * memory of its own before then that would not cost a page fault
 * (docs/design.md, "what the shim costs"); the TCB's page is ld.so's and
 * already present. The thread pointer is set (see above).
 */
#define SHIM_TCB_SCRATCH_OFFSET 0x38

static inline uint64_t shim_scratch_get(void)
{
	uint64_t v;
	__asm__ volatile("movq %%fs:%c1, %0" : "=r"(v) : "i"(SHIM_TCB_SCRATCH_OFFSET));
	return v;
}

static inline void shim_scratch_set(uint64_t v)
{
	__asm__ volatile("movq %0, %%fs:%c1" : : "r"(v), "i"(SHIM_TCB_SCRATCH_OFFSET) : "memory");
}

/*
 * The invariant TSC: ~20 ns to read, no system call and no vDSO lookup. The
 * launcher checks constant_tsc/nonstop_tsc and calibrates ticks per second
 * against CLOCK_MONOTONIC over the whole session.
 */
static inline uint64_t shim_now(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* Freestanding string helpers; -ffreestanding keeps gcc from calling libc. */
static inline size_t shim_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static inline int shim_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static inline int shim_startswith(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

#endif
