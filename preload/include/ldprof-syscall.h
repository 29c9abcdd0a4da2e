/*
 * Raw x86_64 system calls, for code that must not touch errno or call
 * libc: the freestanding shim (shim-sys.h), and the launcher's child,
 * which shares ldprof's memory until it execs (analyzer/run/spawn.c). The
 * kernel returns -errno in rax and it stays there.
 */
#ifndef LDPROF_SYSCALL_H
#define LDPROF_SYSCALL_H

static inline long shim_syscall1(long n, long a)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a) : "rcx", "r11", "memory");
	return r;
}

static inline long shim_syscall3(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static inline long shim_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

#endif
