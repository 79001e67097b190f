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
 * Calls into the vDSO.  Each is a function of its own that does the call
 * and nothing else, never inlined: nothing of it lives across the call, so
 * it keeps nothing below the stack pointer, where the vDSO opens its frames
 * (5.11's and later open one "in the caller's stead", as glibc's frameless
 * callers need), and it needs no frame (the link register goes to its ABI
 * slot in the caller's frame).  That slot is also where an ABI callee keeps
 * its own: it is safe because no kernel's entry writes there (5.11's open
 * their frame first and save the link register in it, older ones keep it in
 * r12), which glibc's frameless call relies on too.  Its callers see a C call and keep their
 * own values as C callers do; one whose answer is the vDSO's reaches it by
 * a tail call, as cheap as glibc's inline sequence.  Had the asm been
 * inlined into a caller gcc takes for a leaf, that caller could keep
 * values in the red zone below its stack pointer (288 bytes, ppc64), which
 * the vDSO's frames overwrite.  r2 is not saved: the vDSO keeps it (5.11's
 * saves and restores it), as glibc's calls and the kernel selftests'
 * (vdso_call.h) rely on; nor does it read r12 (its entries set up no
 * TOC), which the selftests do not set either.  The result: r3, negated
 * when the vDSO set CR0.SO (a positive errno).  Clobbers: the ABI's volatile registers but the arguments'; the
 * vDSO is kernel code, built without floating point or vector registers.
 * The entry comes last, so that the arguments are already in place; an
 * int and a long flavour of each, so that a tail call needs no conversion
 * of the answer.
 */
#define ARCH_VDSO_CALL5 1
#define PPC_VDSO_CALL_ASM "mtctr %[fn]\n\tbctrl\n\tbns+ 1f\n\tneg %[ret], %[ret]\n1:"
#define PPC_VDSO_CALL_CLOBBERS                                                  \
	"r0", "r9", "r10", "r11", "r12", "lr", "ctr", "xer", "cr0", "cr1", "cr5", "cr6", "cr7", "memory"
#ifdef __clang__
#define PPC_VDSO_CALL_ONLY static __attribute__((noinline, unused)) /* clang knows no noclone */
#else
#define PPC_VDSO_CALL_ONLY static __attribute__((noinline, noclone, unused))
#endif

/* Two arguments or none (the clocks, gettimeofday, time): r6-r8 are not set, only lost. */
#define PPC_VDSO_CALL2(name, type)                                              \
	PPC_VDSO_CALL_ONLY type name(long a, long b, const void *fn)            \
	{                                                                       \
		register long r3 __asm__("r3") = a;                             \
		register long r4 __asm__("r4") = b;                             \
		register const void *r5 __asm__("r5") = fn;                     \
		__asm__ volatile(PPC_VDSO_CALL_ASM                              \
				 : [ret] "+r"(r3), "+r"(r4), [fn] "+r"(r5)      \
				 :                                              \
				 : PPC_VDSO_CALL_CLOBBERS, "r6", "r7", "r8");   \
		return (type)r3;                                                \
	}
#define PPC_VDSO_CALL5(name, type)                                              \
	PPC_VDSO_CALL_ONLY type name(long a, long b, long c, long d, long e, const void *fn) \
	{                                                                       \
		register long r3 __asm__("r3") = a;                             \
		register long r4 __asm__("r4") = b;                             \
		register long r5 __asm__("r5") = c;                             \
		register long r6 __asm__("r6") = d;                             \
		register long r7 __asm__("r7") = e;                             \
		register const void *r8 __asm__("r8") = fn;                     \
		__asm__ volatile(PPC_VDSO_CALL_ASM                              \
				 : [ret] "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6), "+r"(r7), [fn] "+r"(r8) \
				 :                                              \
				 : PPC_VDSO_CALL_CLOBBERS);                     \
		return (type)r3;                                                \
	}
PPC_VDSO_CALL2(arch_vdso_call2, long)
PPC_VDSO_CALL2(arch_vdso_call2_int, int)
PPC_VDSO_CALL5(arch_vdso_call5, long)
PPC_VDSO_CALL5(arch_vdso_call5_int, int)

/*
 * time(t) where the kernel's time_t is 64 bits (ppc64): the entry stores
 * *t itself and cannot wrap, so the answer is 0 (or the negated errno of a
 * set CR0.SO), and vdsokit_time() reaches it by a tail call.
 */
PPC_VDSO_CALL_ONLY int arch_vdso_time64(int64_t *t, const void *fn)
{
	register long r3 __asm__("r3") = (long)t;
	register const void *r4 __asm__("r4") = fn;
	__asm__ volatile("mtctr %[fn]\n\tbctrl\n\tbso- 1f\n\tli %[ret], 0\n\tb 2f\n1:\tneg %[ret], %[ret]\n2:"
			 : [ret] "+r"(r3), [fn] "+r"(r4)
			 :
			 : PPC_VDSO_CALL_CLOBBERS, "r5", "r6", "r7", "r8");
	return (int)r3;
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
