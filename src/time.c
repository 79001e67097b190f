// SPDX-License-Identifier: MIT
/*
 * clock_gettime, clock_getres, gettimeofday and time: the vDSO entry chosen
 * at init, else the syscall.  On 32-bit architectures everything is
 * returned as 64-bit time: 32-bit vDSO results are checked for overflow
 * and replaced by the clock_gettime64 syscall when they wrapped.
 */
#include <sys/time.h>
#include <time.h>

#include "internal.h"

/* ---- syscalls -------------------------------------------------------- */

#if ARCH_NATIVE_TIME64
#define NR_GETTIME __NR_clock_gettime
#define NR_GETRES __NR_clock_getres
#define NAME_GETTIME "clock_gettime"
#define NAME_GETRES "clock_getres"
#elif defined(__NR_clock_gettime64)
#define NR_GETTIME __NR_clock_gettime64
#define NR_GETRES __NR_clock_getres_time64
#define NAME_GETTIME "clock_gettime64"
#define NAME_GETRES "clock_getres_time64"
#else
#define NR_GETTIME __NR_clock_gettime
#define NR_GETRES __NR_clock_getres
#define NAME_GETTIME "clock_gettime"
#define NAME_GETRES "clock_getres"
#endif

long vdsokit__sys_clock_gettime_nr(void) { return NR_GETTIME; }
long vdsokit__sys_clock_getres_nr(void) { return NR_GETRES; }
const char *vdsokit__sys_clock_gettime_name(void) { return NAME_GETTIME; }
const char *vdsokit__sys_clock_getres_name(void) { return NAME_GETRES; }

#if !ARCH_NATIVE_TIME64 && defined(__NR_clock_gettime64) && defined(__NR_clock_gettime)
/* Kernels before 5.1 have only the 32-bit syscalls. */
static int sys_time32(long nr, clockid_t clock, struct vdsokit_timespec *ts)
{
	struct vdsokit__timespec32 t32;
	int r = (int)sys2(nr, clock, ts ? &t32 : NULL);
	if (r == 0 && ts) {
		ts->tv_sec = t32.tv_sec;
		ts->tv_nsec = t32.tv_nsec;
	}
	return r;
}
#define OLD_TIME32_FALLBACK 1
#endif

static inline int sys_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
	int r = (int)sys2(NR_GETTIME, clock, ts);
#ifdef OLD_TIME32_FALLBACK
	if (unlikely(r == -ENOSYS))
		r = sys_time32(__NR_clock_gettime, clock, ts);
#endif
	return r;
}

static int sys_clock_getres(clockid_t clock, struct vdsokit_timespec *res)
{
	int r = (int)sys2(NR_GETRES, clock, res);
#ifdef OLD_TIME32_FALLBACK
	if (unlikely(r == -ENOSYS))
		r = sys_time32(__NR_clock_getres, clock, res);
#endif
	return r;
}

/* The kernel's timeval (src/arch.h) is ours: 64-bit seconds and microseconds. */
#define TIMEVAL_IS_OURS (sizeof(ARCH_KERNEL_LONG) == 8 && sizeof(ARCH_KERNEL_SUSECONDS) == 8)

/* A kernel timeval into ours; -EOVERFLOW when 32-bit seconds have wrapped. */
static inline int timeval_from_kernel(struct vdsokit_timeval *tv, const struct arch_kernel_timeval *k)
{
	if (k->tv_sec < 0)
		return -EOVERFLOW;
	tv->tv_sec = k->tv_sec;
	tv->tv_usec = k->tv_usec;
	return 0;
}

