/* SPDX-License-Identifier: MIT */
/*
 * i386: LINUX_2.6.  The native entries use 32-bit time_t; the *_time64
 * ones (clock_gettime64 since 5.1, clock_getres_time64 on new kernels)
 * are preferred.  Without COMPAT_32BIT_TIME the 32-bit ones may be absent.
 */
#define ARCH_NAME "i386"
#define ARCH_ELF_MACHINE 3 /* EM_386 */

#define ARCH_SYMBOLS {                                                     \
	[SYM_CLOCK_GETTIME]   = ARCH_SYM("__vdso_clock_gettime", "LINUX_2.6"), \
	[SYM_CLOCK_GETTIME64] = ARCH_SYM("__vdso_clock_gettime64", "LINUX_2.6"), \
	[SYM_CLOCK_GETRES]    = ARCH_SYM("__vdso_clock_getres", "LINUX_2.6"), \
	[SYM_CLOCK_GETRES64]  = ARCH_SYM("__vdso_clock_getres_time64", "LINUX_2.6"), \
	[SYM_GETTIMEOFDAY]    = ARCH_SYM("__vdso_gettimeofday", "LINUX_2.6"), \
	[SYM_TIME]            = ARCH_SYM("__vdso_time", "LINUX_2.6"), \
	[SYM_GETCPU]          = ARCH_SYM("__vdso_getcpu", "LINUX_2.6"), \
}

/*
 * Syscalls go through the kernel's entry in the vDSO, __kernel_vsyscall
 * (AT_SYSINFO), which enters with sysenter or syscall where the CPU has
 * them: half the cost of int $0x80 or less.  It takes the arguments in the
 * registers int $0x80 does and changes none but %eax; it uses 16 bytes of
 * the caller's stack (its return address and the three registers it
 * saves).  Until a resolution finds the entry inside the process's vDSO
 * (none, vdso=0, an image that failed validation, or nobody resolved yet)
 * the pointer is the library's own int $0x80 stub below: one call
 * sequence, no branch.  A resolution stores the value every resolution
 * computes (src/vdso.c), so a syscall reads it with a plain load.
 */
#define ARCH_HAS_SYSINFO 1
extern const void *vdsokit_lib_sysinfo __attribute__((visibility("hidden")));
void vdsokit_lib_int80(void) __attribute__((visibility("hidden")));

static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	long ret;
	__asm__ volatile("call *%[entry]"
			 : "=a"(ret)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d),
			   [entry] "D"(__atomic_load_n(&vdsokit_lib_sysinfo, __ATOMIC_RELAXED))
			 : "memory");
	return ret;
}

/*
 * The entry before one is found: int $0x80 works on every kernel.  In a
 * section pushed and popped, so the compiler's idea of the current section
 * stays true.
 */
#define ARCH_TOPLEVEL_ASM                                          \
	"\t.pushsection .text\n"                                   \
	"\t.globl vdsokit_lib_int80\n"                             \
	"\t.hidden vdsokit_lib_int80\n"                            \
	"\t.type vdsokit_lib_int80, @function\n"                   \
	"vdsokit_lib_int80:\n"                                     \
	"\t.cfi_startproc\n"                                       \
	"\tint $0x80\n"                                            \
	"\tret\n"                                                  \
	"\t.cfi_endproc\n"                                         \
	"\t.size vdsokit_lib_int80, . - vdsokit_lib_int80\n"       \
	"\t.popsection\n"

/* get_thread_area() on the GDT entry %gs selects: its base is the TCB. */
#define ARCH_HAS_SYSCALL_TP 1
static inline void *arch_syscall_thread_pointer(void)
{
	struct { unsigned entry_number, base_addr, limit, flags; } desc = { 0, 0, 0, 0 };
	unsigned short gs;
	__asm__("movw %%gs, %0" : "=r"(gs));
	desc.entry_number = gs >> 3;
	return arch_syscall4(__NR_get_thread_area, (long)&desc, 0, 0, 0) == 0
		       ? (void *)desc.base_addr : (void *)0;
}

/* %gs:0 is the TCB self pointer (glibc and musl). */
#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
	void *tp;
	__asm__("movl %%gs:0, %0" : "=r"(tp));
	return tp;
}
