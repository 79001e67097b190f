/* SPDX-License-Identifier: MIT */
/*
 * s390x: __kernel_* in LINUX_2.6.29.  Its DT_HASH has 8-byte entries (the
 * parser knows).  The thread pointer is split across access registers a0:a1.
 */
#ifdef __s390x__
#define ARCH_NAME "s390x"
#else
#define ARCH_NAME "s390"
#endif
#define ARCH_ELF_MACHINE 22 /* EM_S390 */

#define ARCH_SYMBOLS {                                                  \
	[SYM_CLOCK_GETTIME] = ARCH_SYM("__kernel_clock_gettime", "LINUX_2.6.29"), \
	[SYM_CLOCK_GETRES]  = ARCH_SYM("__kernel_clock_getres", "LINUX_2.6.29"), \
	[SYM_GETTIMEOFDAY]  = ARCH_SYM("__kernel_gettimeofday", "LINUX_2.6.29"), \
	[SYM_GETCPU]        = ARCH_SYM("__kernel_getcpu", "LINUX_2.6.29"), \
	[SYM_GETRANDOM]     = ARCH_SYM("__kernel_getrandom", "LINUX_2.6.29"), \
}

static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	register long r1 __asm__("1") = n;
	register long r2 __asm__("2") = a;
	register long r3 __asm__("3") = b;
	register long r4 __asm__("4") = c;
	register long r5 __asm__("5") = d;
	__asm__ volatile("svc 0" : "+d"(r2) : "d"(r1), "d"(r3), "d"(r4), "d"(r5) : "memory");
	return r2;
}

#ifdef __s390x__
/* 64-bit s390's mmap takes one pointer to its six arguments (old_mmap). */
#define ARCH_HAS_MMAP 1
static inline long arch_mmap(void *addr, unsigned long len, long prot, long flags, long fd, long off)
{
	unsigned long args[6] = { (unsigned long)addr, len, (unsigned long)prot,
				  (unsigned long)flags, (unsigned long)fd, (unsigned long)off };
	return arch_syscall4(__NR_mmap, (long)args, 0, 0, 0);
}
#endif

#define ARCH_HAS_TP_REGISTER 1
static inline void *arch_thread_pointer(void)
{
#ifdef __s390x__
	unsigned long hi, lo;
	__asm__("ear %0, %%a0" : "=d"(hi));
	__asm__("ear %0, %%a1" : "=d"(lo));
	return (void *)((hi << 32) | (lo & 0xffffffffUL));
#else
	unsigned long tp;
	__asm__("ear %0, %%a0" : "=d"(tp));
	return (void *)tp;
#endif
}