static int sys_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz)
{
#if ARCH_NATIVE_TIME64 && defined(__NR_gettimeofday)
	if (TIMEVAL_IS_OURS || !tv)
		return (int)sys2(__NR_gettimeofday, tv, tz);
	struct arch_kernel_timeval k;
	int r = (int)sys2(__NR_gettimeofday, &k, tz);
	return r ? r : timeval_from_kernel(tv, &k);
#else
	/* No 64-bit gettimeofday syscall exists: derive it, y2038-safe. */
	if (tv) {
		struct vdsokit_timespec ts;
		int r = sys_clock_gettime(CLOCK_REALTIME, &ts);
		if (r)
			return r;
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	if (tz) {
#ifdef __NR_gettimeofday
		return (int)sys2(__NR_gettimeofday, NULL, tz);
#else
		tz->tz_minuteswest = 0; /* no kernel timezone without the syscall (rv32) */
		tz->tz_dsttime = 0;
#endif
	}
	return 0;
#endif
}

/* ---- the inline path's 32-bit-time entries ---------------------------- */

/* What programs of ILP32 ABIs inline beside vdsokit__fast_v1 (include/vdsokit.h). */
VDSO_EXPORT struct vdsokit__fastpath_ilp32 vdsokit__fast_ilp32_v1;

/*
 * Published with the rest of the fast path (src/vdso.c): a 32-bit-time
 * clock_gettime/clock_getres entry where it is all the kernel has (a
 * *_time64 one is in vdsokit__fast_v1 already), so that the program calls
 * it and widens the answer itself instead of calling the library to do
 * it (sparc32: 170 ns against glibc's 156 on MONOTONIC, emulated);
 * whether time() is CLOCK_REALTIME_COARSE's seconds, as vdsokit_time()
 * reads them when no time() entry is in use; and a 32-bit time() entry in
 * use (i386's __vdso_time: 83 ns through the library against 43 bare,
 * emulated).
 */
void vdsokit__time_publish_fast_path(const struct vdsokit_state *s)
{
	if (!LIB_FASTPATH_INLINE)
		return;
	if (!ARCH_NATIVE_TIME64 && !s->gettime.time64 && entry_clocks(&s->gettime)) {
		__atomic_store_n(&vdsokit__fast_ilp32_v1.gettime32,
				 (vdsokit_fast_clock32_fn)(uintptr_t)s->gettime.fn, __ATOMIC_RELAXED);
		__atomic_store_n(&vdsokit__fast_ilp32_v1.gettime32_clocks, entry_clocks(&s->gettime),
				 __ATOMIC_RELEASE);
	}
	if (!ARCH_NATIVE_TIME64 && !s->getres.time64 && entry_clocks(&s->getres)) {
		__atomic_store_n(&vdsokit__fast_ilp32_v1.getres32,
				 (vdsokit_fast_clock32_fn)(uintptr_t)s->getres.fn, __ATOMIC_RELAXED);
		__atomic_store_n(&vdsokit__fast_ilp32_v1.getres32_clocks, entry_clocks(&s->getres),
				 __ATOMIC_RELEASE);
	}
	if (!entry_in_use(&s->time))
		__atomic_store_n(&vdsokit__fast_ilp32_v1.time_is_coarse, 1, __ATOMIC_RELEASE);
#if !ARCH_VDSO_CALL5
	else if (!ARCH_NATIVE_TIME64 && !s->time.time64)
		__atomic_store_n(&vdsokit__fast_ilp32_v1.time32,
				 (long (*)(long *))(uintptr_t)s->time.fn, __ATOMIC_RELEASE);
#endif
}

/* A 32-bit-time entry's seconds wrapped: nobody calls it again, inlined or not. */
static void time32_entry_wrapped(const struct vdsokit_entry *e)
{
	vdsokit__entry_overflowed(e);
	const struct vdsokit_state *s = vdsokit_state();
	if (e == &s->gettime)
		__atomic_store_n(&vdsokit__fast_ilp32_v1.gettime32_clocks, 0, __ATOMIC_RELEASE);
	if (e == &s->getres)
		__atomic_store_n(&vdsokit__fast_ilp32_v1.getres32_clocks, 0, __ATOMIC_RELEASE);
	if (e == &s->time)
		__atomic_store_n(&vdsokit__fast_ilp32_v1.time32, NULL, __ATOMIC_RELEASE);
}

/* ---- vDSO calls ------------------------------------------------------ */

/*
 * One call of a clock_gettime/clock_getres entry.  -EOVERFLOW: a 32-bit
 * entry's seconds wrapped (after 2038) and the syscall must answer.
 */
static inline int call_clock(const struct vdsokit_entry *e, clockid_t clock, struct vdsokit_timespec *ts)
{
#if ARCH_VDSO_CALL5
#define CALL_CLOCK(ptr) VCALL2(int, e->fn, clock, (ptr))
#else
#define CALL_CLOCK(ptr) ((vdsokit_clock_fn)e->fn)(clock, (ptr))
#endif
	if (ARCH_NATIVE_TIME64 || e->time64)
		return CALL_CLOCK(ts);
	struct vdsokit__timespec32 t32;
	int r = CALL_CLOCK(ts ? &t32 : NULL);
	if (r == 0 && ts) {
		if (t32.tv_sec < 0)
			return -EOVERFLOW;
		ts->tv_sec = t32.tv_sec;
		ts->tv_nsec = t32.tv_nsec;
	}
	return r;
#undef CALL_CLOCK
}

static inline int call_gettimeofday(const struct vdsokit_entry *e, struct vdsokit_timeval *tv,
				    struct timezone *tz)
{
#if ARCH_VDSO_CALL5
#define CALL_GTOD(ptr) VCALL2(int, e->fn, (ptr), tz)
#else
#define CALL_GTOD(ptr) ((vdsokit_gtod_fn)e->fn)((ptr), tz)
#endif
	if (TIMEVAL_IS_OURS)
		return CALL_GTOD(tv);
	struct arch_kernel_timeval k;
	int r = CALL_GTOD(tv ? &k : NULL);
	return r == 0 && tv ? timeval_from_kernel(tv, &k) : r;
#undef CALL_GTOD
}

/* The vDSO's time(): never fails; a negative 32-bit value has wrapped. */
static inline int call_time(const struct vdsokit_entry *e, int64_t *t)
{
#if ARCH_VDSO_CALL5
	ARCH_KERNEL_LONG v = VCALL2(long, e->fn, 0, 0);
#else
	ARCH_KERNEL_LONG v = ((vdsokit_time_fn)e->fn)(NULL);
#endif
	if (v < 0)
		return v >= -4095 ? (int)v : -EOVERFLOW;
	if (t)
		*t = v;
	return 0;
}

/*
 * Whether a vDSO answer hands the call to the syscall: -ENOSYS (the vDSO
 * asks for it: old mips kernels, a clock it cannot read) or a 32-bit-time
 * entry's -EOVERFLOW (past 2038: that entry is dropped for good).  The
 * caller then makes the syscall, never a second vDSO call.
 */
static inline int vdso_declined(const struct vdsokit_entry *e, int r)
{
	if (r == -ENOSYS)
		return 1;
	if (!ARCH_NATIVE_TIME64 && r == -EOVERFLOW) {
		if (!e->time64)
			time32_entry_wrapped(e);
		return 1;
	}
	return 0;
}

static inline int clock_served(uint32_t clocks, clockid_t clock)
{
	return (unsigned)clock < 32 && (clocks >> clock) & 1;
}

/* ---- public ---------------------------------------------------------- */

/* clock_gettime through entry e, or the syscall when the vDSO declines. */
static inline int gettime_through(const struct vdsokit_entry *e, clockid_t clock,
				  struct vdsokit_timespec *ts)
{
	int r = call_clock(e, clock, ts);
	if (likely(!vdso_declined(e, r)))
		return r;
	return sys_clock_gettime(clock, ts);
}

VDSO_EXPORT int vdsokit__clock_gettime_syscall(clockid_t clock, struct vdsokit_timespec *ts)
{
	return sys_clock_gettime(clock, ts);
}

VDSO_EXPORT int vdsokit__clock_getres_syscall(clockid_t clock, struct vdsokit_timespec *res)
{
	return sys_clock_getres(clock, res);
}

/*
 * The inlined call's 32-bit-time entry answered seconds that wrapped (after
 * 2038): as the library's own call does, the entry is dropped and the
 * system call answers.
 */
VDSO_EXPORT int vdsokit__clock_gettime_wrapped(clockid_t clock, struct vdsokit_timespec *ts)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (!ARCH_NATIVE_TIME64 && !s->gettime.time64 && s->gettime.fn)
		time32_entry_wrapped(&s->gettime);
	return sys_clock_gettime(clock, ts);
}

