/* SPDX-License-Identifier: MIT */
/*
 * Selects the architecture header.  Each one provides:
 *   ARCH_NAME                 "x86_64", …
 *   ARCH_ELF_MACHINE          e_machine of this architecture's vDSO
 *   ARCH_SYMBOLS              initialiser of the symbol table (struct arch_symbol
 *                             indexed by enum vdsokit_lib_sym), names and version nodes
 *   arch_syscall4(n,a,b,c,d)  raw syscall, returns the value or -errno; or,
 *                             where the vDSO has getrandom (its states are
 *                             mmap'd), arch_syscall6 and ARCH_HAS_SYSCALL6 1
 *                             instead: arch_syscall4 is then defined here
 *   arch_thread_pointer()     when ARCH_HAS_TP_REGISTER is 1
 * and may override:
 *   ARCH_VDSO_CALL5           1 when vDSO functions need an assembly call
 *                             sequence (powerpc's CR0.SO errors):
 *                             arch_vdso_call2 and arch_vdso_call5, and their
 *                             _int flavours, called through VCALL*
 *                             (src/internal.h)
 *   ARCH_VDSO_CLOCKS          clock ids the vDSO reads in user space
 *   ARCH_VDSO_GETRES_CLOCKS   clock ids its clock_getres answers in user
 *                             space (default: ARCH_VDSO_CLOCKS)
 *   ARCH_GETTIME64_NEEDS_32   trust clock_gettime64 only beside clock_gettime
 *                             or clock_getres_time64 (arm)
 *   arch_syscall_thread_pointer()  when ARCH_HAS_SYSCALL_TP is 1: the
 *                             kernel's record of the thread pointer
 *   ARCH_VDSO_MAY_DECLINE     1 when an old vDSO answers -ENOSYS for "ask the
 *                             kernel" (mips before 5.4): src/vdso.c puts its
 *                             clock_gettime behind the library's function;
 *                             elsewhere the vDSO makes the syscall itself
 *   ARCH_VDSO_GETCPU_IS_SYSCALL  1 when the vDSO's getcpu only makes the
 *                             syscall (riscv): the library makes it directly
 *   ARCH_HAS_SYSINFO          1 when arch_syscall4 calls the kernel's entry
 *                             AT_SYSINFO names (i386): vdsokit_lib_sysinfo,
 *                             which a resolution sets (src/vdso.c), and
 *                             ARCH_TOPLEVEL_ASM its stub until then
 *   ARCH_KERNEL_LONG          the kernel's __kernel_long_t when it is not the
 *                             C long (x32: long long)
 *   ARCH_KERNEL_SUSECONDS     the kernel's __kernel_suseconds_t when it is
 *                             not ARCH_KERNEL_LONG (sparc64: int)
 * Any other Linux architecture gets generic.h: syscalls only.
 */
#ifndef VDSOKIT_ARCH_H
#define VDSOKIT_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h> /* __NR_* from the libc (glibc: the kernel's asm/unistd.h; musl: its own) */

/* The vDSO entry points the library knows, across architectures. */
enum vdsokit_lib_sym {
	SYM_CLOCK_GETTIME,    /* native time_t width                         */
	SYM_CLOCK_GETTIME64,  /* 64-bit time on 32-bit architectures         */
	SYM_CLOCK_GETRES,
	SYM_CLOCK_GETRES64,
	SYM_GETTIMEOFDAY,
	SYM_TIME,
	SYM_GETCPU,
	SYM_GETRANDOM,
	SYM_GET_THREAD_AREA,  /* m68k                                        */
	SYM_COUNT
};

struct arch_symbol {
	/* First, so that an entry written without ARCH_SYM does not compile. */
	uint32_t gnu_hash;    /* of name (DT_GNU_HASH's function), at compile time */
	const char *name;
	const char *version;
};

/*
 * An ARCH_SYMBOLS entry: the name, its version node, and the name's GNU
 * hash (h = h * 33 + c from 5381) computed by the compiler, so the first
 * call does not hash the names it looks up.  Names of up to 32 characters
 * (a longer one is a compile error); malformed.t checks every table
 * against vdsokit_gnu_hash() on every architecture arches.t builds.
 * Each step names the hash so far once, keeping the expansion linear.
 */
#define ARCH_SYM_CHAR(s, i) \
	((i) < sizeof(s) - 1 ? (uint32_t)(unsigned char)(s)[(i) < sizeof(s) - 1 ? (i) : 0] : 0u)
#define ARCH_SYM_STEP(h, s, i) ((h) * ((i) < sizeof(s) - 1 ? 33u : 1u) + ARCH_SYM_CHAR(s, i))
#define ARCH_SYM_STEP4(h, s, i) \
	ARCH_SYM_STEP(ARCH_SYM_STEP(ARCH_SYM_STEP(ARCH_SYM_STEP(h, s, i), s, i + 1), s, i + 2), s, i + 3)
