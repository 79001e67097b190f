/* SPDX-License-Identifier: MIT */
/*
 * What the library's files share.  Names: vdsokit_ is public; vdsokit__ is
 * exported for the header's inline code only (include/vdsokit.h); vdsokit_lib_
 * is internal (hidden), shared between the files of src/.
 */
#ifndef VDSOKIT_INTERNAL_H
#define VDSOKIT_INTERNAL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* The library defines the functions the header may inline as macros. */
#define VDSOKIT_NO_INLINE 1
#include "vdsokit.h"
#include "arch.h"

/*
 * Hidden: code built position-independent (the .so, and the archive under
 * a PIE default) reaches these directly instead of through the GOT and
 * the PLT.
 */
#pragma GCC visibility push(hidden)

#define VDSO_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- what the process's vDSO offers (src/vdso.c) ---------------------- */

enum found_status {
	FOUND_NOT_YET,   /* nobody has resolved yet                    */
	FOUND_IMAGE,     /* a usable image: addresses below            */
	FOUND_NO_VDSO,   /* no AT_SYSINFO_EHDR (or vdsokit_use_image(NULL)) */
	FOUND_BAD_IMAGE  /* an image was found and rejected            */
};

/*
 * What a resolution found, from the status (acquire) on.  Every resolution
 * finds the same: the fields are written with those values only, the
 * status last, so a reader that sees a status sees them.
 */
struct found {
	int status;                      /* enum found_status              */
	int image_error;                 /* vdsokit_image_error when BAD   */
	const void *addr[SYM_COUNT];     /* callable entries, NULL absent  */
	const char *version[SYM_COUNT];  /* the version node matched       */
};

/* What the resolutions found (src/vdso.c); read it through vdsokit_lib_found(). */
extern struct found vdsokit_lib_resolved;
/*
 * An entry, for a function a route leads to: the entries were stored
 * before the route, and a NULL one (a resolution not seen yet on a weakly
 * ordered CPU) is to be taken as absent, the syscall: no barrier, no call.
 */
static inline const void *vdsokit_lib_entry(enum vdsokit_lib_sym sym)
{
	return __atomic_load_n(&vdsokit_lib_resolved.addr[sym], __ATOMIC_RELAXED);
}

/* Resolves (again): every resolution stores the same values. */
void vdsokit_lib_resolve(void);
/* Resolves the clock entries and publishes their slots only (the clock functions' first call). */
void vdsokit_lib_resolve_clocks(void);
/* 1 once a resolution has kept the parsed image, which later ones read (bench/ clears it to time a parse). */
extern int vdsokit_lib_image_kept;
/* The resolution, resolving now if nobody has: never returns NOT_YET. */
const struct found *vdsokit_lib_found(void);
/* Its status, read as the resolvers store it (another may be storing the same value). */
static inline int vdsokit_lib_found_status(const struct found *f)
{
	return __atomic_load_n(&f->status, __ATOMIC_RELAXED);
}
/*
 * For a call that found no route: resolves if nobody has, so that the
 * routes are there to read again.  No barrier: a route read before its
 * publication is still a correct one (the library's own, or none).
 */
void vdsokit_lib_ensure_resolved(void);

/* The routes, read with plain loads (include/vdsokit.h says why that is enough). */
#define ROUTE(field) __atomic_load_n(&vdsokit__routes_v3.field, __ATOMIC_RELAXED)

/*
 * The layouts programs have built in: the structs a caller allocates and
 * the header's inlined code reads.  Each is 4-byte, then 8-byte, then
 * pointer-sized fields (or in another order, still without padding), so its
 * size and offsets are counts of those on every ABI, ILP32 and LP64, and
 * whatever the ABI's alignment of a 64-bit field (4 on i386, 2 on m68k).  A
 * failure is a change of the ABI (include/vdsokit.h): any ILP32 build shows
 * one that the x86_64 baseline's abidiff sees as a field of the same size.
 */