VDSO_EXPORT int vdsokit__clock_getres_wrapped(clockid_t clock, struct vdsokit_timespec *res)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (!ARCH_NATIVE_TIME64 && !s->getres.time64 && s->getres.fn)
		time32_entry_wrapped(&s->getres);
	return sys_clock_getres(clock, res);
}

/*
 * Everything but the fast path, out of line so the fast path saves no
 * registers; programs that inline the fast path (vdsokit.h) call it too.
 */
VDSO_EXPORT __attribute__((noinline)) int vdsokit__clock_gettime_slow(clockid_t clock,
								   struct vdsokit_timespec *ts)
{
	const struct vdsokit_state *s = vdsokit_state(); /* initialises on the first call */
	if (clock_served(entry_clocks(&s->gettime), clock))
		return gettime_through(&s->gettime, clock, ts);
	return sys_clock_gettime(clock, ts);
}

/* vdsokit_clock_gettime's body, inlined into vdsokit_time too (no call through the PLT). */
static inline int clock_gettime_fast(clockid_t clock, struct vdsokit_timespec *ts)
{
	/*
	 * The mask (bits 0-30: clocks the vDSO reads in user space, bit 31:
	 * ready) is published last, with release order, by the initialisation.
	 * Ready: a clock in the mask goes to the vDSO, any other straight to
	 * the syscall.  Before that, the slow path.
	 */
	uint32_t clocks = __atomic_load_n(&vdsokit__gettime_clocks, __ATOMIC_ACQUIRE);
	if (likely((unsigned)clock < 31 && (clocks >> clock) & 1))
		/* The mask is published after the state: this load sees it. */
		return gettime_through(&__atomic_load_n(&vdsokit__published, __ATOMIC_RELAXED)->gettime,
				       clock, ts);
	if (likely(clocks != 0))
		/* Ready, and the vDSO has no user-space read for this clock (or no vDSO). */
		return sys_clock_gettime(clock, ts);
	return vdsokit__clock_gettime_slow(clock, ts);
}

