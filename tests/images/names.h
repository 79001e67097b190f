/* SPDX-License-Identifier: MIT */
/*
 * Per-architecture names of the synthetic vDSO images: the version node and
 * the symbol each role is exported as, following the kernel's linker scripts
 * (arch/<arch>/.../vdso*.lds.S; see /work/shared/REFERENCE.md).  Included by
 * the C and assembly sources (through exports.h) and by version.lds.S, so
 * the functions and the version script cannot drift apart.
 *
 * Roles: GETTIME (native-time clock_gettime), GETTIME64, GETRES, GETRES64,
 * GETTIMEOFDAY, TIME, GETCPU, GETRANDOM, GET_THREAD_AREA, the *_PLAIN weak
 * aliases (x86_64, sparc), the sparc *_STICK variants, OTHER1..3 (entries the
 * library never calls: sigreturn trampolines, flush_icache, …) and OLD1..3
 * (entries in a second, older version node: i386's LINUX_2.5).
 *
 * FAKE_TIME32 marks the architectures whose native entries use the 32-bit
 * time_t of the old syscall ABI.
 */
#ifndef IMAGES_NAMES_H
#define IMAGES_NAMES_H

#if defined(__x86_64__) && defined(__ILP32__)
# define IMAGE_ARCH x32
# define IMAGE_NODE LINUX_2.6
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_TIME __vdso_time
# define NAME_GETRES __vdso_clock_getres
# define NAME_GETCPU __vdso_getcpu
#elif defined(__x86_64__)
# define IMAGE_ARCH x86_64
# define IMAGE_NODE LINUX_2.6
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIME_PLAIN clock_gettime
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETTIMEOFDAY_PLAIN gettimeofday
# define NAME_TIME __vdso_time
# define NAME_TIME_PLAIN time
# define NAME_GETRES __vdso_clock_getres
# define NAME_GETRES_PLAIN clock_getres
# define NAME_GETCPU __vdso_getcpu
# define NAME_GETCPU_PLAIN getcpu
# define NAME_GETRANDOM __vdso_getrandom
# define NAME_GETRANDOM_PLAIN getrandom
/* 7.2's robust-futex unlock helper for 64-bit lists (the "v72" variant); the library calls none. */
# ifdef WITH_FUTEX_ROBUST
#  define NAME_FUTEX_ROBUST64 __vdso_futex_robust_list64_try_unlock
# endif
#elif defined(__i386__)
# define IMAGE_ARCH i386
# define IMAGE_NODE LINUX_2.6
# define FAKE_TIME32 1
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIME64 __vdso_clock_gettime64
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_TIME __vdso_time
# define NAME_GETRES __vdso_clock_getres
# define NAME_GETRES64 __vdso_clock_getres_time64
# define NAME_GETCPU __vdso_getcpu
/*
 * 7.2's robust-futex unlock helpers: x86 exports the 32-bit-pointer one in
 * its 32-bit vDSO (the "v73y2038" variant); the library calls neither.
 */