#define ABI_BYTES(n4, n8, nptr) (4 * (n4) + 8 * (n8) + sizeof(void *) * (nptr))
#define ABI_SIZE(type, n4, n8, nptr, why) \
	_Static_assert(sizeof(type) == ABI_BYTES(n4, n8, nptr), #type " keeps its size: " why)
#define ABI_OFFSET(type, field, n4, n8, nptr) \
	_Static_assert(offsetof(type, field) == ABI_BYTES(n4, n8, nptr), #type "." #field " keeps its offset")
/* Where 64-bit fields are 8-aligned, a field shrunk to 4 bytes can hide in padding. */
#define ABI_MEMBER(type, field, bytes) \
	_Static_assert(sizeof(((type *)0)->field) == (bytes), #type "." #field " keeps its size")
#define FROM_RESERVED "new fields come out of reserved[]"
ABI_SIZE(struct vdsokit_timespec, 0, 2, 0, "the kernel's __kernel_timespec");
ABI_OFFSET(struct vdsokit_timespec, tv_nsec, 0, 1, 0);
ABI_MEMBER(struct vdsokit_timespec, tv_sec, 8);
ABI_MEMBER(struct vdsokit_timespec, tv_nsec, 8);
ABI_SIZE(struct vdsokit_timeval, 0, 2, 0, "64-bit seconds and microseconds on every ABI");
ABI_OFFSET(struct vdsokit_timeval, tv_usec, 0, 1, 0);
ABI_MEMBER(struct vdsokit_timeval, tv_sec, 8);
ABI_MEMBER(struct vdsokit_timeval, tv_usec, 8);
ABI_SIZE(struct vdsokit_image, 14, 10, 14, FROM_RESERVED);
ABI_OFFSET(struct vdsokit_image, data, 2, 0, 0);
ABI_OFFSET(struct vdsokit_image, e_flags, 8, 0, 4);
ABI_OFFSET(struct vdsokit_image, reserved, 14, 2, 14);
ABI_SIZE(struct vdsokit_symbol, 8, 3, 8, FROM_RESERVED);
ABI_OFFSET(struct vdsokit_symbol, value, 8, 0, 0);
ABI_OFFSET(struct vdsokit_symbol, name, 8, 3, 0);
ABI_SIZE(struct vdsokit_verdef, 6, 0, 8, FROM_RESERVED);
ABI_OFFSET(struct vdsokit_verdef, name, 6, 0, 0);
ABI_SIZE(struct vdsokit_route_info, 4, 0, 9, FROM_RESERVED);
ABI_OFFSET(struct vdsokit_route_info, symbol, 4, 0, 0);
ABI_OFFSET(struct vdsokit_route_info, syscall_nr, 4, 0, 4);
ABI_SIZE(struct vdsokit__timespec32, 2, 0, 0, "the kernel's old_timespec32");
#define RENAMES_THE_TABLE "a change renames the table: vdsokit__routes_v4"
ABI_SIZE(struct vdsokit__routes_v3, 0, 0, 72, RENAMES_THE_TABLE);
ABI_OFFSET(struct vdsokit__routes_v3, getres, 0, 0, 32);
ABI_OFFSET(struct vdsokit__routes_v3, time, 0, 0, 64);
ABI_OFFSET(struct vdsokit__routes_v3, time_from_coarse, 0, 0, 66);
ABI_OFFSET(struct vdsokit__routes_v3, rseq_cpu, 0, 0, 67);
ABI_OFFSET(struct vdsokit__routes_v3, getcpu, 0, 0, 68);
_Static_assert(VDSOKIT__CLOCK_SLOTS == 32, "a slot per clock id modulo 32: " RENAMES_THE_TABLE);

/* The header's and the library's rule must be one. */
_Static_assert(ARCH_VDSO_MAY_DECLINE == VDSOKIT__VDSO_MAY_DECLINE, "one rule for a vDSO's -ENOSYS");

#if ARCH_VDSO_MAY_DECLINE
/* A MIPS clock_gettime entry that may decline, called with the syscall behind it (src/vdso.c). */
int vdsokit_lib_clock_gettime_declining(clockid_t clock, struct vdsokit_timespec *ts);
#endif

/*
 * What a clock route's slot may hold besides a vDSO entry (src/time.c): the
 * syscall, a 32-bit-time entry widened (ILP32), and the first call's
 * function, which resolves.  Where the entry is called from assembly
 * (powerpc) a slot holds the entry, or a mark of the library's function the
 * call takes instead (not an address: no code is at 1 or 2), or NULL, the
 * first call's function.
 */
typedef int (*clock_route_fn)(clockid_t, struct vdsokit_timespec *);
#if ARCH_VDSO_CALL5
#define SLOT_SYSCALL ((clock_route_fn)(uintptr_t)1)
#define SLOT_TIME32 ((clock_route_fn)(uintptr_t)2)
#endif
int vdsokit_lib_clock_gettime_first(clockid_t clock, struct vdsokit_timespec *ts);
int vdsokit_lib_clock_getres_first(clockid_t clock, struct vdsokit_timespec *res);
int vdsokit_lib_clock_gettime_syscall(clockid_t clock, struct vdsokit_timespec *ts);
int vdsokit_lib_clock_getres_syscall(clockid_t clock, struct vdsokit_timespec *res);
int vdsokit_lib_clock_gettime_time32(clockid_t clock, struct vdsokit_timespec *ts);
int vdsokit_lib_clock_getres_time32(clockid_t clock, struct vdsokit_timespec *res);
#if ARCH_NATIVE_TIME64
#define CLOCK_TIME32(name) vdsokit_lib_clock_##name##_syscall /* no 32-bit-time entries: never chosen */
#else
#define CLOCK_TIME32(name) vdsokit_lib_clock_##name##_time32
#endif

/* Whether the vDSO's answer r sends the call to the syscall: -ENOSYS, where the vDSO declines so. */
static inline int vdso_declined(long r)
{
	return ARCH_VDSO_MAY_DECLINE && r == -ENOSYS;
}

/* Whether clocks, a mask of ids, has clock: by the id modulo 32, as the header picks a slot. */
static inline int clock_in(uint32_t clocks, clockid_t clock)
{
	return (clocks >> ((unsigned)clock & 31)) & 1;
}

/*
 * A 32-bit-time entry answered seconds that wrapped (after 2038): its
 * routes go to the syscall from now on.  Entries dropped so, as bits of
 * enum vdsokit_lib_sym: only ever set.
 */
void vdsokit_lib_drop_time32(enum vdsokit_lib_sym sym);
extern uint32_t vdsokit_lib_dropped;

/* ---- which entry serves which call (src/choose.c) --------------------- */

/* This architecture's vDSO entries: names, version nodes (src/vdso.c). */
extern const struct arch_symbol vdsokit_lib_arch_symbols[SYM_COUNT];

/* An entry chosen for a call from what was found, and why. */
struct choice {
	const void *fn;             /* NULL: the syscall                     */
	const char *version;
	enum vdsokit_lib_sym sym;       /* the table slot it came from           */
	unsigned time64;            /* takes 64-bit time (else 32-bit)       */
	enum vdsokit_reason reason; /* OK, TIME32, or why fn is NULL         */
};

struct choice vdsokit_lib_choose(const struct found *f, enum vdsokit_func fn);
/*
 * Every entry vdsokit_lib_choose() reads for clock_gettime and
 * clock_getres, on any ABI (src/vdso.c's publish_clock() too: MIPS asks
 * whether clock_getres exists): the clock functions' first call looks up
 * these alone.  tests/callpath.c checks it on every image of every ABI.
 */
#define CLOCK_SYMBOLS                                                                   \
	(1u << SYM_CLOCK_GETTIME | 1u << SYM_CLOCK_GETTIME64 | 1u << SYM_CLOCK_GETRES | \
	 1u << SYM_CLOCK_GETRES64)
_Static_assert(SYM_COUNT <= 32, "a set of entries is a 32-bit mask");
/* The clock ids the vDSO reads in user space for clock_gettime/clock_getres. */
uint32_t vdsokit_lib_vdso_clocks(enum vdsokit_func fn);

/* ---- getcpu's rseq area (src/cpu.c) ----------------------------------- */

/* The header's rseq_cpu word for this process: the libc's area, or 0. */
intptr_t vdsokit_lib_rseq_cpu(void);

/* ---- getrandom (src/random.c) ----------------------------------------- */

/* Why getrandom takes the syscall although the vDSO has it; OK when it does not. */
enum vdsokit_reason vdsokit_lib_random_reason(const struct found *f);

/* ---- the system ------------------------------------------------------- */

/* getauxval(type), leaving errno as it was (src/vdso.c). */
unsigned long vdsokit_lib_auxv(unsigned long type);

/* Raw syscall with the -errno convention, for 0 to 4 arguments. */
#define sys0(n) arch_syscall4((n), 0, 0, 0, 0)
#define sys1(n, a) arch_syscall4((n), (long)(a), 0, 0, 0)
#define sys2(n, a, b) arch_syscall4((n), (long)(a), (long)(b), 0, 0)
#define sys3(n, a, b, c) arch_syscall4((n), (long)(a), (long)(b), (long)(c), 0)

/*
 * A libc function through its address as the loader bound it (the GOT of
 * a shared object or a PIE) rather than a lazily bound PLT slot, whose
 * first call would run the dynamic linker's symbol lookup inside the
 * library's call: its pages, and 2.5 KiB or more of stack where the
 * resolver saves AVX-512 state.  The empty asm keeps the compiler from
 * making the call direct again.  (A non-PIE program that takes the
 * function's own address gives it a canonical PLT entry, which the loader
 * binds the library to: that one stays lazy.)
 */
#define LOADER_BOUND(f) __extension__({ __typeof__(&(f)) bound_ = &(f); __asm__("" : "+r"(bound_)); bound_; })

/* The syscalls the clock functions fall back to (src/time.c), for vdsokit_route_of. */
extern const long vdsokit_lib_nr_gettime, vdsokit_lib_nr_getres;
extern const char vdsokit_lib_name_gettime[], vdsokit_lib_name_getres[];

/*
 * Calls into the vDSO.  Where the architecture needs an assembly sequence
 * (powerpc) every call goes through one of its functions (src/arch/powerpc.h),
 * named for the arguments and the return type (int or long) so that a call
 * whose answer is the vDSO's is a tail call; elsewhere a plain C call through a pointer
 * of the function's real type.
 */
#if ARCH_VDSO_CALL5
#define VCALL2_INT(fn, a, b) arch_vdso_call2_int((long)(a), (long)(b), (fn))
#define VCALL2_LONG(fn, a, b) arch_vdso_call2((long)(a), (long)(b), (fn))
#define VCALL3_INT(fn, a, b, c) arch_vdso_call5_int((long)(a), (long)(b), (long)(c), 0, 0, (fn))
#define VCALL5_LONG(fn, a, b, c, d, e) \
	arch_vdso_call5((long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (fn))
#else
typedef int (*vdso_clock_fn)(clockid_t, void *);
typedef int (*vdso_gtod_fn)(void *, void *);
typedef ARCH_KERNEL_LONG (*vdso_time_fn)(ARCH_KERNEL_LONG *);
typedef int (*vdso_getcpu_fn)(unsigned *, unsigned *, void *);
typedef long (*vdso_getrandom_fn)(void *, size_t, unsigned, void *, size_t);
#endif

#pragma GCC visibility pop

#endif
