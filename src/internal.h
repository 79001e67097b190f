/* SPDX-License-Identifier: MIT */
/*
 * The library's process-wide state and the helpers every call file shares.
 * Published by vdsokit_state_slow() (src/vdso.c), never written afterwards.
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
 * Everything declared below is the library's own: hidden, so that code
 * built position-independent (the .so, and the archive under a PIE
 * default) reaches these variables and functions directly instead of
 * through the GOT and the PLT.  The sparc32 guest's clock_gettime spent
 * two GOT loads per global on its path.
 */
#pragma GCC visibility push(hidden)

/*
 * Whether programs inline the clock_gettime/clock_getres fast path
 * (vdsokit.h): wherever a vDSO function is a plain C call (not powerpc's
 * CR0.SO convention).  They call the entry with a struct vdsokit_timespec,
 * so a 32-bit ABI's entry is published to them only when it takes 64-bit
 * time.  time() is inlined where the kernel's long is 64 bits (LP64, x32):
 * the entry takes and returns one.  The same conditions as the header's.
 */
#define LIB_FASTPATH_INLINE (!ARCH_VDSO_CALL5)
#define LIB_TIME_INLINE (ARCH_NATIVE_TIME64 && !ARCH_VDSO_CALL5)
/*
 * The library's own clock_gettime mask (bits 0-30 the clocks its entry
 * reads, bit 31 ready; 0 before): vdsokit__fast_v1.gettime_clocks is the
 * programs', which leaves out a 32-bit-time entry they cannot call.
 */
extern uint32_t vdsokit__gettime_clocks;
/* The same for clock_getres: vdsokit__fast_v1.getres_clocks is the programs'. */
extern uint32_t vdsokit__getres_clocks;
/* The types of vdsokit__fast_v1's pointers. */
typedef int (*vdsokit_fast_clock_fn)(clockid_t, struct vdsokit_timespec *);
typedef int64_t (*vdsokit_fast_time_fn)(int64_t *);
typedef int (*vdsokit_fast_clock32_fn)(clockid_t, struct vdsokit__timespec32 *);

#define VDSO_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* A vDSO entry chosen for one library function. */
struct vdsokit_entry {
	const void *fn;        /* callable address, NULL: use the syscall   */
	const char *version;   /* the version node it matched, NULL unversioned */
	unsigned time64;       /* takes 64-bit time (else 32-bit, convert)  */
	enum vdsokit_sym sym;     /* which table slot it came from             */
	uint32_t clocks;       /* clock_gettime/getres: ids served in user space */
	enum vdsokit_reason reason; /* why fn is NULL, or OK / TIME32          */
};

/*
 * Per table slot, set (atomically, once) when its 32-bit-time entry
 * overflowed: time has passed 2038 and it can only ever overflow again.
 * Outside the state, which is published once and never written after.
 * fn stays valid for a thread that read the entry before, and for
 * VDSOKIT_ROUTE_VDSO.
 */
extern int vdsokit__sym_overflowed[SYM_COUNT];

/* Whether the plain calls use e: it exists and has not overflowed. */
static inline int entry_in_use(const struct vdsokit_entry *e)
{
	return e->fn && !__atomic_load_n(&vdsokit__sym_overflowed[e->sym], __ATOMIC_RELAXED);
}

/* A 32-bit-time entry answered -EOVERFLOW: stop calling it (src/vdso.c). */
void vdsokit__entry_overflowed(const struct vdsokit_entry *e);

struct vdsokit_state {
	const struct vdsokit_image *image;     /* &parsed, or NULL: no usable vDSO */
	struct vdsokit_image parsed;
	enum vdsokit_reason image_reason;      /* NO_VDSO, BAD_IMAGE or OK     */
	int image_error;                    /* vdsokit_image_error when BAD    */
	struct vdsokit_entry gettime, getres, gettimeofday, time, getcpu, getrandom, thread_area;
	/* getcpu from the libc's rseq area (src/cpu.c): what it covers, and where. */
	unsigned rseq_covers;               /* RSEQ_COVERS_* bits, 0: not used */
	ptrdiff_t rseq_offset;              /* from the thread pointer         */
};
#define RSEQ_COVERS_CPU 1u
#define RSEQ_COVERS_NODE 2u