#define ARCH_SYM_STEP16(h, s, i) \
	ARCH_SYM_STEP4(ARCH_SYM_STEP4(ARCH_SYM_STEP4(ARCH_SYM_STEP4(h, s, i), s, i + 4), s, i + 8), s, i + 12)
#define ARCH_SYM_GNU_HASH(s) ARCH_SYM_STEP16(ARCH_SYM_STEP16(5381u, s, 0), s, 16)
/* A name longer than the 32 steps does not compile (an array of size -1). */
#define ARCH_SYM_FITS(name) (0 * sizeof(char[sizeof(name) <= 33 ? 1 : -1]))
#define ARCH_SYM(name, version) { ARCH_SYM_GNU_HASH(name) + ARCH_SYM_FITS(name), name, version }

/* Clock ids, as bits, whose reads the generic vDSO does in user space. */
#define CLOCK_BIT(c) (1u << (c))
#define GENERIC_VDSO_CLOCKS                                                     \
	(CLOCK_BIT(0) /* REALTIME */ | CLOCK_BIT(1) /* MONOTONIC */ |              \
	 CLOCK_BIT(4) /* MONOTONIC_RAW */ | CLOCK_BIT(5) /* REALTIME_COARSE */ |   \
	 CLOCK_BIT(6) /* MONOTONIC_COARSE */ | CLOCK_BIT(7) /* BOOTTIME */ |       \
	 CLOCK_BIT(11) /* TAI */)

#if defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__i386__)
#include "arch/i386.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#elif defined(__arm__)
#include "arch/arm.h"
#elif defined(__riscv)
#include "arch/riscv.h"
#elif defined(__powerpc__)
#include "arch/powerpc.h"
#elif defined(__s390__)
#include "arch/s390.h"
#elif defined(__mips__)
#include "arch/mips.h"
#elif defined(__loongarch__)
#include "arch/loongarch.h"
#elif defined(__sparc__)
#include "arch/sparc.h"
#elif defined(__m68k__)
#include "arch/m68k.h"
#else
#include "arch/generic.h"
#endif

#ifdef ARCH_HAS_SYSCALL6
/* One syscall sequence per architecture: two zero registers cost nothing beside a syscall. */
static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	return arch_syscall6(n, a, b, c, d, 0, 0);
}
#endif

#ifndef ARCH_VDSO_CLOCKS
#define ARCH_VDSO_CLOCKS GENERIC_VDSO_CLOCKS
#endif
#ifndef ARCH_VDSO_GETRES_CLOCKS
#define ARCH_VDSO_GETRES_CLOCKS ARCH_VDSO_CLOCKS
#endif
#ifndef ARCH_GETTIME64_NEEDS_32
#define ARCH_GETTIME64_NEEDS_32 0
#endif
#ifndef ARCH_VDSO_CALL5
#define ARCH_VDSO_CALL5 0
#endif
#ifndef ARCH_VDSO_MAY_DECLINE
#define ARCH_VDSO_MAY_DECLINE 0
#endif
#ifndef ARCH_VDSO_GETCPU_IS_SYSCALL
#define ARCH_VDSO_GETCPU_IS_SYSCALL 0
#endif
#ifndef ARCH_HAS_TP_REGISTER
#define ARCH_HAS_TP_REGISTER 0
#endif
#ifndef ARCH_HAS_SYSCALL_TP
#define ARCH_HAS_SYSCALL_TP 0
#endif
#ifndef ARCH_HAS_SYSINFO
#define ARCH_HAS_SYSINFO 0
#endif

/*
 * The kernel's own types for the old (native) time calls: time() returns
 * an ARCH_KERNEL_LONG, gettimeofday fills a struct arch_kernel_timeval
 * (__kernel_old_timeval).  They are the C long everywhere but on x32, whose
 * vDSO is the x86_64 code and whose syscalls take x86_64's layouts.
 */
#ifndef ARCH_KERNEL_LONG
#define ARCH_KERNEL_LONG long
#endif
#ifndef ARCH_KERNEL_SUSECONDS
#define ARCH_KERNEL_SUSECONDS ARCH_KERNEL_LONG
#endif
struct arch_kernel_timeval {
	ARCH_KERNEL_LONG tv_sec;
	ARCH_KERNEL_SUSECONDS tv_usec;
};

/* 64-bit time_t in the native entry points: LP64, and x32. */
#if __SIZEOF_LONG__ == 8 || (defined(__x86_64__) && defined(__ILP32__))
#define ARCH_NATIVE_TIME64 1
#else
#define ARCH_NATIVE_TIME64 0
#endif

#define ARCH_ELF_CLASS (__SIZEOF_POINTER__ * 8)
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARCH_BIG_ENDIAN 1
#else
#define ARCH_BIG_ENDIAN 0
#endif

#endif
