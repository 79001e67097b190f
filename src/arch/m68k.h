/* SPDX-License-Identifier: MIT */
/*
 * m68k: mainline kernels have no vDSO; the m68k vDSO series (and
 * the test kernel's, tests/qemu/kernel/m68k-vdso/) adds
 * __vdso_clock_gettime64, __vdso_clock_getres_time64 and
 * __vdso_get_thread_area (LINUX_5.10).  There is no thread-pointer
 * register: without the vDSO entry it costs the get_thread_area syscall,
 * as glibc's __m68k_read_tp does.
 */
#define ARCH_NAME "m68k"
#define ARCH_ELF_MACHINE 4 /* EM_68K */

/*
 * No m68k clocksource can be read from user space (the Macs' VIA timer
 * shares its page with a register whose read acks the timer interrupt),
 * so the vDSO reads only the COARSE clocks itself; for every other clock
 * it makes the syscall, which costs more than making it directly.  For the
 * same reason the vDSO's gettimeofday (always a high-resolution REALTIME
 * read) is resolved but not called (VDSOKIT_REASON_ENTRY_IS_SYSCALL).
 */
#define ARCH_VDSO_CLOCKS (CLOCK_BIT(5) /* REALTIME_COARSE */ | CLOCK_BIT(6) /* MONOTONIC_COARSE */)
/*
 * clock_getres reads no clock: the generic vDSO answers it from its data
 * page for every high-resolution, raw and COARSE clock (hrtimer_res, or
 * the tick), whatever the clocksource.
 */
#define ARCH_VDSO_GETRES_CLOCKS                                                 \
	(CLOCK_BIT(0) /* REALTIME */ | CLOCK_BIT(1) /* MONOTONIC */ |             \
	 CLOCK_BIT(4) /* MONOTONIC_RAW */ | ARCH_VDSO_CLOCKS |                    \
	 CLOCK_BIT(7) /* BOOTTIME */ | CLOCK_BIT(11) /* TAI */)

#define ARCH_SYMBOLS {                                                            \
	[SYM_CLOCK_GETTIME64]  = ARCH_SYM("__vdso_clock_gettime64", "LINUX_5.10"),   \
	[SYM_CLOCK_GETRES64]   = ARCH_SYM("__vdso_clock_getres_time64", "LINUX_5.10"),   \
	[SYM_GETTIMEOFDAY]     = ARCH_SYM("__vdso_gettimeofday", "LINUX_5.10"),   \
	[SYM_GET_THREAD_AREA]  = ARCH_SYM("__vdso_get_thread_area", "LINUX_5.10"),   \
}

static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	register long d0 __asm__("d0") = n;
	register long d1 __asm__("d1") = a;
	register long d2 __asm__("d2") = b;
	register long d3 __asm__("d3") = c;
	register long d4 __asm__("d4") = d;
	__asm__ volatile("trap #0" : "+r"(d0) : "r"(d1), "r"(d2), "r"(d3), "r"(d4) : "memory");
	return d0;
}

/* get_thread_area (333): the value set_thread_area stored, what glibc's TLS uses. */
#define ARCH_HAS_SYSCALL_TP 1
static inline void *arch_syscall_thread_pointer(void)
{
	return (void *)arch_syscall4(__NR_get_thread_area, 0, 0, 0, 0);
}
