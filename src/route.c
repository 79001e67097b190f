// SPDX-License-Identifier: MIT
/* vdsokit_route_of: which route a call takes, and why; names for the enums. */
#include <string.h>
#include <time.h>

#include "internal.h"

/* *p with nothing found yet: this release's fields, every other byte 0. */
static void route_clear(struct vdsokit_route_info *p)
{
	memset(p, 0, sizeof(*p));
	p->struct_version = VDSOKIT_ROUTE_INFO_VERSION;
	p->syscall_nr = -1;
}

static void route_syscall(struct vdsokit_route_info *p, enum vdsokit_reason why, const char *name, long nr)
{
	p->route = VDSOKIT_ROUTE_SYSCALL;
	p->reason = why;
	p->syscall = name;
	p->syscall_nr = nr;
}

/* Why no entry serves a call: no image at all, or this image lacks it. */
static enum vdsokit_reason why_not(const struct found *f, const struct choice *c)
{
	int status = vdsokit_lib_found_status(f);
	if (status == FOUND_NO_VDSO)
		return VDSOKIT_REASON_NO_VDSO;
	if (status == FOUND_BAD_IMAGE)
		return VDSOKIT_REASON_BAD_IMAGE;
	return c->reason;
}

/* A call served by its entry or one syscall. */
static void route_simple(struct vdsokit_route_info *p, const struct found *f, enum vdsokit_func fn,
			 const char *sysname, long nr)
{
	struct choice c = vdsokit_lib_choose(f, fn);
	route_clear(p);
	if (!c.fn) {
		route_syscall(p, why_not(f, &c), sysname, nr);
		return;
	}
	p->route = VDSOKIT_ROUTE_VDSO;
	p->reason = c.reason; /* OK, or TIME32 for a 32-bit-time entry */
	p->symbol = vdsokit_lib_arch_symbols[c.sym].name;
	p->version = c.version;
	p->address = c.fn;
}

/* clock_gettime/clock_getres: the entry for the clocks it reads in user space. */
static void route_clock(struct vdsokit_route_info *p, const struct found *f, enum vdsokit_func fn,
			clockid_t clock, const char *sysname, long nr)
{
	route_simple(p, f, fn, sysname, nr);
	if (p->route != VDSOKIT_ROUTE_VDSO)
		return;
	if (!clock_in(vdsokit_lib_vdso_clocks(fn), clock)) {
		/* The vDSO would only make this syscall itself: the library makes it. */
		route_clear(p);
		route_syscall(p, VDSOKIT_REASON_CLOCK_IN_KERNEL, sysname, nr);
	} else if ((unsigned)clock >= 32) {
		/* An id that lands on a clock the vDSO reads: the vDSO gets it, and enters the kernel. */
		p->route = VDSOKIT_ROUTE_VDSO_KERNEL;
		p->reason = VDSOKIT_REASON_CLOCK_IN_KERNEL;
		p->syscall = sysname;
		p->syscall_nr = nr;
	}
}

VDSO_EXPORT int vdsokit_route_of(enum vdsokit_func fn, clockid_t clock, struct vdsokit_route_info *p)
{
	if (!p)
		return -EINVAL;
	const struct found *f = vdsokit_lib_found();
	route_clear(p);
	p->route = VDSOKIT_ROUTE_NONE;
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		route_clock(p, f, fn, clock, vdsokit_lib_name_gettime, vdsokit_lib_nr_gettime);
		return 0;
	case VDSOKIT_FN_CLOCK_GETRES:
		route_clock(p, f, fn, clock, vdsokit_lib_name_getres, vdsokit_lib_nr_getres);
		return 0;
	case VDSOKIT_FN_GETTIMEOFDAY:
#if ARCH_NATIVE_TIME64 && defined(__NR_gettimeofday)
		route_simple(p, f, fn, "gettimeofday", __NR_gettimeofday);
#else
		/* No 64-bit-time gettimeofday syscall: without its entry, CLOCK_REALTIME's route. */
		route_simple(p, f, fn, vdsokit_lib_name_gettime, vdsokit_lib_nr_gettime);
		if (p->route != VDSOKIT_ROUTE_VDSO)
			route_clock(p, f, VDSOKIT_FN_CLOCK_GETTIME, CLOCK_REALTIME, vdsokit_lib_name_gettime,
				    vdsokit_lib_nr_gettime);
#endif
		return 0;
	case VDSOKIT_FN_TIME:
		route_simple(p, f, fn, vdsokit_lib_name_gettime, vdsokit_lib_nr_gettime);
		if (p->route != VDSOKIT_ROUTE_VDSO)
			/* time() is the seconds of CLOCK_REALTIME_COARSE, whichever way it goes. */
			route_clock(p, f, VDSOKIT_FN_CLOCK_GETTIME, CLOCK_REALTIME_COARSE,
				    vdsokit_lib_name_gettime, vdsokit_lib_nr_gettime);
		return 0;
	case VDSOKIT_FN_GETCPU: {
		/* symbol/syscall: what answers a call that wants the node too. */
		route_simple(p, f, fn, "getcpu", __NR_getcpu);
		intptr_t rseq_cpu = ROUTE(rseq_cpu);
		if (rseq_cpu & VDSOKIT__RSEQ_CPU) {
			p->route = VDSOKIT_ROUTE_RSEQ;
			p->reason = rseq_cpu & VDSOKIT__RSEQ_NODE ? VDSOKIT_REASON_RSEQ_AREA
								   : VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY;
		}
		return 0;
	}
	case VDSOKIT_FN_GETRANDOM: {
		route_simple(p, f, fn, "getrandom", __NR_getrandom);
		enum vdsokit_reason why = vdsokit_lib_random_reason(f);
		if (p->route == VDSOKIT_ROUTE_VDSO && why != VDSOKIT_REASON_OK) {
			route_clear(p);
			route_syscall(p, why, "getrandom", __NR_getrandom);
		}
		return 0;
	}
	case VDSOKIT_FN_THREAD_POINTER:
#if ARCH_HAS_TP_REGISTER
		p->route = VDSOKIT_ROUTE_REGISTER;
		p->reason = VDSOKIT_REASON_ABI_REGISTER;
#elif defined(__NR_get_thread_area)
		route_simple(p, f, fn, "get_thread_area", __NR_get_thread_area);
#else
		p->route = VDSOKIT_ROUTE_NONE;
		p->reason = VDSOKIT_REASON_NOT_ON_ARCH;
#endif
		return 0;
	default:
		return -EINVAL;
	}
}