/* Fills the rseq fields of *s: whether the libc registered an area. */
void vdsokit__cpu_resolve(struct vdsokit_state *s);
/* getcpu's part of the header's inline fast path, from the published state. */
void vdsokit__cpu_publish_fast_path(const struct vdsokit_state *s);
/* The time calls' part for ILP32 ABIs (vdsokit__fast_ilp32_v1), src/time.c. */
void vdsokit__time_publish_fast_path(const struct vdsokit_state *s);

/* Clock ids (bits) that a clock_gettime/clock_getres entry serves in user space. */
static inline uint32_t entry_clocks(const struct vdsokit_entry *e)
{
	return entry_in_use(e) ? e->clocks : 0;
}

extern const struct arch_symbol vdsokit_arch_symbols[SYM_COUNT];

/*
 * The state, initialising it on first use: whoever finds it not published
 * resolves and publishes it (src/vdso.c); nobody waits for anybody.
 */
const struct vdsokit_state *vdsokit_state_slow(void);
/* Locate, validate, resolve and choose: the whole first-call work, into *s. */
void vdsokit_resolve(struct vdsokit_state *s);
/* The one readiness signal: the published state, NULL until then. */
extern const struct vdsokit_state *vdsokit__published;

static inline const struct vdsokit_state *vdsokit_state(void)
{
	const struct vdsokit_state *s = __atomic_load_n(&vdsokit__published, __ATOMIC_ACQUIRE);
	if (likely(s != NULL))
		return s;
	return vdsokit_state_slow();
}

/* getauxval(type), without a lazily bound PLT call (src/vdso.c). */
unsigned long vdsokit__auxv(unsigned long type);

/* Raw syscall with the -errno convention, for 0 to 4 arguments. */
#define sys0(n) arch_syscall4((n), 0, 0, 0, 0)
#define sys1(n, a) arch_syscall4((n), (long)(a), 0, 0, 0)
#define sys2(n, a, b) arch_syscall4((n), (long)(a), (long)(b), 0, 0)
#define sys3(n, a, b, c) arch_syscall4((n), (long)(a), (long)(b), (long)(c), 0)

/*
 * Calls into the vDSO.  Where the architecture needs an assembly sequence
 * (powerpc) every call goes through arch_vdso_call5; elsewhere a plain C
 * call through a pointer of the function's real type.
 */
#if ARCH_VDSO_CALL5
#define VCALL2(ty, fn, a, b) ((ty)arch_vdso_call5((fn), (long)(a), (long)(b), 0, 0, 0))
#define VCALL3(ty, fn, a, b, c) ((ty)arch_vdso_call5((fn), (long)(a), (long)(b), (long)(c), 0, 0))
#define VCALL5(ty, fn, a, b, c, d, e) \
	((ty)arch_vdso_call5((fn), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e)))
#define VCALL0(ty, fn) ((ty)arch_vdso_call5((fn), 0, 0, 0, 0, 0))
#else
typedef int (*vdsokit_clock_fn)(clockid_t, void *);
typedef int (*vdsokit_gtod_fn)(void *, void *);
typedef ARCH_KERNEL_LONG (*vdsokit_time_fn)(ARCH_KERNEL_LONG *);
typedef int (*vdsokit_getcpu_fn)(unsigned *, unsigned *, void *);
typedef long (*vdsokit_getrandom_fn)(void *, size_t, unsigned, void *, size_t);
typedef void *(*vdsokit_tp_fn)(void);
#endif

/* The syscalls the clock functions fall back to, for vdsokit_route_of. */
long vdsokit__sys_clock_gettime_nr(void);
long vdsokit__sys_clock_getres_nr(void);
const char *vdsokit__sys_clock_gettime_name(void);
const char *vdsokit__sys_clock_getres_name(void);

/*
 * Whether vdsokit_getrandom can use the vDSO here: the symbol, and states the
 * library can map on this architecture (src/random.c).
 */
int vdsokit__random_vdso_usable(void);

#pragma GCC visibility pop

#endif
