/* SPDX-License-Identifier: MIT */
/*
 * sparc64 and sparc32: __vdso_* in LINUX_2.6, REALTIME/MONOTONIC and the
 * COARSE clocks only (the other clocks enter the kernel from inside the
 * vDSO, so the library makes the syscall directly).  The kernel patches
 * the unsuffixed entries at boot for TICK or STICK; the *_stick variants
 * must never be called: they hang on CPUs without STICK (QEMU's sun4u).
 * Syscall errors: carry set, positive errno in %o0.
 */
#ifdef __arch64__
#define ARCH_NAME "sparc64"
#define ARCH_ELF_MACHINE 43 /* EM_SPARCV9 */
#define SPARC_TRAP "ta 0x6d\n\t"
#define SPARC_BRANCH_ON_CARRY "bcs,a,pn %%xcc, 1f\n\t"
#else
#define ARCH_NAME "sparc"
#define ARCH_ELF_MACHINE 2 /* EM_SPARC */
#define ARCH_ELF_MACHINE_ALT 18 /* EM_SPARC32PLUS: a v8plus-built vdso32 */
#define SPARC_TRAP "ta 0x10\n\t"
#define SPARC_BRANCH_ON_CARRY "bcs,a 1f\n\t"
#endif

#ifdef __arch64__
/* The kernel's timeval has an int tv_usec here (__kernel_suseconds_t). */
#define ARCH_KERNEL_SUSECONDS int
#endif

#define ARCH_VDSO_CLOCKS (CLOCK_BIT(0) | CLOCK_BIT(1) | CLOCK_BIT(5) | CLOCK_BIT(6))

/*
 * Kernels with the generic vDSO (arch/sparc/vdso/vclock_gettime.c) add
 * clock_getres to both and clock_gettime64 to sparc32's vdso32; older
 * ones have only the first two.
 */
#ifdef __arch64__
#define SPARC_GETTIME64_SYMBOL
#else
#define SPARC_GETTIME64_SYMBOL [SYM_CLOCK_GETTIME64] = ARCH_SYM("__vdso_clock_gettime64", "LINUX_2.6"),
#endif
#define ARCH_SYMBOLS {                                              \
	[SYM_CLOCK_GETTIME] = ARCH_SYM("__vdso_clock_gettime", "LINUX_2.6"),  \
	SPARC_GETTIME64_SYMBOL                                          \
	[SYM_CLOCK_GETRES]  = ARCH_SYM("__vdso_clock_getres", "LINUX_2.6"),  \
	[SYM_GETTIMEOFDAY]  = ARCH_SYM("__vdso_gettimeofday", "LINUX_2.6"),  \
}

/*
 * What the trap may change besides %o0/%o1 and the condition codes: the
 * kernel's syscall path does not preserve the floating-point registers
 * for the caller (glibc's and the kernel's own sparc syscall wrappers
 * declare all of them clobbered), so no FP value may live in one across
 * the trap.  V9 CPUs (sparc64, and sparc32 built for v8plus, gcc's
 * default there) have %f0-%f62 as doubles, V8 ones %f0-%f31.
 */
#define SPARC_FP_CLOBBERS_32                                                  \
	"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10",     \
	"f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20", \
	"f21", "f22", "f23", "f24", "f25", "f26", "f27", "f28", "f29", "f30", "f31"
#ifdef __sparc_v9__
#define SPARC_FP_CLOBBERS SPARC_FP_CLOBBERS_32,                               \
	"f32", "f34", "f36", "f38", "f40", "f42", "f44", "f46", "f48", "f50",  \
	"f52", "f54", "f56", "f58", "f60", "f62"
#else
#define SPARC_FP_CLOBBERS SPARC_FP_CLOBBERS_32
#endif

static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	register long g1 __asm__("g1") = n;
	register long o0 __asm__("o0") = a;
	register long o1 __asm__("o1") = b;
	register long o2 __asm__("o2") = c;
	register long o3 __asm__("o3") = d;
	/* The annulled delay slot negates %o0 only when the carry says error. */
	__asm__ volatile(SPARC_TRAP
			 SPARC_BRANCH_ON_CARRY
			 " sub %%g0, %%o0, %%o0\n"
			 "1:"
			 : "+r"(o0), "+r"(o1), "+r"(g1)
			 : "r"(o2), "r"(o3)
			 : "cc", "memory", SPARC_FP_CLOBBERS);
	return o0;
}

#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	register void *g7 __asm__("g7");
	__asm__("" : "=r"(g7));
	return g7;
}
