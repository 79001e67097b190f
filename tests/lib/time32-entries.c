// SPDX-License-Identifier: MIT
/*
 * On 32-bit architectures whose vDSO has both a 32-bit-time clock_gettime
 * and clock_gettime64 (i386, arm, mips o32), each entry of this process's
 * real vDSO against the syscall, clock by clock, inside a syscall-before /
 * syscall-after sandwich: the library uses the 64-bit one and falls back to
 * the 32-bit one where a kernel lacks it, so both must be right.  Elsewhere
 * (64-bit time only, or powerpc, whose vDSO needs the library's own call
 * sequence) a SKIP says why.  On a kernel without the 32-bit-time syscalls
 * (CONFIG_COMPAT_32BIT_TIME off; Linux 6.12 still exports the entry) the
 * 32-bit entry's own fallback, that syscall, is missing: for a clock it
 * cannot read in user space it answers ENOSYS, which is the kernel's
 * answer there (the library takes clock_gettime64 for every clock).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

#define CLOCKS 12

#if defined(__powerpc__) || defined(__x86_64__) || defined(__riscv) || defined(__LP64__) || \
	defined(__s390__) || defined(__sparc__) || defined(__m68k__)
#define BOTH_ENTRIES_HERE 0
#else
#define BOTH_ENTRIES_HERE 1
#endif

struct time32 {
	int32_t tv_sec, tv_nsec;
};

typedef int (*gettime32_fn)(clockid_t, struct time32 *);
typedef int (*gettime64_fn)(clockid_t, struct vdsokit_timespec *);

static const void *entry(const struct vdsokit_image *img, const char *name)
{
	struct vdsokit_symbol sym;
	return vdsokit_image_lookup(img, name, NULL, &sym) == 0 ? sym.address : NULL;
}

/* The kernel has the 32-bit-time syscalls (the 32-bit entry's fallback). */
static int time32_syscalls = 1;

/* Entry e (64-bit when wide) for one clock, between two syscalls. */
static void sandwich(const void *e, int wide, clockid_t c)
{
	struct vdsokit_timespec before, after;
	int rb = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &before);
	long long mid = 0;
	int r;
	if (wide) {
		struct vdsokit_timespec t;
		r = ((gettime64_fn)e)(c, &t);
		mid = timespec_ns(t);
	} else {
		struct time32 t;
		r = ((gettime32_fn)e)(c, &t);
		mid = timespec_ns(t);
	}
	int ra = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &after);
	const char *which = wide ? "clock_gettime64" : "clock_gettime (32-bit time)";
	if (!wide && !time32_syscalls && r == -ENOSYS) {
		ok(1, "%s(%d): ENOSYS, its fallback syscall (32-bit time) being missing here; the syscall "
		   "clock_gettime64 says %d", which, c, rb);
		return;
	}
	if (rb || ra || r) {
		ok(r == rb && r == ra, "%s(%d): %d, the syscall's %d", which, c, r, rb);
		return;
	}
	ok(timespec_ns(before) <= mid && mid <= timespec_ns(after),
	   "%s(%d): %lld within [%lld, %lld]", which, c, mid, timespec_ns(before),
	   timespec_ns(after));
}

int main(void)
{
	const struct vdsokit_image *img = vdsokit_process_image();
	if (!BOTH_ENTRIES_HERE || !img) {
		skip("%s", !img ? "no vDSO in this process"
				: "this architecture's vDSO has one clock_gettime (64-bit time), or needs "
				  "the library's call sequence");
		return done_testing();
	}
	const void *e32 = entry(img, "__vdso_clock_gettime");
	const void *e64 = entry(img, "__vdso_clock_gettime64");
	if (!e32 || !e64) {
		skip("this kernel's vDSO lacks %s", !e32 ? "__vdso_clock_gettime" : "__vdso_clock_gettime64");
		return done_testing();
	}
#ifdef SYS_clock_gettime
	struct time32 probe;
	time32_syscalls = !(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &probe) != 0 && errno == ENOSYS);
	if (!time32_syscalls)
		diag("this kernel has no 32-bit-time syscalls (CONFIG_COMPAT_32BIT_TIME off)");
#endif
	for (clockid_t c = 0; c < CLOCKS; c++) {
		sandwich(e32, 0, c);
		sandwich(e64, 1, c);
	}
	return done_testing();
}