VDSO_EXPORT int vdsokit_bare_entry(enum vdsokit_func fn, const void **entry, int *time64)
{
	if (!entry)
		return -EINVAL;
	*entry = NULL;
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
	case VDSOKIT_FN_CLOCK_GETRES:
	case VDSOKIT_FN_GETTIMEOFDAY:
	case VDSOKIT_FN_TIME:
	case VDSOKIT_FN_GETCPU:
		break;
	case VDSOKIT_FN_GETRANDOM:
	case VDSOKIT_FN_THREAD_POINTER:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	if (ARCH_VDSO_CALL5)
		return -EOPNOTSUPP; /* only the arch's call sequence is correct */
	/* What route_of names: an entry dropped after a 32-bit wrap is none. */
	struct choice c = vdsokit_lib_choose(vdsokit_lib_found(), fn);
	if (!c.fn)
		return -ENOENT;
	*entry = c.fn;
	if (time64)
		*time64 = (int)c.time64;
	return 0;
}

VDSO_EXPORT const char *vdsokit_func_name(enum vdsokit_func fn)
{
	static const char *const names[VDSOKIT_FN_COUNT] = {
		[VDSOKIT_FN_CLOCK_GETTIME] = "clock_gettime",
		[VDSOKIT_FN_CLOCK_GETRES] = "clock_getres",
		[VDSOKIT_FN_GETTIMEOFDAY] = "gettimeofday",
		[VDSOKIT_FN_TIME] = "time",
		[VDSOKIT_FN_GETCPU] = "getcpu",
		[VDSOKIT_FN_GETRANDOM] = "getrandom",
		[VDSOKIT_FN_THREAD_POINTER] = "thread_pointer",
	};
	return (unsigned)fn < VDSOKIT_FN_COUNT ? names[fn] : NULL;
}

VDSO_EXPORT const char *vdsokit_route_name(enum vdsokit_route route)
{
	switch (route) {
	case VDSOKIT_ROUTE_VDSO: return "vdso";
	case VDSOKIT_ROUTE_VDSO_KERNEL: return "vdso-kernel";
	case VDSOKIT_ROUTE_SYSCALL: return "syscall";
	case VDSOKIT_ROUTE_REGISTER: return "register";
	case VDSOKIT_ROUTE_NONE: return "none";
	case VDSOKIT_ROUTE_RSEQ: return "rseq";
	case VDSOKIT_ROUTE_AUTO: return "auto";
	}
	return "unknown";
}

VDSO_EXPORT const char *vdsokit_reason_text(enum vdsokit_reason reason)
{
	switch (reason) {
	case VDSOKIT_REASON_OK: return "fast path";
	case VDSOKIT_REASON_NO_VDSO: return "no vDSO mapped in this process";
	case VDSOKIT_REASON_BAD_IMAGE: return "the vDSO image failed validation";
	case VDSOKIT_REASON_NOT_ON_ARCH: return "no vDSO entry for it on this architecture";
	case VDSOKIT_REASON_SYMBOL_ABSENT: return "this kernel's vDSO lacks the symbol";
	case VDSOKIT_REASON_CLOCK_IN_KERNEL: return "the vDSO has no user-space read for this clock";
	case VDSOKIT_REASON_UNTRUSTED: return "present but untrusted (clock_gettime64 without clock_gettime)";
	case VDSOKIT_REASON_TIME32: return "32-bit-time entry, checked for overflow";
	case VDSOKIT_REASON_ABI_REGISTER: return "read from the ABI thread-pointer register";
	case VDSOKIT_REASON_NO_STATE: return "the vDSO's getrandom state could not be set up";
	case VDSOKIT_REASON_TIME32_OVERFLOWED:
		return "the 32-bit-time entry overflowed (past 2038) and is no longer called";
	case VDSOKIT_REASON_ENTRY_IS_SYSCALL:
		return "the vDSO entry only makes the syscall: the library makes it directly";
	case VDSOKIT_REASON_RSEQ_AREA:
		return "read from the libc's rseq area, the node too";
	case VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY:
		return "cpu_id only: the node from the vDSO or the syscall";
	case VDSOKIT_REASON_NO_EXIT_HOOK:
		return "no async-signal-safe thread-exit hook for getrandom's states (libvdsokit loaded after 32 pthread keys)";
	case VDSOKIT_REASON_NO_STATE_MEMORY:
		return "no getrandom state: the states' memory could not be set up (mmap refused)";
	}
	return "unknown";
}
