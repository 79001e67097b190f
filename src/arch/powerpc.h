/* SPDX-License-Identifier: MIT */
/*
 * powerpc (32 and 64, either byte order): __kernel_* in LINUX_2.6.15,
 * ppc32's clock_gettime64 (5.11) and clock_getres_time64 included: the
 * kernel's vdso32.lds.S has a single version node, no separate LINUX_5.11
 * one.  Both the syscall and the
 * vDSO report errors the powerpc way: CR0.SO set and a positive errno in
 * r3, which C cannot see, so both are called from assembly here.
 */
#ifdef __powerpc64__
#define ARCH_NAME "ppc64"
#define ARCH_ELF_MACHINE 21 /* EM_PPC64 */
#else
#define ARCH_NAME "ppc"
#define ARCH_ELF_MACHINE 20 /* EM_PPC */
#endif

#define ARCH_SYMBOLS {                                                     \
	[SYM_CLOCK_GETTIME]   = ARCH_SYM("__kernel_clock_gettime", "LINUX_2.6.15"), \
	[SYM_CLOCK_GETTIME64] = ARCH_SYM("__kernel_clock_gettime64", "LINUX_2.6.15"), \
	[SYM_CLOCK_GETRES]    = ARCH_SYM("__kernel_clock_getres", "LINUX_2.6.15"), \
	[SYM_CLOCK_GETRES64]  = ARCH_SYM("__kernel_clock_getres_time64", "LINUX_2.6.15"), \
	[SYM_GETTIMEOFDAY]    = ARCH_SYM("__kernel_gettimeofday", "LINUX_2.6.15"), \
	[SYM_TIME]            = ARCH_SYM("__kernel_time", "LINUX_2.6.15"), \
	[SYM_GETCPU]          = ARCH_SYM("__kernel_getcpu", "LINUX_2.6.15"), \
	[SYM_GETRANDOM]       = ARCH_SYM("__kernel_getrandom", "LINUX_2.6.15"), \
}

#define PPC_SYSCALL_CLOBBERS "r9", "r10", "r11", "r12", "cr0", "ctr", "xer", "memory"

static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r0 __asm__("r0") = n;
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register long r5 __asm__("r5") = c;
	register long r6 __asm__("r6") = d;
	register long r7 __asm__("r7") = e;
	register long r8 __asm__("r8") = f;
	__asm__ volatile("sc\n\t"
			 "bns+ 1f\n\t"
			 "neg %1, %1\n"
			 "1:"
			 : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), "+r"(r8)
			 :
			 : PPC_SYSCALL_CLOBBERS);
	return r3;
}
#define ARCH_HAS_SYSCALL6 1

/*
 * Calls a vDSO function with up to five arguments, inline as glibc does,
 * with one difference: the asm opens a frame of its own.  The vDSO writes
 * below the stack pointer it is called with (5.11's and later open two
 * frames there, one in the caller's stead, as a caller need not have one),
 * and a caller gcc left without a frame (a leaf, to gcc's eyes, as the
 * call is hidden in an asm) may keep locals in the 288-byte red zone below
 * its stack pointer (ppc64).  So the frame is the red zone plus the ABI's
 * minimal frame, whose header a vDSO may write: 320 bytes (ELFv2), 400
 * (ELFv1), 16 (ppc32, which has no red zone).  r2 is not saved: the vDSO
 * keeps it (5.11's saves and restores it), as glibc's calls and the kernel
 * selftests' (vdso_call.h) rely on.  The result: r3, negated when the vDSO
 * set CR0.SO (a positive errno).  Clobbers: the ABI's volatile registers
 * but the arguments'; the vDSO is kernel code, built without floating
 * point or vector registers.
 */
#if defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 2
#define PPC_VDSO_FRAME_PUSH "stdu 1,-320(1)\n\t"
#define PPC_VDSO_FRAME_POP "addi 1,1,320\n\t"
#elif defined(__powerpc64__)
#define PPC_VDSO_FRAME_PUSH "stdu 1,-400(1)\n\t"
#define PPC_VDSO_FRAME_POP "addi 1,1,400\n\t"
#else
#define PPC_VDSO_FRAME_PUSH "stwu 1,-16(1)\n\t"
#define PPC_VDSO_FRAME_POP "addi 1,1,16\n\t"
#endif
#define ARCH_VDSO_CALL5 1
#define PPC_VDSO_CALL_ASM                                                       \
	PPC_VDSO_FRAME_PUSH "mtctr %[fn]\n\tbctrl\n\t" PPC_VDSO_FRAME_POP             \
	"bns+ 1f\n\tneg %[ret], %[ret]\n1:"
#define PPC_VDSO_CALL_CLOBBERS                                                  \
	"r0", "r8", "r9", "r10", "r11", "lr", "ctr", "xer", "cr0", "cr1", "cr5", "cr6", "cr7", "memory"
static inline long arch_vdso_call5(const void *fn, long a, long b, long c, long d, long e)
{
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register long r5 __asm__("r5") = c;
	register long r6 __asm__("r6") = d;
	register long r7 __asm__("r7") = e;
	register const void *r12 __asm__("r12") = fn; /* ELFv2: a global entry's own address */
	__asm__ volatile(PPC_VDSO_CALL_ASM
			 : [ret] "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), [fn] "+r"(r12)
			 :
			 : PPC_VDSO_CALL_CLOBBERS);
	return r3;
}

/* Two arguments or none (the clocks, gettimeofday): r5-r7 are not set, only lost. */
static inline long arch_vdso_call2(const void *fn, long a, long b)
{
	register long r3 __asm__("r3") = a;
	register long r4 __asm__("r4") = b;
	register const void *r12 __asm__("r12") = fn;
	__asm__ volatile(PPC_VDSO_CALL_ASM
			 : [ret] "+r"(r3), "+r"(r4), [fn] "+r"(r12)
			 :
			 : PPC_VDSO_CALL_CLOBBERS, "r5", "r6", "r7");
	return r3;
}

/* r13 (ppc64) / r2 (ppc32): what __builtin_thread_pointer() returns. */
#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	void *tp;
#ifdef __powerpc64__
	__asm__("mr %0, 13" : "=r"(tp));
#else
	__asm__("mr %0, 2" : "=r"(tp));
#endif
	return tp;
}
