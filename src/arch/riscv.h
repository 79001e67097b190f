/* SPDX-License-Identifier: MIT */
/*
 * RISC-V: __vdso_* in LINUX_4.15.  rv32 has no 32-bit time at all: its
 * __vdso_clock_gettime and __vdso_clock_getres (where a kernel builds them)
 * take the 64-bit __kernel_timespec, so they fill the 64-bit slots of the
 * table; gettimeofday keeps the kernel's 32-bit-long timeval there.  New
 * kernels may emit only DT_GNU_HASH.
 */
#if __riscv_xlen == 64
#define ARCH_NAME "riscv64"
#else
#define ARCH_NAME "riscv32"
#endif
#define ARCH_ELF_MACHINE 243 /* EM_RISCV */

#if __riscv_xlen == 64
#define RISCV_GETTIME SYM_CLOCK_GETTIME
#define RISCV_GETRES SYM_CLOCK_GETRES
#else
#define RISCV_GETTIME SYM_CLOCK_GETTIME64
#define RISCV_GETRES SYM_CLOCK_GETRES64
#endif
#define ARCH_SYMBOLS {                                               \
	[RISCV_GETTIME]     = ARCH_SYM("__vdso_clock_gettime", "LINUX_4.15"),  \
	[RISCV_GETRES]      = ARCH_SYM("__vdso_clock_getres", "LINUX_4.15"),  \
	[SYM_GETTIMEOFDAY]  = ARCH_SYM("__vdso_gettimeofday", "LINUX_4.15"),  \
	[SYM_GETCPU]        = ARCH_SYM("__vdso_getcpu", "LINUX_4.15"),  \
	[SYM_GETRANDOM]     = ARCH_SYM("__vdso_getrandom", "LINUX_4.15"),  \
}

/*
 * __vdso_getcpu is a bare ecall of getcpu (arch/riscv/kernel/vdso/getcpu.S,
 * "for now, just do the syscall"): through it a call costs the syscall and
 * an indirect call, so the library makes the syscall itself.
 */
#define ARCH_VDSO_GETCPU_IS_SYSCALL 1

#define ARCH_HAS_SYSCALL6 1
static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long a7 __asm__("a7") = n;
	register long a0 __asm__("a0") = a;
	register long a1 __asm__("a1") = b;
	register long a2 __asm__("a2") = c;
	register long a3 __asm__("a3") = d;
	register long a4 __asm__("a4") = e;
	register long a5 __asm__("a5") = f;
	__asm__ volatile("ecall"
			 : "+r"(a0)
			 : "r"(a7), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5)
			 : "memory");
	return a0;
}

#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	void *tp;
	__asm__("mv %0, tp" : "=r"(tp));
	return tp;
}
