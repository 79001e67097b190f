// SPDX-License-Identifier: MIT
/*
 * clock_gettime, clock_getres, gettimeofday and time: the route src/vdso.c
 * published, else the syscall.  On 32-bit architectures everything is
 * returned as 64-bit time: a 32-bit-time entry's answers are checked for a
 * wrap (after 2038), which drops the entry for good.
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

const long vdsokit_lib_nr_gettime = NR_GETTIME, vdsokit_lib_nr_getres = NR_GETRES;
const char vdsokit_lib_name_gettime[] = NAME_GETTIME, vdsokit_lib_name_getres[] = NAME_GETRES;

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

static int sys_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
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

/* ---- vDSO calls ------------------------------------------------------ */

/* A 64-bit-time entry; where it is called from assembly (powerpc), through that. */
static inline int call_clock64(clock_route_fn fn, clockid_t clock, struct vdsokit_timespec *ts)
{
#if ARCH_VDSO_CALL5
	return VCALL2_INT(fn, clock, ts);
#else
	return fn(clock, ts);
#endif
}

/* A 32-bit-time entry, widened; -EOVERFLOW once its seconds have wrapped (after 2038). */
static inline int call_clock32(int (*fn)(clockid_t, struct vdsokit__timespec32 *), clockid_t clock,
			       struct vdsokit_timespec *ts)
{
	struct vdsokit__timespec32 t32;
#if ARCH_VDSO_CALL5
	int r = VCALL2_INT(fn, clock, ts ? &t32 : NULL);
#else
	int r = fn(clock, ts ? &t32 : NULL);
#endif
	if (r == 0 && ts) {
		if (t32.tv_sec < 0)
			return -EOVERFLOW;
		ts->tv_sec = t32.tv_sec;
		ts->tv_nsec = t32.tv_nsec;
	}
	return r;
}

int vdsokit_lib_clock_gettime_syscall(clockid_t clock, struct vdsokit_timespec *ts)
{
	return sys_clock_gettime(clock, ts);
}

int vdsokit_lib_clock_getres_syscall(clockid_t clock, struct vdsokit_timespec *res)
{
	return sys_clock_getres(clock, res);
}

#if !ARCH_NATIVE_TIME64
/*
 * A clock the kernel's 32-bit-time entry (sym) reads, for a kernel without
 * a 64-bit-time one: the entry, widened.  Its -ENOSYS (its fallback to a
 * 32-bit-time syscall that a y2038 kernel lacks, for a clock it cannot
 * read) goes to the syscall; its wrapped seconds (after 2038) drop it.
 * Inlined into each route's function: on sparc32 a second function is a
 * second register window and GOT set-up per call.
 */
static inline __attribute__((always_inline)) int clock_time32(enum vdsokit_lib_sym sym, clock_route_fn sys,
							     clockid_t clock, struct vdsokit_timespec *ts)
{
	int (*fn)(clockid_t, struct vdsokit__timespec32 *) =
		(int (*)(clockid_t, struct vdsokit__timespec32 *))(uintptr_t)vdsokit_lib_entry(sym);
	if (likely(fn != NULL)) {
		int r = call_clock32(fn, clock, ts);
		if (likely(r != -ENOSYS && r != -EOVERFLOW))
			return r;
		if (r == -EOVERFLOW)
			vdsokit_lib_drop_time32(sym);
	}
	return sys(clock, ts);
}

int vdsokit_lib_clock_gettime_time32(clockid_t clock, struct vdsokit_timespec *ts)
{
	return clock_time32(SYM_CLOCK_GETTIME, sys_clock_gettime, clock, ts);
}

int vdsokit_lib_clock_getres_time32(clockid_t clock, struct vdsokit_timespec *res)
{
	return clock_time32(SYM_CLOCK_GETRES, sys_clock_getres, clock, res);
}
#endif

/*
 * A clock's slot (include/vdsokit.h): one load and the call, as the
 * header's inline code makes it.  Where the entry is called from assembly
 * (powerpc), a slot holds a vDSO entry, a mark of the library's function
 * (src/internal.h), or NULL, the first call's function: one compare tells
 * an entry from the rest.
 */
