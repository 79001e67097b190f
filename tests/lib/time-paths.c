// SPDX-License-Identifier: MIT
/*
 * Which vDSO entry and which syscall each time call takes here, for the
 * library and for the C library beside it, and whether the kernel has the
 * 32-bit-time syscalls (CONFIG_COMPAT_32BIT_TIME) at all.
 *
 * The library's calls are checked: each returns 0 (never ENOSYS, even on a
 * kernel without the 32-bit-time syscalls) and the time of the kernel's own
 * syscall (clock_gettime64 / clock_getres_time64 on the 32-bit ABIs), read
 * just before and after it.  The C library's calls are recorded, not
 * judged: what they do is the C library's affair (docs/kernel-findings.md#futex-time32).
 *
 * Each call's syscalls are counted in a child with a seccomp supervisor
 * (syscall-count.h): how many, the first and the last.  The results are
 * also printed as lines the QEMU matrix turns into the table of
 * docs/matrix.md (tests/qemu/results-table, section y2038):
 *
 *   # TIMEPATH-KERNEL|<abi>|time32-syscalls=<yes|no|n/a>|<libc>
 *   # TIMEPATH|<who>|<call>|<result>|<route>|<symbol>|<count>|<syscalls>
 *
 * who: vdsokit or libc; result: 0, or the errno's name; route and symbol:
 * the library's vdsokit_route_of (libc: "-"); count: syscalls made, or "?" where
 * seccomp cannot count them; syscalls: the first and the last by name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "vdsokit.h"
#include "../tap.h"
#include "syscall-count.h"
#include "testutil.h"

/* The 32-bit ABIs whose kernels may lack the 32-bit-time syscalls. */
#if defined(SYS_clock_gettime64) && defined(SYS_clock_gettime)
#define TIME32_ABI 1
#define SYS_GETTIME64 SYS_clock_gettime64
#define SYS_GETRES64 SYS_clock_getres_time64
#else
#define TIME32_ABI 0
#define SYS_GETTIME64 SYS_clock_gettime
#define SYS_GETRES64 SYS_clock_getres
#endif

static const char *abi_name(void)
{
#if defined(__x86_64__) && defined(__ILP32__)
	return "x32";
#elif defined(__i386__)
	return "i386";
#elif defined(__arm__)
	return "arm";
#elif defined(__mips__) && _MIPS_SIM == _ABIO32
	return "mips-o32";
#elif defined(__mips__) && _MIPS_SIM == _ABIN32
	return "mips-n32";
#elif defined(__powerpc__) && !defined(__powerpc64__)
	return "ppc32";
#elif defined(__sparc__) && !defined(__arch64__)
	return "sparc32";
#elif defined(__m68k__)
	return "m68k";
#else
	return sizeof(long) == 8 ? "64-bit" : "32-bit";
#endif
}

/* A syscall number by the kernel's name for it, for the syscalls time calls make. */
static const char *syscall_name(int nr)
{
	static char buf[32];
	static const struct { long nr; const char *name; } known[] = {
#if TIME32_ABI
		{ SYS_clock_gettime, "clock_gettime(time32)" },
		{ SYS_clock_gettime64, "clock_gettime64" },
#ifdef SYS_clock_getres
		{ SYS_clock_getres, "clock_getres(time32)" },
#endif
		{ SYS_clock_getres_time64, "clock_getres_time64" },
#else
		{ SYS_clock_gettime, "clock_gettime" },
		{ SYS_clock_getres, "clock_getres" },
#endif
#ifdef SYS_gettimeofday
		{ SYS_gettimeofday, "gettimeofday" },
#endif
#ifdef SYS_time
		{ SYS_time, "time" },
#endif
#ifdef SYS_get_thread_area
		/* m68k's thread pointer: glibc asks for it on its way to errno. */
		{ SYS_get_thread_area, "get_thread_area" },
#endif
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].nr == nr)
			return known[i].name;
#if defined(__x86_64__) && defined(__ILP32__)
	/* x32's vDSO is x86_64's code: its own fallbacks make the x86_64 syscalls. */
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((known[i].nr & ~0x40000000L) == nr) {
			snprintf(buf, sizeof(buf), "%s(x86_64's)", known[i].name);
			return buf;
		}
#endif
	snprintf(buf, sizeof(buf), "syscall %d", nr);
	return buf;
}

/* The kernel's answers, the reference. */
static int ref_gettime(clockid_t c, struct vdsokit_timespec *ts)
{
	return syscall(SYS_GETTIME64, c, ts) ? -errno : 0;
}

static int ref_getres(clockid_t c, struct vdsokit_timespec *ts)
{
	return syscall(SYS_GETRES64, c, ts) ? -errno : 0;
}

enum what { GETTIME, GETRES, GETTIMEOFDAY, GETTIMEOFDAY_TZ, TIME };

struct call {
	enum what what;
	clockid_t clock;
	const char *name;
};

