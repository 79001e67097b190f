/* SPDX-License-Identifier: MIT */
/*
 * 32-bit arm (EABI): __vdso_* in LINUX_2.6.  Kernels before 5.8 could
 * export a clock_gettime64 that is broken when the 32-bit clock_gettime is
 * absent (the whole vDSO "patched out" for an unusable arch timer), so the
 * 64-bit entry is trusted only beside the 32-bit one, or beside
 * clock_getres_time64: that entry came in 2026 (the kernel's
 * arch/arm/vdso/vgettimeofday.c), with kernels that build the vDSO
 * without the 32-bit-time entries when COMPAT_32BIT_TIME is off, long
 * after 5.8's fix.
 */
#define ARCH_NAME "arm"
#define ARCH_ELF_MACHINE 40 /* EM_ARM */
#define ARCH_GETTIME64_NEEDS_32 1

#define ARCH_SYMBOLS {                                                 \
	[SYM_CLOCK_GETTIME]   = ARCH_SYM("__vdso_clock_gettime", "LINUX_2.6"), \
	[SYM_CLOCK_GETTIME64] = ARCH_SYM("__vdso_clock_gettime64", "LINUX_2.6"), \
	[SYM_CLOCK_GETRES]    = ARCH_SYM("__vdso_clock_getres", "LINUX_2.6"), \
	[SYM_CLOCK_GETRES64]  = ARCH_SYM("__vdso_clock_getres_time64", "LINUX_2.6"), \
	[SYM_GETTIMEOFDAY]    = ARCH_SYM("__vdso_gettimeofday", "LINUX_2.6"), \
}

/*
 * r7 carries the number, but r7 is the Thumb frame pointer when frames are
 * kept (-O0, -fno-omit-frame-pointer), where gcc refuses it as an operand:
 * it is saved in ip (scratch across calls) around the svc instead.
 */
static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	register long r0 __asm__("r0") = a;
	register long r1 __asm__("r1") = b;
	register long r2 __asm__("r2") = c;
	register long r3 __asm__("r3") = d;
	__asm__ volatile("mov ip, r7\n\t"
			 "mov r7, %1\n\t"
			 "svc 0\n\t"
			 "mov r7, ip"
			 : "+r"(r0)
			 : "r"(n), "r"(r1), "r"(r2), "r"(r3)
			 : "ip", "memory");
	return r0;
}

/* arm's private get_tls syscall: the kernel's copy of TPIDRURO. */
#define ARCH_HAS_SYSCALL_TP 1
static inline void *arch_syscall_thread_pointer(void)
{
	return (void *)arch_syscall4(__ARM_NR_get_tls, 0, 0, 0, 0);
}

#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
#if __ARM_ARCH >= 7 || defined(__ARM_ARCH_6K__) || defined(__ARM_ARCH_6ZK__)
	void *tp;
	__asm__("mrc p15, 0, %0, c13, c0, 3" : "=r"(tp)); /* TPIDRURO */
	return tp;
#else
	/* Pre-v6K cores: the kernel's kuser helper at a fixed address. */
	return ((void *(*)(void))0xffff0fe0)();
#endif
}