static inline int clock_routed(clock_route_fn const *slots, clock_route_fn first, clock_route_fn sys,
			       clock_route_fn time32, clockid_t clock, struct vdsokit_timespec *ts)
{
	clock_route_fn fn = __atomic_load_n(&slots[(unsigned)clock % VDSOKIT__CLOCK_SLOTS], __ATOMIC_RELAXED);
#if ARCH_VDSO_CALL5
	if (unlikely((uintptr_t)fn <= (uintptr_t)SLOT_TIME32))
		return fn == SLOT_SYSCALL ? sys(clock, ts) : fn == SLOT_TIME32 ? time32(clock, ts) : first(clock, ts);
	return VCALL2_INT(fn, clock, ts);
#else
	(void)first;
	(void)sys;
	(void)time32;
	return fn(clock, ts);
#endif
}

#define GETTIME_ROUTED(clock, ts)                                                                    \
	clock_routed(vdsokit__routes_v3.gettime, vdsokit_lib_clock_gettime_first,                      \
		     vdsokit_lib_clock_gettime_syscall, CLOCK_TIME32(gettime), (clock), (ts))
#define GETRES_ROUTED(clock, res)                                                                    \
	clock_routed(vdsokit__routes_v3.getres, vdsokit_lib_clock_getres_first,                        \
		     vdsokit_lib_clock_getres_syscall, CLOCK_TIME32(getres), (clock), (res))

/*
 * The slots' first function: it resolves the clocks (if no call has
 * resolved all), then calls what that put in the slot, which is never this
 * function again.
 * Never inlined: the public functions reach it by a tail call and keep no
 * register across it, so their fast path saves none.
 */
int vdsokit_lib_clock_gettime_first(clockid_t clock, struct vdsokit_timespec *ts) __attribute__((noinline));
int vdsokit_lib_clock_getres_first(clockid_t clock, struct vdsokit_timespec *res) __attribute__((noinline));

static inline int clock_first(clock_route_fn const *slots, clock_route_fn first, clock_route_fn sys,
			      clock_route_fn time32, clockid_t clock, struct vdsokit_timespec *ts)
{
	/* Acquire: slots stored by a whole resolution seen finished are seen. */
	if (__atomic_load_n(&vdsokit_lib_resolved.status, __ATOMIC_ACQUIRE) == FOUND_NOT_YET)
		vdsokit_lib_resolve_clocks();
	clock_route_fn fn = __atomic_load_n(&slots[(unsigned)clock % VDSOKIT__CLOCK_SLOTS], __ATOMIC_RELAXED);
	if (unlikely(fn == first || fn == NULL))
		return sys(clock, ts); /* not reached: a resolution publishes every slot */
	return clock_routed(slots, first, sys, time32, clock, ts);
}

int vdsokit_lib_clock_gettime_first(clockid_t clock, struct vdsokit_timespec *ts)
{
	return clock_first(vdsokit__routes_v3.gettime, vdsokit_lib_clock_gettime_first,
			   vdsokit_lib_clock_gettime_syscall, CLOCK_TIME32(gettime), clock, ts);
}

int vdsokit_lib_clock_getres_first(clockid_t clock, struct vdsokit_timespec *res)
{
	return clock_first(vdsokit__routes_v3.getres, vdsokit_lib_clock_getres_first,
			   vdsokit_lib_clock_getres_syscall, CLOCK_TIME32(getres), clock, res);
}

/* ---- public ---------------------------------------------------------- */

VDSO_EXPORT int vdsokit_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
	return GETTIME_ROUTED(clock, ts);
}

VDSO_EXPORT int vdsokit_clock_getres(clockid_t clock, struct vdsokit_timespec *res)
{
	return GETRES_ROUTED(clock, res);
}

/* ---- gettimeofday ---------------------------------------------------- */

