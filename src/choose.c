// SPDX-License-Identifier: MIT
/*
 * Which vDSO entry serves which call, from the entries the image offers:
 * one answer, which src/vdso.c publishes as the routes the calls take and
 * src/route.c reports (vdsokit_route_of).  Without an image every entry is
 * absent; route.c says why.
 */
#include <time.h>

#include "internal.h"

/* The reason a missing entry is missing: never on this arch, or not in this kernel. */
static enum vdsokit_reason absent(enum vdsokit_lib_sym sym)
{
	return vdsokit_lib_arch_symbols[sym].name ? VDSOKIT_REASON_SYMBOL_ABSENT : VDSOKIT_REASON_NOT_ON_ARCH;
}

static struct choice entry(const struct found *f, enum vdsokit_lib_sym sym, unsigned time64,
			   enum vdsokit_reason reason)
{
	/* Atomic: a late resolution may be storing the same values. */
	struct choice c = { __atomic_load_n(&f->addr[sym], __ATOMIC_RELAXED),
			    __atomic_load_n(&f->version[sym], __ATOMIC_RELAXED), sym, time64, reason };
	if (!c.fn)
		c.reason = absent(sym);
	return c;
}

/* A 32-bit-time entry that answered wrapped seconds (after 2038) serves nothing more. */
static struct choice unless_dropped(struct choice c)
{
	if (c.fn && !c.time64 && (__atomic_load_n(&vdsokit_lib_dropped, __ATOMIC_RELAXED) >> c.sym) & 1) {
		c.fn = NULL;
		c.reason = VDSOKIT_REASON_TIME32_OVERFLOWED;
	}
	return c;
}

static struct choice native(const struct found *f, enum vdsokit_lib_sym sym)
{
	return unless_dropped(entry(f, sym, ARCH_NATIVE_TIME64, VDSOKIT_REASON_OK));
}

/*
 * A time function with a 64-bit-time entry (sym64) and a native one: on
 * 64-bit architectures the native entry is already 64-bit.  On 32-bit
 * ones, the 64-bit entry first, then the 32-bit one, whose answers the call
 * checks for a wrap.  On arm the 64-bit entry counts only beside the 32-bit
 * one or clock_getres_time64 (pre-5.8 kernels exported it broken on its own).
 */
static struct choice time_entry(const struct found *f, enum vdsokit_lib_sym native_sym, enum vdsokit_lib_sym sym64)
{
	if (ARCH_NATIVE_TIME64)
		return native(f, native_sym);
	const void *fn32 = __atomic_load_n(&f->addr[native_sym], __ATOMIC_RELAXED);
	const void *fn64 = __atomic_load_n(&f->addr[sym64], __ATOMIC_RELAXED);
	if (fn64 && ARCH_GETTIME64_NEEDS_32 && !fn32 &&
	    !__atomic_load_n(&f->addr[SYM_CLOCK_GETRES64], __ATOMIC_RELAXED)) {
		struct choice c = entry(f, sym64, 1, VDSOKIT_REASON_UNTRUSTED);
		c.fn = NULL;
		return c;
	}
	if (fn64)
		return entry(f, sym64, 1, VDSOKIT_REASON_OK);
	if (fn32)
		return unless_dropped(entry(f, native_sym, 0, VDSOKIT_REASON_TIME32));
	return entry(f, sym64, 1, vdsokit_lib_arch_symbols[sym64].name ? absent(sym64) : absent(native_sym));
}

/* An entry that would only make the syscall: the library makes it directly, and says so. */
static struct choice syscall_instead(struct choice c)
{
	if (c.fn) {
		c.fn = NULL;
		c.reason = VDSOKIT_REASON_ENTRY_IS_SYSCALL;
	}
	return c;
}

struct choice vdsokit_lib_choose(const struct found *f, enum vdsokit_func fn)
{
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		return time_entry(f, SYM_CLOCK_GETTIME, SYM_CLOCK_GETTIME64);
	case VDSOKIT_FN_CLOCK_GETRES:
		return time_entry(f, SYM_CLOCK_GETRES, SYM_CLOCK_GETRES64);
	case VDSOKIT_FN_GETTIMEOFDAY:
		/* It reads REALTIME: where the vDSO cannot (m68k), its entry only enters the kernel. */
		if (!(ARCH_VDSO_CLOCKS & CLOCK_BIT(CLOCK_REALTIME)))
			return syscall_instead(native(f, SYM_GETTIMEOFDAY));
		return native(f, SYM_GETTIMEOFDAY);
	case VDSOKIT_FN_TIME:
		return native(f, SYM_TIME);
	case VDSOKIT_FN_GETCPU:
		if (ARCH_VDSO_GETCPU_IS_SYSCALL)
			return syscall_instead(native(f, SYM_GETCPU));
		return native(f, SYM_GETCPU);
	case VDSOKIT_FN_GETRANDOM:
		return native(f, SYM_GETRANDOM);
	case VDSOKIT_FN_THREAD_POINTER:
		return native(f, SYM_GET_THREAD_AREA);
	default:
		break;
	}
	struct choice none = { NULL, NULL, SYM_COUNT, 1, VDSOKIT_REASON_NOT_ON_ARCH };
	return none;
}

uint32_t vdsokit_lib_vdso_clocks(enum vdsokit_func fn)
{
	return fn == VDSOKIT_FN_CLOCK_GETRES ? ARCH_VDSO_GETRES_CLOCKS : ARCH_VDSO_CLOCKS;
}
