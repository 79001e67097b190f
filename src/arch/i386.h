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

/* int $0x80 works on every kernel and needs no AT_SYSINFO lookup. */
static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
	return ret;
}

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
