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
 * Calls a vDSO function with up to five arguments, through a small
 * function of its own (vdsokit_lib_ppc_vdso_call below): a call the
 * compiler sees, so the caller's frame is the compiler's business, and
 * the vDSO, which stores its return address and r2 in its caller's frame
 * header, writes into the trampoline's minimal frame.  (An asm statement
 * with a bctrl inside cannot do that cheaply: in a leaf function gcc keeps
 * the link register in the very slot the vDSO overwrites, and uses the
 * red zone below the stack pointer, which a frame would have to skip:
 * 288 bytes more on ppc64.)  The result: r3, negated when the vDSO set
 * CR0.SO (a positive errno).
 */
#define ARCH_VDSO_CALL5 1
__attribute__((visibility("hidden"))) long vdsokit_lib_ppc_vdso_call(long a, long b, long c, long d, long e,
								    const void *fn);
static inline long arch_vdso_call5(const void *fn, long a, long b, long c, long d, long e)
{
	return vdsokit_lib_ppc_vdso_call(a, b, c, d, e, fn);
}

/* The trampoline, defined once (src/vdso.c): minimal frame, r2 kept, r12 the entry (ELFv2). */
#if defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 2
#define PPC_FUNCTION_START(name)                                                           \
	".globl " name "\n\t.hidden " name "\n\t.type " name ",@function\n" name ":\n\t"
#define PPC_FUNCTION_END(name) ".size " name ",.-" name "\n\t"
#define PPC_FRAME "32"
#define PPC_LR_SLOT "16"
#define PPC_R2_SLOT "24"
#define PPC_ST "std"
#define PPC_STU "stdu"
#define PPC_L "ld"
#elif defined(__powerpc64__)
/* ELFv1: the function's symbol is its descriptor in .opd, its code at the dot-name. */
#define PPC_FUNCTION_START(name)                                                           \
	".section \".opd\",\"aw\"\n\t.align 3\n\t.globl " name "\n\t.hidden " name "\n" name   \
	":\n\t.quad ." name ",.TOC.@tocbase,0\n\t.previous\n\t.type ." name ",@function\n."   \
	name ":\n\t"
#define PPC_FUNCTION_END(name) ".size ." name ",.-." name "\n\t"
#define PPC_FRAME "112"
#define PPC_LR_SLOT "16"
#define PPC_R2_SLOT "40"
#define PPC_ST "std"
#define PPC_STU "stdu"
#define PPC_L "ld"
#else
#define PPC_FUNCTION_START(name)                                                           \
	".globl " name "\n\t.hidden " name "\n\t.type " name ",@function\n" name ":\n\t"
#define PPC_FUNCTION_END(name) ".size " name ",.-" name "\n\t"
#define PPC_FRAME "16"
#define PPC_LR_SLOT "4"
#define PPC_ST "stw"
#define PPC_STU "stwu"
#define PPC_L "lwz"
#endif
#ifdef PPC_R2_SLOT
#define PPC_SAVE_R2 "std 2," PPC_R2_SLOT "(1)\n\t"
#define PPC_LOAD_R2 "ld 2," PPC_R2_SLOT "(1)\n\t"
#else
#define PPC_SAVE_R2 ""
#define PPC_LOAD_R2 ""
#endif
#define ARCH_TOPLEVEL_ASM                                                                  \
	"\t.text\n\t.align 2\n\t"                                                          \
	PPC_FUNCTION_START("vdsokit_lib_ppc_vdso_call")                                     \
	"mflr 0\n\t"                                                                       \
	PPC_ST " 0," PPC_LR_SLOT "(1)\n\t"                                                  \
	PPC_STU " 1,-" PPC_FRAME "(1)\n\t"                                                  \
	PPC_SAVE_R2                                                                        \
	"mtctr 8\n\t"                                                                      \
	"mr 12,8\n\t"                                                                      \
	"bctrl\n\t"                                                                        \
	PPC_LOAD_R2                                                                        \
	"addi 1,1," PPC_FRAME "\n\t"                                                        \
	PPC_L " 0," PPC_LR_SLOT "(1)\n\t"                                                   \
	"mtlr 0\n\t"                                                                       \
	"bnslr+\n\t"                                                                       \
	"neg 3,3\n\t"                                                                      \
	"blr\n\t"                                                                          \
	PPC_FUNCTION_END("vdsokit_lib_ppc_vdso_call")

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