static inline int call_gettimeofday(int (*fn)(void *, void *), struct vdsokit_timeval *tv, struct timezone *tz)
{
#if ARCH_VDSO_CALL5
#define CALL_GTOD(ptr) VCALL2_INT(fn, (ptr), tz)
#else
#define CALL_GTOD(ptr) fn((ptr), tz)
#endif
	if (TIMEVAL_IS_OURS)
		return CALL_GTOD(tv);
	struct arch_kernel_timeval k;
	int r = CALL_GTOD(tv ? &k : NULL);
	return r == 0 && tv ? timeval_from_kernel(tv, &k) : r;
#undef CALL_GTOD
}

/*
 * Without a vDSO entry.  Where the kernel's time is 64-bit, its syscall.
 * Elsewhere no gettimeofday syscall has 64-bit time: the time is the
 * library's CLOCK_REALTIME (the vDSO's clock_gettime64 where there is one),
 * and the timezone the 32-bit syscall's where the kernel still has it
 * (without COMPAT_32BIT_TIME it has not: zero, as glibc gives).
 */
static int gettimeofday_without_entry(struct vdsokit_timeval *tv, struct timezone *tz)
{
#if ARCH_NATIVE_TIME64 && defined(__NR_gettimeofday)
	if (TIMEVAL_IS_OURS || !tv)
		return (int)sys2(__NR_gettimeofday, tv, tz);
	struct arch_kernel_timeval k;
	int r = (int)sys2(__NR_gettimeofday, &k, tz);
	return r ? r : timeval_from_kernel(tv, &k);
#else
	if (tv) {
		struct vdsokit_timespec ts;
		int r = GETTIME_ROUTED(CLOCK_REALTIME, &ts);
		if (r)
			return r;
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	if (tz) {
#ifdef __NR_gettimeofday
		if (sys2(__NR_gettimeofday, NULL, tz) == 0)
			return 0;
#endif
		tz->tz_minuteswest = 0;
		tz->tz_dsttime = 0;
	}
	return 0;
#endif
}

static int sys_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz)
{
#if ARCH_NATIVE_TIME64 && defined(__NR_gettimeofday)
	return gettimeofday_without_entry(tv, tz);
#else
	/* The syscall route: no vDSO at all. */
	if (tv) {
		struct vdsokit_timespec ts;
		int r = sys_clock_gettime(CLOCK_REALTIME, &ts);
		if (r)
			return r;
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return gettimeofday_without_entry(NULL, tz);
#endif
}

/* Through the entry fn where there is one; else without (above). */
static int gettimeofday_through(int (*fn)(void *, void *), struct vdsokit_timeval *tv, struct timezone *tz)
{
	if (likely(fn != NULL)) {
		int r = call_gettimeofday(fn, tv, tz);
		if (likely(!vdso_declined(r) && r != -EOVERFLOW))
			return r;
		if (r == -EOVERFLOW)
			vdsokit_lib_drop_time32(SYM_GETTIMEOFDAY);
	}
	return gettimeofday_without_entry(tv, tz);
}

/* No route yet, or none: resolve if no call has, then what was published. */
static __attribute__((noinline)) int gettimeofday_unrouted(struct vdsokit_timeval *tv, struct timezone *tz)
{
	vdsokit_lib_ensure_resolved();
	return gettimeofday_through(ROUTE(gettimeofday), tv, tz);
}

VDSO_EXPORT int vdsokit_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz)
{
	int (*fn)(void *, void *) = ROUTE(gettimeofday);
	if (unlikely(fn == NULL))
		return gettimeofday_unrouted(tv, tz);
	/* The kernel's timeval is ours: the entry's answer is the answer (a tail call). */
	if (TIMEVAL_IS_OURS && !ARCH_VDSO_MAY_DECLINE)
		return call_gettimeofday(fn, tv, tz);
	return gettimeofday_through(fn, tv, tz);
}

/* ---- time ------------------------------------------------------------ */

