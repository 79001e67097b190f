// SPDX-License-Identifier: MIT
/* vdsokit_route_of: which path a call takes, and why; names for the enums. */
#include <string.h>
#include <time.h>

#include "internal.h"

static void path_syscall(struct vdsokit_route_info *p, enum vdsokit_reason why, const char *name, long nr)
{
	p->route = VDSOKIT_ROUTE_SYSCALL;
	p->reason = why;
	p->syscall = name;
	p->syscall_nr = nr;
}

static void path_vdso(struct vdsokit_route_info *p, const struct vdsokit_entry *e)
{
	p->route = VDSOKIT_ROUTE_VDSO;
	p->reason = e->reason; /* OK, or TIME32 for a 32-bit-time entry */
	p->symbol = vdsokit_arch_symbols[e->sym].name;
	p->version = e->version;
	p->address = e->fn;
}

/* A function served by one entry or one syscall. */
static void path_simple(struct vdsokit_route_info *p, const struct vdsokit_entry *e,
			const char *sysname, long nr)
{
	if (entry_in_use(e))
		path_vdso(p, e);
	else
		path_syscall(p, e->fn ? VDSOKIT_REASON_TIME32_OVERFLOWED : e->reason, sysname, nr);
}

static void path_clock(struct vdsokit_route_info *p, const struct vdsokit_entry *e,
		       clockid_t clock, const char *sysname, long nr)
{
	if (!entry_in_use(e))
		path_syscall(p, e->fn ? VDSOKIT_REASON_TIME32_OVERFLOWED : e->reason, sysname, nr);
	else if ((unsigned)clock < 32 && (entry_clocks(e) >> clock) & 1)
		path_vdso(p, e);
	else
		/* The vDSO would only make this syscall itself: the library makes it. */
		path_syscall(p, VDSOKIT_REASON_CLOCK_IN_KERNEL, sysname, nr);
}

VDSO_EXPORT int vdsokit_route_of(enum vdsokit_func fn, clockid_t clock, struct vdsokit_route_info *p)
{
	if (!p)
		return -EINVAL;
	const struct vdsokit_state *s = vdsokit_state();
	memset(p, 0, sizeof(*p));
	p->syscall_nr = -1;
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		path_clock(p, &s->gettime, clock,
			   vdsokit__sys_clock_gettime_name(), vdsokit__sys_clock_gettime_nr());
		return 0;
	case VDSOKIT_FN_CLOCK_GETRES:
		path_clock(p, &s->getres, clock,
			   vdsokit__sys_clock_getres_name(), vdsokit__sys_clock_getres_nr());
		return 0;
	case VDSOKIT_FN_GETTIMEOFDAY:
#if ARCH_NATIVE_TIME64 && defined(__NR_gettimeofday)
		path_simple(p, &s->gettimeofday, "gettimeofday", __NR_gettimeofday);
#else
		path_simple(p, &s->gettimeofday, vdsokit__sys_clock_gettime_name(), vdsokit__sys_clock_gettime_nr());
#endif
		return 0;
	case VDSOKIT_FN_TIME:
		if (entry_in_use(&s->time))
			path_vdso(p, &s->time);
		else
			/* time() is the seconds of CLOCK_REALTIME_COARSE, whichever way it goes. */
			path_clock(p, &s->gettime, CLOCK_REALTIME_COARSE,
				   vdsokit__sys_clock_gettime_name(), vdsokit__sys_clock_gettime_nr());
		return 0;
	case VDSOKIT_FN_GETCPU:
		/* symbol/syscall: what answers a call that wants the node too. */
		path_simple(p, &s->getcpu, "getcpu", __NR_getcpu);
		if (s->rseq_covers & RSEQ_COVERS_CPU) {
			p->route = VDSOKIT_ROUTE_RSEQ;
			p->reason = s->rseq_covers & RSEQ_COVERS_NODE ? VDSOKIT_REASON_RSEQ_AREA
								      : VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY;
		}
		return 0;
	case VDSOKIT_FN_GETRANDOM:
		if (s->getrandom.fn && !vdsokit__random_vdso_usable())
			path_syscall(p, VDSOKIT_REASON_NO_STATE, "getrandom", __NR_getrandom);
		else
			path_simple(p, &s->getrandom, "getrandom", __NR_getrandom);
		return 0;
	case VDSOKIT_FN_THREAD_POINTER:
#if ARCH_HAS_TP_REGISTER
		p->route = VDSOKIT_ROUTE_REGISTER;
		p->reason = VDSOKIT_REASON_ABI_REGISTER;
#elif defined(__NR_get_thread_area)
		path_simple(p, &s->thread_area, "get_thread_area", __NR_get_thread_area);
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
	const struct vdsokit_entry *e;
	if (!entry)
		return -EINVAL;
	*entry = NULL;
	const struct vdsokit_state *s = vdsokit_state();
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME: e = &s->gettime; break;
	case VDSOKIT_FN_CLOCK_GETRES: e = &s->getres; break;
	case VDSOKIT_FN_GETTIMEOFDAY: e = &s->gettimeofday; break;
	case VDSOKIT_FN_TIME: e = &s->time; break;
	case VDSOKIT_FN_GETCPU: e = &s->getcpu; break;
	case VDSOKIT_FN_GETRANDOM:
	case VDSOKIT_FN_THREAD_POINTER: return -EOPNOTSUPP;
	default: return -EINVAL;
	}
	if (ARCH_VDSO_CALL5)
		return -EOPNOTSUPP; /* only the arch's call sequence is correct */
	/* What path_of names: an entry dropped after a 32-bit overflow is none. */
	if (!entry_in_use(e))
		return -ENOENT;
	*entry = e->fn;
	if (time64)
		*time64 = (int)e->time64;
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
	}
	return "unknown";
}