# ifdef WITH_FUTEX_ROBUST
#  define NAME_FUTEX_ROBUST32 __vdso_futex_robust_list32_try_unlock
# endif
# define IMAGE_OLD_NODE LINUX_2.5
# define NAME_OLD1 __kernel_vsyscall
# define NAME_OLD2 __kernel_sigreturn
# define NAME_OLD3 __kernel_rt_sigreturn
#elif defined(__aarch64__)
# define IMAGE_ARCH aarch64
# define IMAGE_NODE LINUX_2.6.39
# define NAME_GETTIME __kernel_clock_gettime
# define NAME_GETTIMEOFDAY __kernel_gettimeofday
# define NAME_GETRES __kernel_clock_getres
# define NAME_GETRANDOM __kernel_getrandom
# define NAME_OTHER1 __kernel_rt_sigreturn
#elif defined(__arm__)
# define IMAGE_ARCH arm
# define IMAGE_NODE LINUX_2.6
# define FAKE_TIME32 1
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIME64 __vdso_clock_gettime64
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETRES __vdso_clock_getres
/* Kernels with clock_getres_time64 (7.0, 2026): "time64only", "v70", "v73y2038". */
# ifdef WITH_GETRES64
#  define NAME_GETRES64 __vdso_clock_getres_time64
# endif
#elif defined(__riscv) && __riscv_xlen == 64
# define IMAGE_ARCH riscv64
# define IMAGE_NODE LINUX_4.15
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETRES __vdso_clock_getres
# define NAME_GETCPU __vdso_getcpu
# define NAME_GETRANDOM __vdso_getrandom
# define NAME_OTHER1 __vdso_rt_sigreturn
# define NAME_OTHER2 __vdso_flush_icache
# define NAME_OTHER3 __vdso_riscv_hwprobe
#elif defined(__riscv)
/* riscv32 kernels export no time entries (no COMPAT_32BIT_TIME vDSO). */
# define IMAGE_ARCH riscv32
# define IMAGE_NODE LINUX_4.15
# define NAME_GETCPU __vdso_getcpu
# define NAME_OTHER1 __vdso_rt_sigreturn
# define NAME_OTHER2 __vdso_flush_icache
#elif defined(__powerpc64__)
# if defined(__BIG_ENDIAN__)
#  define IMAGE_ARCH ppc64
# else
#  define IMAGE_ARCH ppc64le
# endif
# define IMAGE_NODE LINUX_2.6.15
# define NAME_GETTIME __kernel_clock_gettime
# define NAME_GETTIMEOFDAY __kernel_gettimeofday
# define NAME_TIME __kernel_time
# define NAME_GETRES __kernel_clock_getres
# define NAME_GETCPU __kernel_getcpu
# define NAME_GETRANDOM __kernel_getrandom
# define NAME_OTHER1 __kernel_get_tbfreq
# define NAME_OTHER2 __kernel_sync_dicache
# define NAME_OTHER3 __kernel_sigtramp_rt64
#elif defined(__powerpc__)
/* The kernel's vdso32.lds.S puts the time64 entries in the same node. */
# define IMAGE_ARCH ppc32
# define IMAGE_NODE LINUX_2.6.15
# define FAKE_TIME32 1
# define NAME_GETTIME __kernel_clock_gettime
# define NAME_GETTIME64 __kernel_clock_gettime64
# define NAME_GETTIMEOFDAY __kernel_gettimeofday
# define NAME_TIME __kernel_time
# define NAME_GETRES __kernel_clock_getres
# define NAME_GETRES64 __kernel_clock_getres_time64
# define NAME_GETCPU __kernel_getcpu
# define NAME_OTHER1 __kernel_get_tbfreq
# define NAME_OTHER2 __kernel_sync_dicache
# define NAME_OTHER3 __kernel_sigtramp_rt32
#elif defined(__s390x__)
# define IMAGE_ARCH s390x
# define IMAGE_NODE LINUX_2.6.29
# define NAME_GETTIME __kernel_clock_gettime
# define NAME_GETTIMEOFDAY __kernel_gettimeofday
# define NAME_GETRES __kernel_clock_getres
# define NAME_GETCPU __kernel_getcpu
# define NAME_GETRANDOM __kernel_getrandom
# define NAME_OTHER1 __kernel_restart_syscall
# define NAME_OTHER2 __kernel_rt_sigreturn
#elif defined(__mips__) && _MIPS_SIM == _ABI64
# define IMAGE_ARCH mips64
# define IMAGE_NODE LINUX_2.6
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETRES __vdso_clock_getres
#elif defined(__mips__)
# if _MIPS_SIM == _ABIN32
#  define IMAGE_ARCH mipsn32
# else
#  define IMAGE_ARCH mipso32
# endif
# define IMAGE_NODE LINUX_2.6
# define FAKE_TIME32 1
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIME64 __vdso_clock_gettime64
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETRES __vdso_clock_getres
/* Kernels with clock_getres_time64 (7.0, 2026): "v70", "v73y2038". */
# ifdef WITH_GETRES64
#  define NAME_GETRES64 __vdso_clock_getres_time64
# endif
#elif defined(__loongarch__) && __loongarch_grlen == 64
# define IMAGE_ARCH loongarch64
# define IMAGE_NODE LINUX_5.10
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETRES __vdso_clock_getres
# define NAME_GETCPU __vdso_getcpu
# define NAME_GETRANDOM __vdso_getrandom
# define NAME_OTHER1 __vdso_rt_sigreturn
#elif defined(__sparc__)
# if defined(__arch64__)
#  define IMAGE_ARCH sparc64
# else
#  define IMAGE_ARCH sparc32
#  define FAKE_TIME32 1
# endif
# define IMAGE_NODE LINUX_2.6
/*
 * The union of two generations: the _stick variants of kernels before the
 * generic vDSO, and the clock_getres (both) and clock_gettime64 (sparc32)
 * that the generic-vDSO conversion added (arch/sparc/vdso/vclock_gettime.c).
 */
# define NAME_GETTIME __vdso_clock_gettime
# define NAME_GETTIME_PLAIN clock_gettime
# define NAME_GETRES __vdso_clock_getres
# if !defined(__arch64__)
#  define NAME_GETTIME64 __vdso_clock_gettime64
# endif
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GETTIMEOFDAY_PLAIN gettimeofday
# define NAME_GETTIME_STICK __vdso_clock_gettime_stick
# define NAME_GETTIMEOFDAY_STICK __vdso_gettimeofday_stick
#elif defined(__m68k__)
/* The m68k seed's series (tests/qemu/kernel/m68k-vdso/): time64, getres, TLS pointer. */
# define IMAGE_ARCH m68k
# define IMAGE_NODE LINUX_5.10
# define NAME_GETTIME64 __vdso_clock_gettime64
# define NAME_GETRES64 __vdso_clock_getres_time64
# define NAME_GETTIMEOFDAY __vdso_gettimeofday
# define NAME_GET_THREAD_AREA __vdso_get_thread_area
#else
# error "no synthetic vDSO names for this architecture"
#endif

/*
 * The few ABI constants the fake functions need, per architecture, so that
 * they build without a libc's headers (clang's x32 target has none here).
 */
#define FAKE_EINVAL 22
#if defined(__mips__)
# define FAKE_ENOSYS 89
# define FAKE_MAP_ANONYMOUS 0x800
#elif defined(__sparc__)
# define FAKE_ENOSYS 90
# define FAKE_MAP_ANONYMOUS 0x20
#else
# define FAKE_ENOSYS 38
# define FAKE_MAP_ANONYMOUS 0x20
#endif
#define FAKE_PROT_READ_WRITE 0x3
#define FAKE_MAP_PRIVATE 0x2
/* sparc64 keeps a 32-bit tv_usec in its 64-bit struct timeval. */
#if defined(__sparc__) && defined(__arch64__)
# define FAKE_SUSECONDS_32 1
#endif

/* The "wrong version" variant: the right names under a node no kernel uses. */
#ifdef WRONG_NODE
# undef IMAGE_NODE
# define IMAGE_NODE LINUX_1.0
#endif

#endif /* IMAGES_NAMES_H */