VDSO_EXPORT int vdsokit_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
	return clock_gettime_fast(clock, ts);
}

/* clock_getres before the library is ready, or for a clock its entry does not serve. */
static __attribute__((noinline)) int clock_getres_slow(clockid_t clock, struct vdsokit_timespec *res)
{
	const struct vdsokit_state *s = vdsokit_state(); /* initialises on the first call */
	if (clock_served(entry_clocks(&s->getres), clock)) {
		int r = call_clock(&s->getres, clock, res);
		if (!vdso_declined(&s->getres, r))
			return r;
	}
	return sys_clock_getres(clock, res);
}

/* As vdsokit_clock_gettime: the mask first, the state only for a call through it. */
VDSO_EXPORT int vdsokit_clock_getres(clockid_t clock, struct vdsokit_timespec *res)
{
	uint32_t clocks = __atomic_load_n(&vdsokit__getres_clocks, __ATOMIC_ACQUIRE);
	if (likely((unsigned)clock < 31 && (clocks >> clock) & 1)) {
		const struct vdsokit_entry *e =
			&__atomic_load_n(&vdsokit__published, __ATOMIC_RELAXED)->getres;
		int r = call_clock(e, clock, res);
		if (likely(!vdso_declined(e, r)))
			return r;
		return sys_clock_getres(clock, res);
	}
	if (likely(clocks != 0))
		return sys_clock_getres(clock, res);
	return clock_getres_slow(clock, res);
}

VDSO_EXPORT int vdsokit_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (likely(entry_in_use(&s->gettimeofday))) {
		int r = call_gettimeofday(&s->gettimeofday, tv, tz);
		if (likely(!vdso_declined(&s->gettimeofday, r)))
			return r;
	}
	return sys_gettimeofday(tv, tz);
}

/*
 * time(): the vDSO's own entry where there is one; else the seconds of
 * CLOCK_REALTIME_COARSE, which is what the kernel's time() returns (the
 * seconds as of the last tick) and which the vDSO serves on every
 * architecture that has clock_gettime.
 */
VDSO_EXPORT int vdsokit_time(int64_t *t)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (entry_in_use(&s->time)) {
		int r = call_time(&s->time, t);
		if (!vdso_declined(&s->time, r))
			return r;
	}
	struct vdsokit_timespec ts;
	int r = clock_gettime_fast(CLOCK_REALTIME_COARSE, &ts);
	if (r)
		return r;
	if (t)
		*t = ts.tv_sec;
	return 0;
}

/* ---- one path only ---------------------------------------------------- */

VDSO_EXPORT int vdsokit_clock_gettime_via(enum vdsokit_route route, clockid_t clock, struct vdsokit_timespec *ts)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_clock_gettime(clock, ts);
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->gettime.fn ? call_clock(&s->gettime, clock, ts) : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_clock_gettime(clock, ts);
}

VDSO_EXPORT int vdsokit_clock_getres_via(enum vdsokit_route route, clockid_t clock, struct vdsokit_timespec *res)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_clock_getres(clock, res);
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->getres.fn ? call_clock(&s->getres, clock, res) : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_clock_getres(clock, res);
}

VDSO_EXPORT int vdsokit_gettimeofday_via(enum vdsokit_route route, struct vdsokit_timeval *tv, struct timezone *tz)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_gettimeofday(tv, tz);
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->gettimeofday.fn ? call_gettimeofday(&s->gettimeofday, tv, tz) : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_gettimeofday(tv, tz);
}

VDSO_EXPORT int vdsokit_time_via(enum vdsokit_route route, int64_t *t)
{
	if (route == VDSOKIT_ROUTE_SYSCALL) {
		/*
		 * time(2) only where its return fits the syscall helpers' long:
		 * x32's kernel returns 64 bits that a 32-bit long would wrap in 2038.
		 */
#if defined(__NR_time) && __SIZEOF_LONG__ == 8
		long v = sys1(__NR_time, 0);
		if (v < 0 && v >= -4095)
			return (int)v;
		if (t)
			*t = v;
		return 0;
#else
		struct vdsokit_timespec ts;
		int r = sys_clock_gettime(CLOCK_REALTIME_COARSE, &ts);
		if (r == 0 && t)
			*t = ts.tv_sec;
		return r;
#endif
	}
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->time.fn ? call_time(&s->time, t) : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_time(t);
}
