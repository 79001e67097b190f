/* SPDX-License-Identifier: MIT */
/* arm64: __kernel_* names in LINUX_2.6.39; no time or getcpu entry. */
#define ARCH_NAME "aarch64"
#define ARCH_ELF_MACHINE 183 /* EM_AARCH64 */

#define ARCH_SYMBOLS {                                                  \
	[SYM_CLOCK_GETTIME] = ARCH_SYM("__kernel_clock_gettime", "LINUX_2.6.39"), \
	[SYM_CLOCK_GETRES]  = ARCH_SYM("__kernel_clock_getres", "LINUX_2.6.39"), \
	[SYM_GETTIMEOFDAY]  = ARCH_SYM("__kernel_gettimeofday", "LINUX_2.6.39"), \
	[SYM_GETRANDOM]     = ARCH_SYM("__kernel_getrandom", "LINUX_2.6.39"), \
}

#define ARCH_HAS_SYSCALL6 1
static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	void *tp;
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
	return tp;
}
