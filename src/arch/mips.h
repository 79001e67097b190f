/* SPDX-License-Identifier: MIT */
/*
 * MIPS o32, n32 and n64: __vdso_* in LINUX_2.6.  o32 and n32 have 32-bit
 * time in the native entries and clock_gettime64 beside them.  Kernels
 * before the generic vDSO of 5.4 return -ENOSYS from clock_gettime for a
 * clock it cannot read (src/vdso.c, entry_may_decline).  Syscall errors
 * come back in a3.
 */
#if _MIPS_SIM == _ABIO32
#define ARCH_NAME "mips-o32"
#elif _MIPS_SIM == _ABIN32
#define ARCH_NAME "mips-n32"
#else
#define ARCH_NAME "mips64"
#endif
#define ARCH_ELF_MACHINE 8 /* EM_MIPS */

/* Kernels before the generic vDSO (5.4) answer -ENOSYS for a clock they cannot read. */
#define ARCH_VDSO_MAY_DECLINE 1

#define ARCH_SYMBOLS {                                                 \
	[SYM_CLOCK_GETTIME]   = ARCH_SYM("__vdso_clock_gettime", "LINUX_2.6"), \
	[SYM_CLOCK_GETTIME64] = ARCH_SYM("__vdso_clock_gettime64", "LINUX_2.6"), \
	[SYM_CLOCK_GETRES]    = ARCH_SYM("__vdso_clock_getres", "LINUX_2.6"), \
	[SYM_CLOCK_GETRES64]  = ARCH_SYM("__vdso_clock_getres_time64", "LINUX_2.6"), /* 7.0, o32/n32 */ \
	[SYM_GETTIMEOFDAY]    = ARCH_SYM("__vdso_gettimeofday", "LINUX_2.6"), \
}

#if __mips_isa_rev >= 6
#define MIPS_HILO_CLOBBERS
#else
#define MIPS_HILO_CLOBBERS , "hi", "lo"
#endif

/*
 * The number is moved into $2 by the instruction right before `syscall`:
 * a restarted syscall re-executes that instruction, $2 having been
 * overwritten by the first attempt's result.
 */
static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	register long v0 __asm__("$2");
	register long a0 __asm__("$4") = a;
	register long a1 __asm__("$5") = b;
	register long a2 __asm__("$6") = c;
	register long a3 __asm__("$7") = d;
	__asm__ volatile(".set push\n\t.set noreorder\n\t"
			 "move $2, %2\n\t"
			 "syscall\n\t"
			 ".set pop"
			 : "=&r"(v0), "+r"(a3)
			 : "r"(n), "r"(a0), "r"(a1), "r"(a2)
			 : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15",
			   "$24", "$25", "memory" MIPS_HILO_CLOBBERS);
	return a3 ? -v0 : v0;
}

/*
 * UserLocal via rdhwr $29, into $3: the register the kernel's fast
 * emulation handles on cores without the hardware register.
 */
#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	register void *v1 __asm__("$3");
	__asm__(".set push\n\t.set mips32r2\n\trdhwr $3, $29\n\t.set pop" : "=r"(v1));
	return v1;
}