static const struct call calls[] = {
	{ GETTIME, CLOCK_REALTIME, "clock_gettime(REALTIME)" },
	{ GETTIME, CLOCK_MONOTONIC, "clock_gettime(MONOTONIC)" },
	{ GETTIME, CLOCK_MONOTONIC_COARSE, "clock_gettime(MONOTONIC_COARSE)" },
	{ GETTIME, CLOCK_BOOTTIME, "clock_gettime(BOOTTIME)" },
	{ GETTIME, CLOCK_PROCESS_CPUTIME_ID, "clock_gettime(PROCESS_CPUTIME_ID)" },
	{ GETRES, CLOCK_MONOTONIC, "clock_getres(MONOTONIC)" },
	{ GETRES, CLOCK_PROCESS_CPUTIME_ID, "clock_getres(PROCESS_CPUTIME_ID)" },
	{ GETTIMEOFDAY, 0, "gettimeofday(tv, NULL)" },
	{ GETTIMEOFDAY_TZ, 0, "gettimeofday(tv, tz)" },
	{ TIME, 0, "time()" },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

/* One call's value in nanoseconds (microseconds, seconds: scaled), or a negative errno. */
struct outcome {
	int r;
	long long ns;
};

static struct outcome call_library(const struct call *c)
{
	struct outcome o = { 0, 0 };
	struct vdsokit_timespec ts = { 0, 0 };
	struct vdsokit_timeval tv = { 0, 0 };
	struct timezone tz;
	int64_t t = 0;
	switch (c->what) {
	case GETTIME: o.r = vdsokit_clock_gettime(c->clock, &ts); o.ns = timespec_ns(ts); break;
	case GETRES: o.r = vdsokit_clock_getres(c->clock, &ts); o.ns = timespec_ns(ts); break;
	case GETTIMEOFDAY: o.r = vdsokit_gettimeofday(&tv, NULL); o.ns = ns_of(tv.tv_sec, tv.tv_usec * 1000); break;
	case GETTIMEOFDAY_TZ: o.r = vdsokit_gettimeofday(&tv, &tz); o.ns = ns_of(tv.tv_sec, tv.tv_usec * 1000); break;
	case TIME: o.r = vdsokit_time(&t); o.ns = ns_of(t, 0); break;
	}
	if (o.r > 0)
		o.r = 0;
	return o;
}

/* The C library's calls, with its own types (time_t may be 32 bits here). */
static struct outcome call_libc(const struct call *c)
{
	struct outcome o = { 0, 0 };
	struct timespec ts = { 0, 0 };
	struct timeval tv = { 0, 0 };
	struct timezone tz;
	time_t t;
	errno = 0;
	switch (c->what) {
	case GETTIME: o.r = clock_gettime(c->clock, &ts); o.ns = timespec_ns(ts); break;
	case GETRES: o.r = clock_getres(c->clock, &ts); o.ns = timespec_ns(ts); break;
	case GETTIMEOFDAY: o.r = gettimeofday(&tv, NULL); o.ns = ns_of(tv.tv_sec, tv.tv_usec * 1000LL); break;
	case GETTIMEOFDAY_TZ: o.r = gettimeofday(&tv, &tz); o.ns = ns_of(tv.tv_sec, tv.tv_usec * 1000LL); break;
	case TIME: t = time(NULL); o.r = t == (time_t)-1 ? -1 : 0; o.ns = ns_of(t, 0); break;
	}
	if (o.r < 0)
		o.r = -errno;
	return o;
}

/* What a counting child saw per call, in memory shared with the parent. */
struct counted {
	int counted;  /* 0: seccomp could not count here */
	struct {
		int count, first_nr, last_nr;
	} lib[NCALLS], libc[NCALLS];
};

static struct counted *seen;

static int count_in_child(void *arg)
{
	(void)arg;
	/* Static: the supervisor thread reads it until the process ends. */
	static struct syscall_counter c;
	if (counter_start(&c, NULL, 0) != 0)
		return 0;
	for (size_t i = 0; i < NCALLS; i++) {
		counter_on(&c);
		call_library(&calls[i]);
		seen->lib[i].count = counter_off(&c);
		seen->lib[i].first_nr = c.first_nr;
		seen->lib[i].last_nr = c.last_nr;
		counter_on(&c);
		call_libc(&calls[i]);
		seen->libc[i].count = counter_off(&c);
		seen->libc[i].first_nr = c.first_nr;
		seen->libc[i].last_nr = c.last_nr;
	}
	seen->counted = 1;
	return 0;
}

static const char *result_text(int r)
{
	static char buf[24];
	switch (-r) {
	case 0: return "0";
	case ENOSYS: return "ENOSYS";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case EPERM: return "EPERM";
	default:
		snprintf(buf, sizeof(buf), "errno %d", -r);
		return buf;
	}
}

/* "<count>|<first>[ ... <last>]" for one call, or "?|not counted". */
static const char *syscalls_text(int counted, int count, int first, int last)
{
	static char buf[96];
	if (!counted)
		return "?|not counted";
	if (count == 0)
		return "0|none";
	if (count == 1)
		snprintf(buf, sizeof(buf), "1|%s", syscall_name(first));
	else {
		char f[32];
		snprintf(f, sizeof(f), "%s", syscall_name(first));
		snprintf(buf, sizeof(buf), "%d|%s ... %s", count, f, syscall_name(last));
	}
	return buf;
}

/* Is the library's answer the kernel's (between two reads of it), or its error? */
static int agrees(const struct call *c, struct outcome o, const struct vdsokit_timespec *before,
		  const struct vdsokit_timespec *after, int ref_r)
{
	if (ref_r)
		return o.r == ref_r;
	if (o.r)
		return 0;
	long long lo = timespec_ns(*before), hi = timespec_ns(*after);
	switch (c->what) {
	case GETRES: return o.ns == lo;
	case GETTIMEOFDAY:
	case GETTIMEOFDAY_TZ: return lo / 1000 * 1000 <= o.ns && o.ns <= hi;
	/* time() reads the coarse seconds: up to a tick behind REALTIME. */
	case TIME: return lo / 1000000000 * 1000000000 - 1000000000LL <= o.ns && o.ns <= hi;
	default: return lo <= o.ns && o.ns <= hi;
	}
}

int main(void)
{
	int time32 = -1; /* the kernel has the 32-bit-time syscalls: 1, 0, or -1 (not this ABI's question) */
#if TIME32_ABI
	int32_t t32[2];
	time32 = !(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, t32) != 0 && errno == ENOSYS);
#endif
	const char *libc =
#ifdef __GLIBC__
		"glibc";
#else
		"not glibc";
#endif
	printf("# TIMEPATH-KERNEL|%s|time32-syscalls=%s|%s\n", abi_name(),
	       time32 < 0 ? "n/a" : time32 ? "yes" : "no", libc);
	if (time32 == 0)
		diag("this kernel has no 32-bit-time syscalls for this ABI (CONFIG_COMPAT_32BIT_TIME off)");

	/* Initialised first: the resolution is no time call's work. */
	vdsokit_init();
	void *shared = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	seen = shared == MAP_FAILED ? NULL : shared;
	int counted = 0;
	if (seen) {
		memset(seen, 0, sizeof(*seen));
		int status = run_in_child(count_in_child, NULL, 60);
		counted = child_passed(status) && seen->counted;
		if (!child_passed(status))
			diag("the counting child %s: syscalls not counted", wait_status_text(status).text);
		else if (!counted)
			diag("seccomp cannot count syscalls here: not counted");
	}

	for (size_t i = 0; i < NCALLS; i++) {
		const struct call *c = &calls[i];
		struct vdsokit_timespec before = { 0, 0 }, after = { 0, 0 };
		enum vdsokit_func fn = c->what == GETTIME ? VDSOKIT_FN_CLOCK_GETTIME
				      : c->what == GETRES ? VDSOKIT_FN_CLOCK_GETRES
				      : c->what == TIME   ? VDSOKIT_FN_TIME
							  : VDSOKIT_FN_GETTIMEOFDAY;
		clockid_t ref_clock = c->what == GETTIME || c->what == GETRES ? c->clock : CLOCK_REALTIME;
		int (*ref)(clockid_t, struct vdsokit_timespec *) = c->what == GETRES ? ref_getres : ref_gettime;

		int rb = ref(ref_clock, &before);
		struct outcome o = call_library(c);
		int ra = ref(ref_clock, &after);
		if (!ok(o.r == 0 && agrees(c, o, &before, &after, rb ? rb : ra),
			"vdsokit %s returns 0 and the kernel's %s", c->name,
			c->what == GETRES ? "resolution" : "time, read before and after it"))
			diag("got %s, %lld ns; the syscall's %lld .. %lld ns (%d, %d)", result_text(o.r), o.ns,
			     timespec_ns(before), timespec_ns(after), rb, ra);

		struct vdsokit_route_info p;
		vdsokit_route_of(fn, c->clock, &p);
		printf("# TIMEPATH|vdsokit|%s|%s|%s|%s|%s\n", c->name, result_text(o.r),
		       vdsokit_route_name(p.route), p.symbol ? p.symbol : "-",
		       syscalls_text(counted, counted ? seen->lib[i].count : 0,
				     counted ? seen->lib[i].first_nr : 0, counted ? seen->lib[i].last_nr : 0));

		o = call_libc(c);
		printf("# TIMEPATH|libc|%s|%s|-|-|%s\n", c->name, result_text(o.r),
		       syscalls_text(counted, counted ? seen->libc[i].count : 0,
				     counted ? seen->libc[i].first_nr : 0, counted ? seen->libc[i].last_nr : 0));
	}
	return done_testing();
}