/* The vDSO's time(): never fails; a negative 32-bit value has wrapped. */
static inline int call_time(const void *fn, int64_t *t)
{
#if ARCH_VDSO_CALL5
	ARCH_KERNEL_LONG v = VCALL2_LONG(fn, 0, 0);
#else
	ARCH_KERNEL_LONG v = ((vdso_time_fn)(uintptr_t)fn)(NULL);
#endif
	if (v < 0)
		return v >= -4095 ? (int)v : -EOVERFLOW;
	if (t)
		*t = v;
	return 0;
}

/* CLOCK_REALTIME_COARSE's seconds: what the kernel's time() returns (the last tick's). */
static int time_from_coarse(int64_t *t)
{
	struct vdsokit_timespec ts;
	int r = GETTIME_ROUTED(CLOCK_REALTIME_COARSE, &ts);
	if (r == 0 && t)
		*t = ts.tv_sec;
	return r;
}

#define TIME_ROUTE() (ARCH_NATIVE_TIME64 ? (const void *)ROUTE(time) : (const void *)ROUTE(time32))

/* The vDSO's own time() where there is one (fn); else CLOCK_REALTIME_COARSE's seconds. */
static int time_through(const void *fn, int64_t *t)
{
	if (likely(fn != NULL)) {
		int r = call_time(fn, t);
		if (likely(!vdso_declined(r) && r != -EOVERFLOW))
			return r;
		if (r == -EOVERFLOW)
			vdsokit_lib_drop_time32(SYM_TIME);
	}
	return time_from_coarse(t);
}

/* No route yet, or none: resolve if no call has, then what was published. */
static __attribute__((noinline)) int time_unrouted(int64_t *t)
{
	vdsokit_lib_ensure_resolved();
	return time_through(TIME_ROUTE(), t);
}

VDSO_EXPORT int vdsokit_time(int64_t *t)
{
	const void *fn = TIME_ROUTE();
	if (unlikely(fn == NULL))
		return time_unrouted(t);
#if ARCH_VDSO_CALL5 && ARCH_NATIVE_TIME64
	return arch_vdso_time64(t, fn); /* its answer is the answer: a tail call */
#else
	return time_through(fn, t);
#endif
}

/* ---- one route only --------------------------------------------------- */

/*
 * The vDSO entry for fn, for VDSOKIT_ROUTE_VDSO: the one the calls use, or
 * one they dropped after it wrapped (it may still be asked); NULL: none.
 */
static struct choice vdso_entry(enum vdsokit_func fn)
{
	const struct found *f = vdsokit_lib_found();
	struct choice c = vdsokit_lib_choose(f, fn);
	if (c.reason == VDSOKIT_REASON_TIME32_OVERFLOWED)
		c.fn = __atomic_load_n(&f->addr[c.sym], __ATOMIC_RELAXED);
	return c;
}

VDSO_EXPORT int vdsokit_clock_gettime_via(enum vdsokit_route route, clockid_t clock, struct vdsokit_timespec *ts)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_clock_gettime(clock, ts);
	if (route == VDSOKIT_ROUTE_VDSO) {
		struct choice c = vdso_entry(VDSOKIT_FN_CLOCK_GETTIME);
		if (!c.fn)
			return -ENOSYS;
		if (c.time64)
			return call_clock64((clock_route_fn)(uintptr_t)c.fn, clock, ts);
		return call_clock32((int (*)(clockid_t, struct vdsokit__timespec32 *))(uintptr_t)c.fn, clock, ts);
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
		struct choice c = vdso_entry(VDSOKIT_FN_CLOCK_GETRES);
		if (!c.fn)
			return -ENOSYS;
		if (c.time64)
			return call_clock64((clock_route_fn)(uintptr_t)c.fn, clock, res);
		return call_clock32((int (*)(clockid_t, struct vdsokit__timespec32 *))(uintptr_t)c.fn, clock, res);
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
		const void *fn = vdso_entry(VDSOKIT_FN_GETTIMEOFDAY).fn;
		return fn ? call_gettimeofday((int (*)(void *, void *))(uintptr_t)fn, tv, tz) : -ENOSYS;
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
		const void *fn = vdso_entry(VDSOKIT_FN_TIME).fn;
		return fn ? call_time(fn, t) : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_time(t);
}
