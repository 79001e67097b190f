/* SPDX-License-Identifier: MIT */
/* x86_64 and x32: one vDSO family, LINUX_2.6, 64-bit time in both. */
#ifdef __ILP32__
#define ARCH_NAME "x32"
#else
#define ARCH_NAME "x86_64"
#endif
#define ARCH_ELF_MACHINE 62 /* EM_X86_64 */

#ifdef __ILP32__
/*
 * x32's vDSO is the x86_64 code and its time syscalls are x86_64's: the
 * kernel's long is 64-bit (time() in %rax, a 16-byte timeval) where the
 * C long is 32-bit.
 */
#define ARCH_KERNEL_LONG long long
#endif

#define ARCH_SYMBOLS {                                              \
	[SYM_CLOCK_GETTIME] = ARCH_SYM("__vdso_clock_gettime", "LINUX_2.6"),  \
	[SYM_CLOCK_GETRES]  = ARCH_SYM("__vdso_clock_getres", "LINUX_2.6"),  \
	[SYM_GETTIMEOFDAY]  = ARCH_SYM("__vdso_gettimeofday", "LINUX_2.6"),  \
	[SYM_TIME]          = ARCH_SYM("__vdso_time", "LINUX_2.6"),  \
	[SYM_GETCPU]        = ARCH_SYM("__vdso_getcpu", "LINUX_2.6"),  \
	[SYM_GETRANDOM]     = ARCH_SYM("__vdso_getrandom", "LINUX_2.6"),  \
}

/* x32 syscall numbers from <asm/unistd.h> already carry __X32_SYSCALL_BIT. */
#define ARCH_HAS_SYSCALL6 1
static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#ifndef __ILP32__
/* arch_prctl(ARCH_GET_FS): the fs base, which %fs:0 points back to. */
#define ARCH_HAS_SYSCALL_TP 1
static inline void *arch_syscall_thread_pointer(void)
{
	unsigned long fs = 0;
	return arch_syscall6(__NR_arch_prctl, 0x1003 /* ARCH_GET_FS */, (long)&fs, 0, 0, 0, 0) == 0
		       ? (void *)fs : (void *)0;
}
#endif

/* %fs:0 holds the TCB's self pointer in glibc and musl: the thread pointer. */
#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	void *tp;
#ifdef __ILP32__
	__asm__("movl %%fs:0, %0" : "=r"(tp));
#else
	__asm__("movq %%fs:0, %0" : "=r"(tp));
#endif
	return tp;
}
