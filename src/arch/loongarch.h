/* SPDX-License-Identifier: MIT */
/* LoongArch64: __vdso_* in LINUX_5.10; may carry only DT_GNU_HASH. */
#define ARCH_NAME "loongarch64"
#define ARCH_ELF_MACHINE 258 /* EM_LOONGARCH */

#define ARCH_SYMBOLS {                                               \
	[SYM_CLOCK_GETTIME] = ARCH_SYM("__vdso_clock_gettime", "LINUX_5.10"),  \
	[SYM_CLOCK_GETRES]  = ARCH_SYM("__vdso_clock_getres", "LINUX_5.10"),  \
	[SYM_GETTIMEOFDAY]  = ARCH_SYM("__vdso_gettimeofday", "LINUX_5.10"),  \
	[SYM_GETCPU]        = ARCH_SYM("__vdso_getcpu", "LINUX_5.10"),  \
	[SYM_GETRANDOM]     = ARCH_SYM("__vdso_getrandom", "LINUX_5.10"),  \
}

#define LOONGARCH_SYSCALL_CLOBBERS \
	"$t0", "$t1", "$t2", "$t3", "$t4", "$t5", "$t6", "$t7", "$t8", "memory"

static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long a7 __asm__("$a7") = n;
	register long a0 __asm__("$a0") = a;
	register long a1 __asm__("$a1") = b;
	register long a2 __asm__("$a2") = c;
	register long a3 __asm__("$a3") = d;
	register long a4 __asm__("$a4") = e;
	register long a5 __asm__("$a5") = f;
	__asm__ volatile("syscall 0"
			 : "+r"(a0)
			 : "r"(a7), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5)
			 : LOONGARCH_SYSCALL_CLOBBERS);
	return a0;
}
#define ARCH_HAS_SYSCALL6 1

#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	void *tp;
	__asm__("move %0, $tp" : "=r"(tp));
	return tp;
}
