/* SPDX-License-Identifier: MIT */
/*
 * callpath: the library's call paths on the architecture it runs on
 * (natively, or under qemu-user; tests/qemu-user.t runs it), printing TAP.
 *
 *   callpath                      no vDSO: every call must take the syscall
 *                                 and agree with it (qemu-user maps no vDSO;
 *                                 natively the real one is hidden with
 *                                 vdsokit_use_image(NULL, 0))
 *   callpath --image FILE [KIND]  the synthetic image FILE (tests/images,
 *                                 "callable" variant of this architecture)
 *                                 mapped flat and handed to the library: the
 *                                 vDSO call path itself must run, return the
 *                                 fake functions' values, and fall back where
 *                                 they ask for it.  KIND: "callable" (default),
 *                                 "only64" (arm: clock_gettime64 without the
 *                                 32-bit entry, untrusted), "time32only" (i386:
 *                                 no time64 entries) or "time64only" (arm:
 *                                 the 64-bit entries alone, with
 *                                 clock_getres_time64: trusted), "v70"
 *                                 or "v73y2038" (i386, arm, mips o32/n32,
 *                                 ppc32: Linux 7.0's entries, and 7.3's on a
 *                                 kernel without COMPAT_32BIT_TIME, which
 *                                 has no time32 entry at all: time() and
 *                                 gettimeofday() must come from
 *                                 clock_gettime64, and no call may make a
 *                                 32-bit-time syscall, counted with
 *                                 lib/syscall-count.h where seccomp works),
 *                                 or "pre54" (mips: a vDSO from before the
 *                                 generic one of 5.4, whose clock_gettime
 *                                 answers -ENOSYS for BOOTTIME: the library
 *                                 must ask the syscall, calling the vDSO once).
 *
 * The values the fake functions return are documented in
 * tests/images/fake.c; the names below are this test's own copy of the
 * kernel's (REFERENCE.md), not the library's tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "tap.h"
#include "lib/testutil.h"      /* sys_getcpu */
#include "images/names.h"    /* FAKE_TIME32: which fakes take 32-bit time */
#include "images/fake_abi.h" /* the fakes' call counters */
#include "image.h"             /* the library's own parse, src/image_own.c */

/* ---- what this architecture's image exports ---------------------------- */

struct expected_names {
	const char *node;
	const char *gettime;     /* the entry the library must prefer          */
	int gettime_is_time64;   /* it is a *_gettime64 entry (32-bit arches)   */
	const char *gettime32;   /* the 32-bit-time native entry, or NULL       */
	const char *getres;      /* preferred getres entry                      */
	int getres_is_64;
	const char *gettimeofday, *time, *getcpu, *getrandom, *thread_area;
};

static const struct expected_names names = {
#if defined(__x86_64__) && defined(__ILP32__)
	/* The kernel's vdsox32.lds.S: no getrandom. */
	"LINUX_2.6", "__vdso_clock_gettime", 0, NULL, "__vdso_clock_getres", 1,
	"__vdso_gettimeofday", "__vdso_time", "__vdso_getcpu", NULL, NULL,
#elif defined(__x86_64__)
	"LINUX_2.6", "__vdso_clock_gettime", 0, NULL, "__vdso_clock_getres", 1,
	"__vdso_gettimeofday", "__vdso_time", "__vdso_getcpu", "__vdso_getrandom", NULL,
#elif defined(__i386__)
	"LINUX_2.6", "__vdso_clock_gettime64", 1, "__vdso_clock_gettime",
	"__vdso_clock_getres_time64", 1,
	"__vdso_gettimeofday", "__vdso_time", "__vdso_getcpu", NULL, NULL,
#elif defined(__aarch64__)
	"LINUX_2.6.39", "__kernel_clock_gettime", 0, NULL, "__kernel_clock_getres", 1,
	"__kernel_gettimeofday", NULL, NULL, "__kernel_getrandom", NULL,
#elif defined(__arm__)
	"LINUX_2.6", "__vdso_clock_gettime64", 1, "__vdso_clock_gettime", "__vdso_clock_getres", 0,
	"__vdso_gettimeofday", NULL, NULL, NULL, NULL,
#elif defined(__riscv) && __riscv_xlen == 64
	/* __vdso_getcpu is a bare ecall: the library makes the syscall itself. */
	"LINUX_4.15", "__vdso_clock_gettime", 0, NULL, "__vdso_clock_getres", 1,
	"__vdso_gettimeofday", NULL, NULL, "__vdso_getrandom", NULL,
#elif defined(__powerpc64__)
	"LINUX_2.6.15", "__kernel_clock_gettime", 0, NULL, "__kernel_clock_getres", 1,
	"__kernel_gettimeofday", "__kernel_time", "__kernel_getcpu", "__kernel_getrandom", NULL,
#elif defined(__powerpc__)
	/* The kernel's vdso32.lds.S: one node, LINUX_2.6.15, time64 included. */
	"LINUX_2.6.15", "__kernel_clock_gettime64", 1, "__kernel_clock_gettime",
	"__kernel_clock_getres_time64", 1,
	"__kernel_gettimeofday", "__kernel_time", "__kernel_getcpu", NULL, NULL,
#elif defined(__s390x__)
	"LINUX_2.6.29", "__kernel_clock_gettime", 0, NULL, "__kernel_clock_getres", 1,
	"__kernel_gettimeofday", NULL, "__kernel_getcpu", "__kernel_getrandom", NULL,
#elif defined(__mips__) && _MIPS_SIM == _ABI64
	"LINUX_2.6", "__vdso_clock_gettime", 0, NULL, "__vdso_clock_getres", 1,
	"__vdso_gettimeofday", NULL, NULL, NULL, NULL,
#elif defined(__mips__)
	"LINUX_2.6", "__vdso_clock_gettime64", 1, "__vdso_clock_gettime", "__vdso_clock_getres", 0,
	"__vdso_gettimeofday", NULL, NULL, NULL, NULL,
#elif defined(__sparc__) && defined(__arch64__)
	/* clock_getres: kernels with the generic vDSO. */
	"LINUX_2.6", "__vdso_clock_gettime", 0, NULL, "__vdso_clock_getres", 1,
	"__vdso_gettimeofday", NULL, NULL, NULL, NULL,
#elif defined(__m68k__)
	"LINUX_5.10", "__vdso_clock_gettime64", 1, NULL, "__vdso_clock_getres_time64", 1,
	NULL, NULL, NULL, NULL, "__vdso_get_thread_area",
#else
#error "callpath: no expected vDSO names for this architecture"
#endif
};

#define CLOCK_COUNT 12        /* 0 REALTIME .. 11 TAI                     */
#define CLOCK_BOOTTIME_ID 7   /* the fakes answer -ENOSYS for it          */
#define CLOCK_TAI_ID 11       /* the 32-bit fakes overflow for it         */
#define CLOCK_INVALID_ID 100

/* ---- the raw syscalls the library is compared with ----------------------- */

static int sys_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
#ifdef SYS_clock_gettime64
	/* 32-bit architectures: the y2038-safe syscall, __kernel_timespec. */
	long r = syscall(SYS_clock_gettime64, clock, ts);
#else
	struct timespec t;
	long r = syscall(SYS_clock_gettime, clock, &t);
	if (r == 0) {
		ts->tv_sec = t.tv_sec;
		ts->tv_nsec = t.tv_nsec;
	}
#endif
	return r ? -errno : 0;
}

static int sys_getres(clockid_t clock, struct vdsokit_timespec *ts)
{
#ifdef SYS_clock_getres_time64
	long r = syscall(SYS_clock_getres_time64, clock, ts);
#else
	struct timespec t;
	long r = syscall(SYS_clock_getres, clock, &t);
	if (r == 0) {
		ts->tv_sec = t.tv_sec;
		ts->tv_nsec = t.tv_nsec;
	}
#endif
	return r ? -errno : 0;
}

static int ts_le(const struct vdsokit_timespec *a, const struct vdsokit_timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec <= b->tv_nsec);
}

static const char *path_text(const struct vdsokit_route_info *p)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s (%s) %s%s%s", vdsokit_route_name(p->route),
		 vdsokit_reason_text(p->reason), p->symbol ? p->symbol : "",
		 p->version ? "@" : "", p->version ? p->version : "");
	return buf;
}

static const char *or_none(const char *s)
{
	return s ? s : "(none)";
}

static int str_eq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/*
 * clock_gettime(clock) compared with the syscall: the same error, or a
 * value inside a syscall-before / syscall-after sandwich.
 */
static void check_gettime_against_syscall(clockid_t clock, const char *how)
{
	struct vdsokit_timespec before = { 0, 0 }, got = { -1, -1 }, after = { 0, 0 };
	int rb = sys_gettime(clock, &before);
	int r = vdsokit_clock_gettime(clock, &got);
	int ra = sys_gettime(clock, &after);

	if (rb || ra) {
		ok(r == rb, "%s: clock_gettime(%d) fails like the syscall (%d, syscall %d)",
		      how, (int)clock, r, rb);
		return;
	}
	if (!ok(r == 0 && ts_le(&before, &got) && ts_le(&got, &after),
		   "%s: clock_gettime(%d) inside the syscall sandwich", how, (int)clock))
		diag("before %" PRId64 ".%09" PRId64 " got %" PRId64 ".%09" PRId64
		     " (ret %d) after %" PRId64 ".%09" PRId64,
		     before.tv_sec, before.tv_nsec, got.tv_sec, got.tv_nsec, r, after.tv_sec,
		     after.tv_nsec);
}

static void check_getres_against_syscall(clockid_t clock, const char *how)
{
	struct vdsokit_timespec want = { -1, -1 }, got = { -2, -2 };
	int rw = sys_getres(clock, &want);
	int r = vdsokit_clock_getres(clock, &got);

	if (!ok(r == rw && (rw || (got.tv_sec == want.tv_sec && got.tv_nsec == want.tv_nsec)),
		   "%s: clock_getres(%d) equals the syscall's", how, (int)clock))
		diag("got %d {%" PRId64 ", %" PRId64 "}, syscall %d {%" PRId64 ", %" PRId64 "}", r,
		     got.tv_sec, got.tv_nsec, rw, want.tv_sec, want.tv_nsec);
}

/* Sandwich in microseconds against CLOCK_REALTIME. */
static void check_gettimeofday_against_syscall(const char *how)
{
	struct vdsokit_timespec before, after;
	/* Canaries: nothing may be written around the 16-byte timeval (x32). */
	struct {
		uint64_t below;
		struct vdsokit_timeval tv;
		uint64_t above;
	} guarded = { 0x5afe5afe5afe5afeull, { -1, -1 }, 0x5afe5afe5afe5afeull };
	sys_gettime(CLOCK_REALTIME, &before);
	int r = vdsokit_gettimeofday(&guarded.tv, NULL);
	sys_gettime(CLOCK_REALTIME, &after);
	struct vdsokit_timeval got = guarded.tv;
	ok(guarded.below == 0x5afe5afe5afe5afeull && guarded.above == 0x5afe5afe5afe5afeull,
	   "%s: gettimeofday writes its timeval and nothing around it", how);
	int64_t lo = before.tv_sec * 1000000 + before.tv_nsec / 1000;
	int64_t hi = after.tv_sec * 1000000 + after.tv_nsec / 1000;
	int64_t us = got.tv_sec * 1000000 + got.tv_usec;

	if (!ok(r == 0 && lo <= us && us <= hi && got.tv_usec >= 0 && got.tv_usec < 1000000,
		   "%s: gettimeofday inside the CLOCK_REALTIME sandwich", how))
		diag("ret %d, %" PRId64 " us not in [%" PRId64 ", %" PRId64 "]", r, us, lo, hi);

#ifdef SYS_gettimeofday
	struct timezone sys_tz = { -1, -1 }, tz = { -2, -2 };
	struct timeval tv;
	long rs = syscall(SYS_gettimeofday, &tv, &sys_tz);
	r = vdsokit_gettimeofday(&got, &tz);
	ok(rs == 0 && r == 0 && tz.tz_minuteswest == sys_tz.tz_minuteswest &&
		      tz.tz_dsttime == sys_tz.tz_dsttime,
	      "%s: gettimeofday's timezone equals the syscall's (%d,%d)", how, sys_tz.tz_minuteswest,
	      sys_tz.tz_dsttime);
#endif
}

static void check_time_against_syscall(const char *how)
{
	struct vdsokit_timespec before, after;
	int64_t t = -1, stored = -2;
	sys_gettime(CLOCK_REALTIME, &before);
	int r = vdsokit_time(&stored);
	t = stored;
	sys_gettime(CLOCK_REALTIME, &after);
	/* time() may read the coarse clock, up to a tick behind REALTIME. */
	if (!ok(r >= 0 && before.tv_sec - 1 <= t && t <= after.tv_sec,
		   "%s: time inside the CLOCK_REALTIME sandwich", how))
		diag("ret %d, t %" PRId64 " not in [%" PRId64 ", %" PRId64 "]", r, t,
		     before.tv_sec - 1, after.tv_sec);
}

static void check_getcpu_against_syscall(const char *how)
{
	unsigned cpu = ~0u, node = ~0u, want_cpu = ~1u, want_node = ~1u;
	int rw = sys_getcpu(&want_cpu, &want_node);
	int r = vdsokit_getcpu(&cpu, &node);

	if (!ok(r == rw && (rw || (cpu == want_cpu && node == want_node)),
		   "%s: getcpu equals the syscall's (pinned to one CPU)", how))
		diag("got %d cpu %u node %u, syscall %d cpu %u node %u", r, cpu, node, rw, want_cpu,
		     want_node);
}

/* The value the thread pointer must have, found without the library. */
static void *expected_thread_pointer(void)
{
#if defined(__m68k__)
	return (void *)syscall(SYS_get_thread_area);
#elif defined(__powerpc64__)
	/* gcc 12 has no __builtin_thread_pointer here: the ABI's register. */
	void *tp;
	__asm__("mr %0, 13" : "=r"(tp));
	return tp;
#elif defined(__powerpc__)
	void *tp;
	__asm__("mr %0, 2" : "=r"(tp));
	return tp;
#elif defined(__sparc__)
	void *tp;
	__asm__("mov %%g7, %0" : "=r"(tp));
	return tp;
#else
	return __builtin_thread_pointer();
#endif
}

/* getcpu compares two reads: keep the thread on the CPU it is on. */
static void pin_to_current_cpu(void)
{
	unsigned cpu = 0;
	cpu_set_t set;

	if (sys_getcpu(&cpu, NULL) != 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		diag("sched_setaffinity(%u): %s (getcpu may race)", cpu, strerror(errno));
}

/* ---- counting calls into the fakes (tests/images/fake_abi.h) -------------- */

static volatile uint32_t *fake_counters;
/* Why fake_counters is NULL: the reason the checks that count calls are skipped. */
static char fake_counters_missing[160] = "the fakes' counter page was not mapped";

/* Maps the fakes' counter page at its fixed address: 0, or -1 (said why). */
static int map_fake_counters(void)
{
	void *want = (void *)FAKE_COUNTERS_ADDR;
	void *got = mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (got == MAP_FAILED || got != want) {
		snprintf(fake_counters_missing, sizeof(fake_counters_missing),
			 "the fakes' counter page: mmap at %p gave %p (%s)", want, got,
			 got == MAP_FAILED ? strerror(errno) : "another address");
		diag("%s", fake_counters_missing);
		if (got != MAP_FAILED)
			munmap(got, 4096);
		return -1;
	}
	fake_counters = got;
	return 0;
}

/* The counter of the fake behind clock_gettime entry e, or -1 (no counting fake). */
static int fake_counter_of(int is_time64)
{
#ifdef __powerpc__
	(void)is_time64;
	return -1; /* fake_ppc.S does not count */
#else
	return is_time64 ? FAKE_COUNT_GETTIME64 : FAKE_COUNT_GETTIME_NATIVE;
#endif
}

/* ---- no vDSO ------------------------------------------------------------ */

static int run_without_vdso(void)
{
	const char *how = "no vDSO";

	if (getauxval(AT_SYSINFO_EHDR)) {
		/* Native run: hide the real vDSO, as qemu-user has none. */
		ok(vdsokit_use_image(NULL, 0) == 0, "%s: vdsokit_use_image(NULL, 0) before any call", how);
		printf("# native run: the kernel's vDSO hidden by vdsokit_use_image(NULL, 0)\n");
	} else {
		printf("# no AT_SYSINFO_EHDR in this process (qemu-user)\n");
	}
	ok(vdsokit_init() == -ENOENT, "%s: vdsokit_init() says -ENOENT", how);
	ok(vdsokit_process_image() == NULL, "%s: no process image", how);
	pin_to_current_cpu();

	for (clockid_t c = 0; c < CLOCK_COUNT; c++)
		check_gettime_against_syscall(c, how);
	check_gettime_against_syscall(CLOCK_INVALID_ID, how);
	check_gettime_against_syscall(-1, how);
	for (clockid_t c = 0; c < CLOCK_COUNT; c++)
		check_getres_against_syscall(c, how);
	check_getres_against_syscall(CLOCK_INVALID_ID, how);
	check_gettimeofday_against_syscall(how);
	check_time_against_syscall(how);
	check_getcpu_against_syscall(how);

	unsigned char buf[64];
	memset(buf, 0, sizeof(buf));
	ssize_t n = vdsokit_getrandom(buf, sizeof(buf), 0);
	int nonzero = 0;
	for (size_t i = 0; i < sizeof(buf); i++)
		nonzero |= buf[i];
	ok(n == (ssize_t)sizeof(buf) && nonzero, "%s: getrandom fills %zu bytes (got %zd)", how,
	      sizeof(buf), n);

	void *tp = vdsokit_thread_pointer();
	if (!ok(tp == expected_thread_pointer(), "%s: thread pointer is the ABI's", how))
		diag("library %p, expected %p", tp, expected_thread_pointer());

	/* The path report: every call is a syscall because there is no vDSO. */
	struct vdsokit_route_info p;
	for (clockid_t c = 0; c < CLOCK_COUNT; c++) {
		vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, c, &p);
		ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_NO_VDSO &&
			      p.syscall && p.syscall_nr >= 0,
		      "%s: path of clock_gettime(%d): %s via %s", how, (int)c, path_text(&p),
		      p.syscall ? p.syscall : "?");
	}
	static const enum vdsokit_func others[] = { VDSOKIT_FN_CLOCK_GETRES, VDSOKIT_FN_GETTIMEOFDAY,
						 VDSOKIT_FN_TIME, VDSOKIT_FN_GETCPU, VDSOKIT_FN_GETRANDOM };
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		vdsokit_route_of(others[i], CLOCK_MONOTONIC, &p);
		/* getcpu needs no vDSO where the libc registered an rseq area. */
		int rseq = others[i] == VDSOKIT_FN_GETCPU && p.route == VDSOKIT_ROUTE_RSEQ;
		ok(rseq || (p.route == VDSOKIT_ROUTE_SYSCALL &&
			    (p.reason == VDSOKIT_REASON_NO_VDSO || p.reason == VDSOKIT_REASON_NOT_ON_ARCH)),
		      "%s: path of %s: %s", how, vdsokit_func_name(others[i]), path_text(&p));
	}
	vdsokit_route_of(VDSOKIT_FN_THREAD_POINTER, 0, &p);
#if defined(__m68k__)
	ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_NO_VDSO,
	      "%s: path of thread_pointer: %s", how, path_text(&p));
#else
	ok(p.route == VDSOKIT_ROUTE_REGISTER, "%s: path of thread_pointer: %s", how, path_text(&p));
#endif
	return done_testing();
}

/* ---- the synthetic image ------------------------------------------------- */

enum image_kind { KIND_CALLABLE, KIND_ONLY64, KIND_ONLY32, KIND_TIME64ONLY, KIND_V70, KIND_V73Y2038, KIND_PRE54 };

/*
 * The 32-bit-time ABIs of the 2026 images (tests/images "v70", "v73y2038"):
 * the 64-bit-time entries the library must use, and the entries that take
 * or return 32-bit time, which 7.3 leaves out without COMPAT_32BIT_TIME.
 */
#if defined(__i386__)
# define Y2038_PREFIX "__vdso_"
# define Y2038_HAS_TIME 1
#elif defined(__arm__) || (defined(__mips__) && _MIPS_SIM != _ABI64)
# define Y2038_PREFIX "__vdso_"
# define Y2038_HAS_TIME 0
#elif defined(__powerpc__) && !defined(__powerpc64__)
# define Y2038_PREFIX "__kernel_"
# define Y2038_HAS_TIME 1
#endif
#ifdef Y2038_PREFIX
# define Y2038_GETTIME64 Y2038_PREFIX "clock_gettime64"
# define Y2038_GETRES64 Y2038_PREFIX "clock_getres_time64"
static const char *const y2038_time32_names[] = {
	Y2038_PREFIX "clock_gettime", Y2038_PREFIX "clock_getres", Y2038_PREFIX "gettimeofday",
	Y2038_PREFIX "time",
};

#endif

/* The fake clock_gettime's answer for clock c through entry "is_64". */
static struct vdsokit_timespec fake_gettime_value(clockid_t c, int is_64)
{
	struct vdsokit_timespec ts;
	if (is_64) {
		ts.tv_sec = 0x640000 + c;
		ts.tv_nsec = 2000 + c;
	} else {
		ts.tv_sec = 0x10000 + c;
		ts.tv_nsec = 1000 + c;
	}
	return ts;
}

/*
 * Which fake a clock_gettime symbol is: its values and whether its tv_sec is
 * 32-bit.  0 when sym is not a clock_gettime entry of this architecture.
 */
enum fake_entry { FAKE_NONE, FAKE_NATIVE64, FAKE_NATIVE32, FAKE_TIME64 };

static enum fake_entry gettime_entry_of(const char *sym)
{
	if (str_eq(sym, names.gettime))
		return names.gettime_is_time64 ? FAKE_TIME64 : FAKE_NATIVE64;
	if (str_eq(sym, names.gettime32))
		return FAKE_NATIVE32;
	return FAKE_NONE;
}

static void check_gettime_through_image(clockid_t c, enum image_kind kind)
{
	struct vdsokit_route_info p;
	char how[64];
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, c, &p);
	snprintf(how, sizeof(how), "image, path %s", path_text(&p));

	enum fake_entry entry = gettime_entry_of(p.symbol);
	if (p.route != VDSOKIT_ROUTE_VDSO || entry == FAKE_NONE) {
		/* The library takes the syscall for this clock: it must agree. */
		check_gettime_against_syscall(c, how);
		return;
	}
	if (kind == KIND_PRE54 && c == CLOCK_BOOTTIME_ID) {
		/* The pre-5.4 mips fake says -ENOSYS: the library must ask the syscall. */
		check_gettime_against_syscall(c, "image, -ENOSYS from the vDSO");
		return;
	}
	if (c == CLOCK_TAI_ID && entry == FAKE_NATIVE32) {
		/* The 32-bit fake "overflows" (tv_sec -5): the library must notice
		   and take the clock_gettime64 syscall. */
		check_gettime_against_syscall(c, "image, overflowed 32-bit tv_sec");
		return;
	}
	struct vdsokit_timespec got = { -1, -1 }, want = fake_gettime_value(c, entry == FAKE_TIME64);
	int r = vdsokit_clock_gettime(c, &got);
	if (!ok(r == 0 && got.tv_sec == want.tv_sec && got.tv_nsec == want.tv_nsec,
		   "image: clock_gettime(%d) returns the fake %s's {%#" PRIx64 ", %" PRId64 "}",
		   (int)c, p.symbol, want.tv_sec, want.tv_nsec))
		diag("got %d {%#" PRIx64 ", %" PRId64 "}", r, got.tv_sec, got.tv_nsec);
	(void)kind;
}

static void check_image_paths(enum image_kind kind)
{
	struct vdsokit_route_info p;

	/* Which clock_gettime entry, for the clocks every vDSO reads itself. */
#ifdef __m68k__
	/* No user-readable counter: m68k's vDSO reads only the COARSE clocks. */
	static const clockid_t fast[] = { CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE };
#else
	static const clockid_t fast[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME_COARSE,
					  CLOCK_MONOTONIC_COARSE };
#endif
	for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++) {
		vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, fast[i], &p);
		switch (kind) {
		case KIND_ONLY64:
			ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_UNTRUSTED,
			      "only64: clock_gettime64 without clock_gettime is not trusted: "
			      "path of clock %d: %s", (int)fast[i], path_text(&p));
			break;
		case KIND_TIME64ONLY:
			ok(p.route == VDSOKIT_ROUTE_VDSO && p.reason == VDSOKIT_REASON_OK &&
				      str_eq(p.symbol, "__vdso_clock_gettime64"),
			      "time64only: clock_gettime64 beside clock_getres_time64 is trusted: "
			      "path of clock %d: %s", (int)fast[i], path_text(&p));
			break;
		case KIND_V70:
		case KIND_V73Y2038:
#ifdef Y2038_GETTIME64
			ok(p.route == VDSOKIT_ROUTE_VDSO && p.reason == VDSOKIT_REASON_OK &&
				   str_eq(p.symbol, Y2038_GETTIME64) && str_eq(p.version, names.node),
			   "%s: clock %d served by %s@%s: %s", kind == KIND_V70 ? "v70" : "v73y2038",
			   (int)fast[i], Y2038_GETTIME64, names.node, path_text(&p));
#endif
			break;
		case KIND_PRE54:
		case KIND_ONLY32:
			if (kind == KIND_PRE54 && !names.gettime32) {
				/* n64: the native entry, 64-bit time, behind the library's function. */
				ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.gettime) &&
					   str_eq(p.version, names.node),
				   "pre54: clock %d served by %s@%s: %s", (int)fast[i], names.gettime,
				   names.node, path_text(&p));
				break;
			}
			ok(p.route == VDSOKIT_ROUTE_VDSO && p.reason == VDSOKIT_REASON_TIME32 &&
				      str_eq(p.symbol, names.gettime32) && str_eq(p.version, names.node),
			      "%s: the 32-bit entry %s@%s serves clock %d: %s",
			      kind == KIND_PRE54 ? "pre54" : "time32only", or_none(names.gettime32),
			      names.node, (int)fast[i], path_text(&p));
			break;
		case KIND_CALLABLE:
			ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.gettime) &&
				      str_eq(p.version, names.node) && p.address != NULL,
			      "image: clock %d served by %s@%s: %s", (int)fast[i], names.gettime,
			      names.node, path_text(&p));
			if (names.getres) {
				vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, fast[i], &p);
				ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.getres) &&
					   str_eq(p.version, names.node),
				   "image: clock_getres(%d) served by %s@%s: %s", (int)fast[i], names.getres,
				   names.node, path_text(&p));
			}
			break;
		}
	}
#ifdef __m68k__
	/*
	 * clock_getres reads no clock: the vDSO answers it for the
	 * high-resolution clocks too, which clock_gettime sends to the syscall.
	 */
	if (kind == KIND_CALLABLE && names.getres) {
		static const clockid_t hres[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME_ID };
		for (size_t i = 0; i < sizeof(hres) / sizeof(hres[0]); i++) {
			struct vdsokit_route_info gettime;
			vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, hres[i], &gettime);
			vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, hres[i], &p);
			ok(gettime.route == VDSOKIT_ROUTE_SYSCALL && p.route == VDSOKIT_ROUTE_VDSO &&
				   str_eq(p.symbol, names.getres),
			   "image: clock %d: clock_gettime by the %s, clock_getres by %s", (int)hres[i],
			   vdsokit_route_name(gettime.route), path_text(&p));
		}
	}
#endif
	/* A clock id outside 0..11: the library's answer, either way, is -EINVAL. */
	struct vdsokit_timespec ts;
	int r = vdsokit_clock_gettime(CLOCK_INVALID_ID, &ts);
	ok(r == -EINVAL, "image: clock_gettime(%d) is -EINVAL (got %d)", CLOCK_INVALID_ID, r);

	if (kind == KIND_PRE54) {
		/* The explicit vDSO path calls the entry alone: its -ENOSYS is the answer. */
		r = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, CLOCK_BOOTTIME_ID, &ts);
		ok(r == -ENOSYS, "pre54: via VDSO, clock_gettime(BOOTTIME) is the fake's -ENOSYS (got %d)", r);
		vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, CLOCK_MONOTONIC, &p);
		ok(p.route == VDSOKIT_ROUTE_SYSCALL, "pre54: no clock_getres entry, getres by the %s",
		   path_text(&p));
	}
	if (kind != KIND_CALLABLE)
		return;

	/* The explicit paths: the syscall is real. */
	if (names.gettime) {
		r = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, CLOCK_BOOTTIME_ID, &ts);
		ok(r == 0, "image: via VDSO, clock_gettime(BOOTTIME) is the fake's (got %d)", r);
		struct vdsokit_timespec want = fake_gettime_value(CLOCK_MONOTONIC, names.gettime_is_time64);
		if (kind == KIND_ONLY32)
			want = fake_gettime_value(CLOCK_MONOTONIC, 0);
		r = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, CLOCK_MONOTONIC, &ts);
		ok(r == 0 && ts.tv_sec == want.tv_sec && ts.tv_nsec == want.tv_nsec,
		      "image: via VDSO, clock_gettime(MONOTONIC) is the fake's");
		/* The error convention (powerpc: CR0.SO and a positive r3). */
		r = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, CLOCK_INVALID_ID, &ts);
		ok(r == -EINVAL, "image: via VDSO, clock_gettime(%d) is the fake's -EINVAL (got %d)",
		      CLOCK_INVALID_ID, r);
		r = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_MONOTONIC, &ts);
		ok(r == 0 && ts.tv_sec != want.tv_sec,
		      "image: via SYSCALL, clock_gettime(MONOTONIC) is the kernel's");
	}
}

/*
 * The vDSO's "do the syscall" (-ENOSYS, the mips fakes' answer for BOOTTIME)
 * costs one vDSO call, not two: the library goes straight to the syscall.
 */
/*
 * What a program's inlined vdsokit_clock_gettime calls (vdsokit.h): the
 * entry path_of names when it takes 64-bit time, on every ABI but
 * powerpc's; for a 32-bit-time entry, which the program would call with
 * the wrong layout, the library's function that widens its answer.
 */
static void check_inline_entry(enum image_kind kind)
{
#if defined(__x86_64__) && defined(__ILP32__)
	const int defined_x32 = 1; /* x32's native entries take 64-bit time */
#else
	const int defined_x32 = 0;
#endif
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	int time64 = sizeof(long) == 8 || defined_x32 || (p.symbol && strstr(p.symbol, "64") != NULL);
	const void *inlined = (const void *)(uintptr_t)vdsokit__routes_v3.gettime[CLOCK_MONOTONIC];
#ifdef VDSOKIT_INLINE_GETTIME
	if (p.route != VDSOKIT_ROUTE_VDSO)
		skip("the inlined clock_gettime: MONOTONIC is not on the vDSO here (%s)", path_text(&p));
	else if (time64 && kind == KIND_PRE54)
		ok(inlined != p.address && inlined != NULL,
		   "pre54: the inlined clock_gettime calls the library, which asks the syscall after "
		   "%s's -ENOSYS (%p, path_of %p)", p.symbol, inlined, p.address);
	else if (time64)
		ok(inlined == p.address, "the inlined clock_gettime calls %s itself (%p, path_of %p)",
		   p.symbol, inlined, p.address);
	else
		ok(inlined != p.address && inlined != NULL,
		   "the inlined clock_gettime calls the library's function that widens the 32-bit-time %s "
		   "(%p, path_of %p)", p.symbol, inlined, p.address);
#else
	(void)time64;
	(void)kind;
	skip("no inlined clock_gettime on this ABI (powerpc: the library's own call sequence; %p)",
	     inlined);
#endif
}

static void check_enosys_calls_vdso_once(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_BOOTTIME_ID, &p);
	enum fake_entry entry = gettime_entry_of(p.symbol);
	int counter = fake_counter_of(entry == FAKE_TIME64);
	if (p.route != VDSOKIT_ROUTE_VDSO || entry == FAKE_NONE || counter < 0) {
		/* Not a test: nothing to count on this architecture. */
		diag("no -ENOSYS call count: no counting 64-bit-time fake serves BOOTTIME (%s)",
		     path_text(&p));
		return;
	}
	if (!fake_counters) {
		/* Countable here, but not counted: a SKIP with the reason, not a silent pass. */
		skip("image: -ENOSYS from %s calls the vDSO once, then the syscall: %s",
		     p.symbol, fake_counters_missing);
		return;
	}
	struct vdsokit_timespec before, got, after;
	fake_counters[counter] = 0;
	sys_gettime(CLOCK_BOOTTIME_ID, &before);
	got.tv_sec = FAKE_COUNT_MAGIC;
	int r = vdsokit_clock_gettime(CLOCK_BOOTTIME_ID, &got);
	sys_gettime(CLOCK_BOOTTIME_ID, &after);
	uint32_t calls = fake_counters[counter];
	ok(calls == 1, "image: -ENOSYS from %s: the vDSO is called once, then the syscall (%u calls)",
	   p.symbol, calls);
	ok(r == 0 && ts_le(&before, &got) && ts_le(&got, &after),
	   "image: after the vDSO's -ENOSYS, clock_gettime(BOOTTIME) is the syscall's");
}

/*
 * A 32-bit-time entry that overflowed (the fake's TAI: tv_sec -5, as after
 * 2038) is called once, then dropped: every later call takes the syscall
 * without asking it again.
 */
static void check_overflow_drops_time32_entry(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_TAI_ID, &p);
	if (p.route != VDSOKIT_ROUTE_VDSO || gettime_entry_of(p.symbol) != FAKE_NATIVE32) {
		diag("no overflow-drop check: no 32-bit-time clock_gettime entry serves TAI (%s)",
		     path_text(&p));
		return;
	}
	if (!fake_counters) {
		/* The 32-bit entry counts every call: without the page it would fault. */
		skip("image: the overflowing 32-bit entry is dropped after one call: %s",
		     fake_counters_missing);
		return;
	}
	fake_counters[FAKE_COUNT_GETTIME_NATIVE] = 0;
	check_gettime_against_syscall(CLOCK_TAI_ID, "image, first overflow of the 32-bit entry");
	uint32_t calls = fake_counters[FAKE_COUNT_GETTIME_NATIVE];
	ok(calls == 1, "image: the overflowing 32-bit entry is called once, then the syscall (%u calls)",
	   calls);
	check_gettime_against_syscall(CLOCK_TAI_ID, "image, after the overflow");
	check_gettime_against_syscall(CLOCK_MONOTONIC, "image, after the overflow");
	calls = fake_counters[FAKE_COUNT_GETTIME_NATIVE];
	ok(calls == 1, "image: after its first overflow the 32-bit entry is never called again "
	   "(%u calls in all)", calls);
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_TIME32_OVERFLOWED,
	   "image: path of clock_gettime after the overflow: %s", path_text(&p));
	const void *entry = &entry;
	int r = vdsokit_bare_entry(VDSOKIT_FN_CLOCK_GETTIME, &entry, NULL);
	ok(r == -ENOENT && entry == NULL,
	   "image: no bare clock_gettime entry after the overflow, as path_of says (%d)", r);
}

static void check_getres_through_image(clockid_t c)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, c, &p);
	if (p.route != VDSOKIT_ROUTE_VDSO) {
		char how[64];
		snprintf(how, sizeof(how), "image, path %s", path_text(&p));
		check_getres_against_syscall(c, how);
		return;
	}
	struct vdsokit_timespec got = { -1, -1 };
	int r = vdsokit_clock_getres(c, &got);
	/* {0, 7} from a 64-bit-time entry, {0, 3} from a 32-bit one. */
	int want_nsec = str_eq(p.symbol, names.getres) ? (names.getres_is_64 ? 7 : 3)
			: (sizeof(long) == 8 ? 7 : 3);
	ok(str_eq(p.symbol, names.getres),
	      "image: clock_getres(%d) served by %s: %s", (int)c, names.getres, path_text(&p));
	if (!ok(r == 0 && got.tv_sec == 0 && got.tv_nsec == want_nsec,
		   "image: clock_getres(%d) returns the fake's {0, %d}", (int)c, want_nsec))
		diag("got %d {%" PRId64 ", %" PRId64 "}", r, got.tv_sec, got.tv_nsec);
}

static void check_others_through_image(void)
{
	struct vdsokit_route_info p;
	int r;

	/* gettimeofday: its own entry, or derived from clock_gettime, or syscall. */
	vdsokit_route_of(VDSOKIT_FN_GETTIMEOFDAY, 0, &p);
	if (names.gettimeofday)
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.gettimeofday) &&
			      str_eq(p.version, names.node),
		      "image: gettimeofday served by %s: %s", names.gettimeofday, path_text(&p));
	if (p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.gettimeofday)) {
		struct vdsokit_timeval tv = { -1, -1 };
		struct timezone tz = { -1, -1 };
		r = vdsokit_gettimeofday(&tv, &tz);
		if (!ok(r == 0 && tv.tv_sec == 0x33333 && tv.tv_usec == 0x444 &&
				   tz.tz_minuteswest == 5 && tz.tz_dsttime == 0,
			   "image: gettimeofday returns the fake's {0x33333, 0x444} and timezone {5, 0}"))
			diag("got %d {%#" PRIx64 ", %#" PRIx64 "} tz {%d, %d}", r, tv.tv_sec, tv.tv_usec,
			     tz.tz_minuteswest, tz.tz_dsttime);
		tv.tv_sec = -1;
		r = vdsokit_gettimeofday(&tv, NULL);
		ok(r == 0 && tv.tv_sec == 0x33333, "image: gettimeofday without a timezone");
	} else {
		check_gettimeofday_against_syscall("image, gettimeofday not from its vDSO entry");
	}

	vdsokit_route_of(VDSOKIT_FN_TIME, 0, &p);
	if (names.time)
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.time),
		      "image: time served by %s: %s", names.time, path_text(&p));
	int64_t t = -1;
	r = vdsokit_time(&t);
	if (p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.time)) {
#if defined(FAKE_TIME32) || defined(__powerpc__)
		const int64_t want_time = FAKE_TIME_VALUE_32;
#else
		const int64_t want_time = FAKE_TIME_VALUE_WIDE;
#endif
		ok(r >= 0 && t == want_time, "image: time returns the fake's %#" PRIx64 " (got %d, %#" PRIx64 ")",
		      want_time, r, t);
	} else if (p.route == VDSOKIT_ROUTE_VDSO) {
		/* Seconds of a clock_gettime through the vDSO (REALTIME or COARSE). */
		int64_t base = fake_gettime_value(0, gettime_entry_of(p.symbol) == FAKE_TIME64).tv_sec;
		ok(r >= 0 && (t == base + CLOCK_REALTIME || t == base + CLOCK_REALTIME_COARSE),
		      "image: time from %s is the fake's seconds (got %#" PRIx64 ")", p.symbol, t);
	} else {
		check_time_against_syscall("image, time by syscall");
	}

	vdsokit_route_of(VDSOKIT_FN_GETCPU, 0, &p);
	if (p.route == VDSOKIT_ROUTE_RSEQ) {
		/* The libc's rseq area answers before any vDSO: it must agree with the kernel. */
		ok(p.reason == VDSOKIT_REASON_RSEQ_AREA || p.reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY,
		   "image: getcpu from the rseq area: %s", path_text(&p));
		/* The cpu alone: a node the area does not cover (glibc < 2.40) is the fake vDSO's. */
		unsigned cpu = ~0u, want = ~1u;
		r = vdsokit_getcpu(&cpu, NULL);
		ok(r == 0 && sys_getcpu(&want, NULL) == 0 && cpu == want,
		   "image: getcpu's cpu from the rseq area is the syscall's (%u, %u)", cpu, want);
	} else if (names.getcpu) {
		unsigned cpu = 0, node = 0;
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.getcpu),
		      "image: getcpu served by %s: %s", names.getcpu, path_text(&p));
		r = vdsokit_getcpu(&cpu, &node);
		ok(r == 0 && cpu == 3 && node == 4, "image: getcpu returns the fake's cpu 3 node 4 (got %d, %u, %u)",
		      r, cpu, node);
		cpu = 0;
		r = vdsokit_getcpu(&cpu, NULL);
		ok(r == 0 && cpu == 3, "image: getcpu without node");
	} else {
		ok(p.route == VDSOKIT_ROUTE_SYSCALL, "image: getcpu by syscall: %s", path_text(&p));
#ifdef __riscv
		ok(p.reason == VDSOKIT_REASON_ENTRY_IS_SYSCALL,
		   "image: riscv's __vdso_getcpu (an ecall) is skipped for the syscall: %s", path_text(&p));
#endif
		check_getcpu_against_syscall("image");
	}

	vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p);
	unsigned char buf[100];
	memset(buf, 0, sizeof(buf));
	ssize_t n = vdsokit_getrandom(buf, sizeof(buf), 0);
	if (names.getrandom) {
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.getrandom),
		      "image: getrandom served by %s: %s", names.getrandom, path_text(&p));
		int all_a5 = 1;
		for (size_t i = 0; i < sizeof(buf); i++)
			all_a5 &= buf[i] == 0xA5;
		if (!ok(n == (ssize_t)sizeof(buf) && all_a5,
			   "image: getrandom returns the fake's 0xA5 bytes (got %zd)", n))
			diag("first bytes %02x %02x %02x %02x", buf[0], buf[1], buf[2], buf[3]);
	} else {
		ok(p.route == VDSOKIT_ROUTE_SYSCALL && n == (ssize_t)sizeof(buf),
		      "image: getrandom by syscall: %s (got %zd)", path_text(&p), n);
	}

	vdsokit_route_of(VDSOKIT_FN_THREAD_POINTER, 0, &p);
	void *tp = vdsokit_thread_pointer();
	if (names.thread_area) {
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, names.thread_area) &&
			      str_eq(p.version, names.node),
		      "image: thread pointer served by %s@%s: %s", names.thread_area, names.node,
		      path_text(&p));
		ok(tp == (void *)0x7ead0000, "image: thread pointer is the fake's 0x7ead0000 (got %p)",
		      tp);
		ok(vdsokit_thread_pointer_via(VDSOKIT_ROUTE_SYSCALL) == expected_thread_pointer(),
		      "image: via SYSCALL, the thread pointer is get_thread_area's");
	} else {
		ok(p.route == VDSOKIT_ROUTE_REGISTER && tp == expected_thread_pointer(),
		      "image: thread pointer from the ABI register (%p): %s", tp, path_text(&p));
	}
}

/* arm's 64-bit-only vDSO: both 64-bit entries serve, with their values. */
static void check_time64only_calls(void)
{
	struct vdsokit_timespec ts = { -1, -1 }, want = fake_gettime_value(CLOCK_MONOTONIC, 1);
	int r = vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	ok(r == 0 && ts.tv_sec == want.tv_sec && ts.tv_nsec == want.tv_nsec,
	   "time64only: clock_gettime(MONOTONIC) is the fake clock_gettime64's {%#" PRIx64 ", %" PRId64 "}",
	   want.tv_sec, want.tv_nsec);
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, CLOCK_MONOTONIC, &p);
	ts.tv_sec = ts.tv_nsec = -1;
	r = vdsokit_clock_getres(CLOCK_MONOTONIC, &ts);
	ok(str_eq(p.symbol, "__vdso_clock_getres_time64") && r == 0 && ts.tv_sec == 0 && ts.tv_nsec == 7,
	   "time64only: clock_getres is clock_getres_time64's {0, 7} (%s; got %d {%" PRId64 ", %" PRId64 "})",
	   path_text(&p), r, ts.tv_sec, ts.tv_nsec);
}

/* ---- the 2026 images: Linux 7.0's entries, 7.3's without time32 ---------- */

#ifdef Y2038_GETTIME64
#include "lib/syscall-count.h" /* which syscalls the 2026 images' calls make */

/*
 * Marks a stretch of calls for a run under `qemu-user -strace`
 * (tests/qemu-user.t), which has no seccomp to count with: a failing
 * faccessat of a path naming the stretch, which strace prints in full.
 */
static void strace_mark(const char *what)
{
	char path[96];
	snprintf(path, sizeof(path), "/vdsokit-mark/%s", what);
	syscall(SYS_faccessat, AT_FDCWD, path, F_OK, 0);
}

/* The syscalls that take or return 32-bit time, which such a kernel lacks. */
static const long time32_syscalls[] = {
#ifdef SYS_clock_gettime
	SYS_clock_gettime,
#endif
#ifdef SYS_clock_getres
	SYS_clock_getres,
#endif
#ifdef SYS_gettimeofday
	SYS_gettimeofday,
#endif
#ifdef SYS_time
	SYS_time,
#endif
};

/* What a counting child saw, in memory shared with the parent. */
struct syscall_tally {
	int counted;  /* 1: the counter ran; 0: seccomp unavailable */
	int count;
	int first_nr, last_nr;
};

static struct syscall_tally *tally;

/* The calls whose syscalls are counted: 0 = the vDSO's time reads only, 1 = every time call. */
static int every_time_call;

static void make_time_calls(int every)
{
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	static const clockid_t fast[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME_COARSE,
					  CLOCK_MONOTONIC_COARSE };
	vdsokit_time(&t);
	vdsokit_gettimeofday(&tv, NULL);
	for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++) {
		vdsokit_clock_gettime(fast[i], &ts);
		vdsokit_clock_getres(fast[i], &ts);
	}
	if (!every)
		return;
	/* The clocks the vDSO leaves to a syscall (and the fakes' -ENOSYS for
	   BOOTTIME), an invalid one, and the syscall path itself. */
	for (clockid_t c = 0; c < CLOCK_COUNT; c++) {
		vdsokit_clock_gettime(c, &ts);
		vdsokit_clock_getres(c, &ts);
		vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &ts);
		vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, c, &ts);
	}
	vdsokit_clock_gettime(CLOCK_INVALID_ID, &ts);
	vdsokit_clock_getres(CLOCK_INVALID_ID, &ts);
	vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, &t);
	vdsokit_gettimeofday_via(VDSOKIT_ROUTE_SYSCALL, &tv, NULL);
}

static int count_in_child(void *arg)
{
	(void)arg;
	/* Static: the supervisor thread reads it until the process ends. */
	static struct syscall_counter c;
	const long *nrs = every_time_call ? time32_syscalls : NULL;
	int n = every_time_call ? (int)(sizeof(time32_syscalls) / sizeof(time32_syscalls[0])) : 0;
	if (counter_start(&c, nrs, n) != 0)
		return 0; /* tally->counted stays 0 */
	counter_on(&c);
	make_time_calls(every_time_call);
	tally->count = counter_off(&c);
	tally->first_nr = c.first_nr;
	tally->last_nr = c.last_nr;
	tally->counted = 1;
	return 0;
}

/*
 * The calls, counted in a child (a seccomp filter cannot be taken back),
 * and marked for strace: "ok" when they made no syscall (every == 0) or
 * no 32-bit-time one (every == 1); a SKIP where seccomp cannot count.
 */
static void check_syscalls(int every, const char *what)
{
	const char *mark = every ? "no-time32-syscall" : "no-syscall";
	char begin[64], end[64];
	snprintf(begin, sizeof(begin), "%s-begin", mark);
	snprintf(end, sizeof(end), "%s-end", mark);
	strace_mark(begin);
	make_time_calls(every);
	strace_mark(end);

	if (!tally) {
		skip("v73y2038: %s: no shared page to count in", what);
		return;
	}
	memset(tally, 0, sizeof(*tally));
	every_time_call = every;
	int status = run_in_child(count_in_child, NULL, 60);
	if (!child_passed(status)) {
		ok(0, "v73y2038: %s: the counting child %s", what, wait_status_text(status).text);
		return;
	}
	if (!tally->counted) {
		skip("v73y2038: %s: seccomp cannot count syscalls here (qemu-user has none; "
		     "tests/qemu-user.t checks with -strace)", what);
		return;
	}
	if (!ok(tally->count == 0, "v73y2038: %s (%d counted)", what, tally->count))
		diag("the first one: syscall %d, the last: %d", tally->first_nr, tally->last_nr);
}

static void check_2026_image(enum image_kind kind)
{
	const char *k = kind == KIND_V70 ? "v70" : "v73y2038";
	struct vdsokit_route_info p;
	int r;

	/* clock_getres: the 64-bit entry 7.0 added, for the clocks the vDSO reads. */
	static const clockid_t fast[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME_COARSE,
					  CLOCK_MONOTONIC_COARSE };
	for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++) {
		struct vdsokit_timespec res = { -1, -1 };
		vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, fast[i], &p);
		r = vdsokit_clock_getres(fast[i], &res);
		int right = p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, Y2038_GETRES64) && r == 0 &&
			    res.tv_sec == 0 && res.tv_nsec == 7;
			ok(right, "%s: clock_getres(%d) is %s's {0, 7} (%s; got %d {%" PRId64 ", %" PRId64 "})", k,
			   (int)fast[i], Y2038_GETRES64, path_text(&p), r, res.tv_sec, res.tv_nsec);
	}
	struct vdsokit_timespec ts = { -1, -1 }, want = fake_gettime_value(CLOCK_MONOTONIC, 1);
	r = vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	ok(r == 0 && ts.tv_sec == want.tv_sec && ts.tv_nsec == want.tv_nsec,
	   "%s: clock_gettime(MONOTONIC) is the fake %s's {%#" PRIx64 ", %" PRId64 "}", k,
	   Y2038_GETTIME64, want.tv_sec, want.tv_nsec);

	/* gettimeofday and time: their own entries (7.0), or clock_gettime64's (7.3 without time32). */
	struct vdsokit_timespec realtime = fake_gettime_value(CLOCK_REALTIME, 1);
	struct vdsokit_timeval tv = { -1, -1 };
	vdsokit_route_of(VDSOKIT_FN_GETTIMEOFDAY, 0, &p);
	r = vdsokit_gettimeofday(&tv, NULL);
	if (kind == KIND_V70) {
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, Y2038_PREFIX "gettimeofday") && r == 0 &&
			   tv.tv_sec == 0x33333 && tv.tv_usec == 0x444,
		   "v70: gettimeofday is its own entry's {0x33333, 0x444} (%s; got %d {%#" PRIx64 ", %#" PRIx64 "})",
		   path_text(&p), r, tv.tv_sec, tv.tv_usec);
	} else {
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, Y2038_GETTIME64),
		   "v73y2038: gettimeofday is served by %s, there being no gettimeofday entry: %s",
		   Y2038_GETTIME64, path_text(&p));
		ok(r == 0 && tv.tv_sec == realtime.tv_sec && tv.tv_usec == realtime.tv_nsec / 1000,
		   "v73y2038: gettimeofday is the fake %s's CLOCK_REALTIME {%#" PRIx64 ", %" PRId64 "} "
		   "(got %d {%#" PRIx64 ", %" PRId64 "})", Y2038_GETTIME64, realtime.tv_sec,
		   realtime.tv_nsec / 1000, r, tv.tv_sec, tv.tv_usec);
	}
	int64_t t = -1;
	vdsokit_route_of(VDSOKIT_FN_TIME, 0, &p);
	r = vdsokit_time(&t);
	if (kind == KIND_V70 && Y2038_HAS_TIME) {
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, Y2038_PREFIX "time") && r >= 0 &&
			   t == FAKE_TIME_VALUE_32,
		   "v70: time is its own entry's %#x (%s; got %d, %#" PRIx64 ")", FAKE_TIME_VALUE_32,
		   path_text(&p), r, t);
	} else {
		/* The seconds of CLOCK_REALTIME or CLOCK_REALTIME_COARSE through clock_gettime64. */
		ok(p.route == VDSOKIT_ROUTE_VDSO && str_eq(p.symbol, Y2038_GETTIME64) && r >= 0 &&
			   (t == realtime.tv_sec || t == realtime.tv_sec + CLOCK_REALTIME_COARSE),
		   "%s: time is the seconds of the fake %s (%s; got %d, %#" PRIx64 ")", k, Y2038_GETTIME64,
		   path_text(&p), r, t);
	}

	/* No path names an entry with 32-bit time, on either image. */
	int time32_named = 0;
	const char *which = "";
	for (clockid_t c = 0; c < CLOCK_COUNT; c++) {
		static const enum vdsokit_func fns[] = { VDSOKIT_FN_CLOCK_GETTIME, VDSOKIT_FN_CLOCK_GETRES,
							 VDSOKIT_FN_GETTIMEOFDAY, VDSOKIT_FN_TIME };
		for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
			vdsokit_route_of(fns[f], c, &p);
			for (size_t n = 0; n < 2; n++) /* clock_gettime, clock_getres: 32-bit time */
				if (str_eq(p.symbol, y2038_time32_names[n])) {
					time32_named++;
					which = p.symbol;
				}
		}
	}
	ok(time32_named == 0, "%s: no clock path takes a 32-bit-time entry (%d did%s%s)", k, time32_named,
	   time32_named ? ": " : "", which);

	if (kind == KIND_V73Y2038) {
		/* The image has none of them: a lookup finds nothing, and the
		   robust-futex helper of 7.2 is found by name where it is (i386). */
		const struct vdsokit_image *img = vdsokit_process_image();
		int found = 0;
		for (size_t n = 0; n < sizeof(y2038_time32_names) / sizeof(y2038_time32_names[0]); n++) {
			struct vdsokit_symbol sym;
			found += vdsokit_image_lookup(img, y2038_time32_names[n], names.node, &sym) == 0;
		}
		ok(found == 0, "v73y2038: the image has no time32 entry (%d found)", found);
#ifdef __i386__
		struct vdsokit_symbol sym;
		r = vdsokit_image_lookup(img, "__vdso_futex_robust_list32_try_unlock", "LINUX_2.6", &sym);
		ok(r == 0 && sym.address != NULL,
		   "v73y2038: __vdso_futex_robust_list32_try_unlock@LINUX_2.6 is found by name (%d)", r);
#endif
		check_syscalls(0, "time, gettimeofday, clock_gettime and clock_getres of the vDSO's clocks "
			       "make no syscall");
		check_syscalls(1, "no time call, whatever its clock or path, makes a 32-bit-time syscall");
	}
}
#endif /* Y2038_GETTIME64 */

/*
 * vdsokit_init() from a signal handler that interrupted the library's own
 * initialisation must not wait for it (it cannot go on until the handler
 * returns).  The image is mapped without access, so the initialisation's
 * first read of it faults; the SIGSEGV handler makes it readable and calls
 * vdsokit_init() itself.  A hang there is caught by an alarm.
 */
static void *faulting_image;
static size_t faulting_image_size;
static volatile sig_atomic_t handler_init_ran;
static volatile int handler_init_result = 1;

static void init_from_segv_handler(int sig)
{
	(void)sig;
	if (handler_init_ran || mprotect(faulting_image, faulting_image_size, PROT_READ | PROT_EXEC) != 0)
		_exit(3); /* a fault of another kind: let the test fail loudly */
	handler_init_ran = 1;
	handler_init_result = vdsokit_init();
}

static void init_hung(int sig)
{
	static const char msg[] = "not ok - vdsokit_init() in the SIGSEGV handler never returned\n";
	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(4);
	_exit(5);
}

static int init_interrupted_by_handler(void *base, size_t size)
{
	struct sigaction segv = { .sa_handler = init_from_segv_handler }, alarm_action = { .sa_handler = init_hung };
	sigemptyset(&segv.sa_mask);
	sigemptyset(&alarm_action.sa_mask);
	faulting_image = base;
	faulting_image_size = size;
	if (mprotect(base, size, PROT_NONE) != 0 || sigaction(SIGSEGV, &segv, NULL) != 0 ||
	    sigaction(SIGALRM, &alarm_action, NULL) != 0) {
		diag("could not arrange the interrupted initialisation: %s", strerror(errno));
		return vdsokit_init();
	}
	alarm(30);
	int r = vdsokit_init();
	alarm(0);
	signal(SIGSEGV, SIG_DFL);
	ok(handler_init_ran && handler_init_result == 0,
	   "image: vdsokit_init() in a signal handler that interrupted the initialisation returns "
	   "at once, ready (%d)", handler_init_result);
	return r;
}

struct mapped_image {
	const void *base;
	size_t size;
};

/*
 * The clock functions' first call resolves their entries alone (the set
 * src/internal.h calls CLOCK_SYMBOLS): made first, then vdsokit_init()
 * resolves the rest and must leave every clock slot as that call published
 * it.  A set that missed an entry the choice reads (arm's
 * clock_getres_time64, mips's clock_getres) would have published other
 * routes.  In a child: the image is chosen once per process.
 */
static int clock_call_then_init(void *arg)
{
	const struct mapped_image *image = arg;
	struct vdsokit_timespec ts;
	if (vdsokit_use_image(image->base, image->size) != 0)
		return 2;
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	vdsokit_clock_getres(CLOCK_MONOTONIC, &ts);
	struct vdsokit__routes_v3 after_clocks;
	size_t clocks = offsetof(struct vdsokit__routes_v3, time);
	memcpy(&after_clocks, &vdsokit__routes_v3, clocks);
	if (vdsokit_init() != 0)
		return 3;
	for (unsigned i = 0; i < VDSOKIT__CLOCK_SLOTS; i++)
		if (after_clocks.gettime[i] != vdsokit__routes_v3.gettime[i] ||
		    after_clocks.getres[i] != vdsokit__routes_v3.getres[i]) {
			printf("# clock %u: the clock call published %p/%p, vdsokit_init() %p/%p\n", i,
			       (void *)(uintptr_t)after_clocks.gettime[i], (void *)(uintptr_t)after_clocks.getres[i],
			       (void *)(uintptr_t)vdsokit__routes_v3.gettime[i],
			       (void *)(uintptr_t)vdsokit__routes_v3.getres[i]);
			return 1;
		}
	return 0;
}

static int run_with_image(const char *file, enum image_kind kind)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
		fprintf(stderr, "callpath: %s: %s\n", file, strerror(errno));
		return 2;
	}
	/* Flat, read+exec, as the kernel maps a vDSO: the image was linked
	   with p_offset == p_vaddr so file offsets are addresses. */
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		fprintf(stderr, "callpath: %s: mmap: %s\n", file, strerror(errno));
		return 2;
	}

	printf("# image %s mapped at %p\n", file, base);
	struct vdsokit_image pub, own;
	int pub_err = vdsokit_image_parse(&pub, base, (size_t)st.st_size);
	int own_err = vdsokit_lib_image_parse(&own, base, (size_t)st.st_size);
	ok(pub_err == 0 && own_err == 0 && memcmp(&pub, &own, sizeof(pub)) == 0,
	   "image: the library's own parse (this ABI's alone) reads it as vdsokit_image_parse does (%d, %d)",
	   pub_err, own_err);
	struct mapped_image image = { base, (size_t)st.st_size };
	int first = run_in_child(clock_call_then_init, &image, 60);
	ok(child_passed(first), "image: the first clock calls publish the clock slots a whole resolution "
	   "keeps (%s)", wait_status_text(first).text);
	if (!ok(vdsokit_use_image(base, (size_t)st.st_size) == 0,
		   "image: vdsokit_use_image before any other call"))
		return done_testing();
	int r = init_interrupted_by_handler(base, (size_t)st.st_size);
	if (!ok(r == 0, "image: vdsokit_init() accepts it (%d)", r))
		return done_testing();
	ok(vdsokit_process_image() != NULL && vdsokit_process_image()->data == base,
	      "image: it is the process image");
	ok(vdsokit_use_image(NULL, 0) == -EBUSY, "image: vdsokit_use_image after init is -EBUSY");
	pin_to_current_cpu();

	check_image_paths(kind);
	check_inline_entry(kind);
	if (kind == KIND_PRE54)
		check_enosys_calls_vdso_once();
	if (kind == KIND_ONLY32)
		check_overflow_drops_time32_entry();
	if (kind == KIND_TIME64ONLY)
		check_time64only_calls();
	if (kind == KIND_V70 || kind == KIND_V73Y2038) {
#ifdef Y2038_GETTIME64
		check_2026_image(kind);
#else
		skip("the 2026 images are of the 32-bit-time ABIs (i386, arm, mips o32/n32, ppc32)");
#endif
	}
	for (clockid_t c = 0; c < CLOCK_COUNT; c++)
		check_gettime_through_image(c, kind);
	if (kind == KIND_CALLABLE) {
		if (names.getres) {
			for (clockid_t c = 0; c < CLOCK_COUNT; c++)
				check_getres_through_image(c);
			struct vdsokit_timespec res;
			r = vdsokit_clock_getres(CLOCK_INVALID_ID, &res);
			ok(r == -EINVAL, "image: clock_getres(%d) is -EINVAL (got %d)", CLOCK_INVALID_ID, r);
		} else {
			for (clockid_t c = 0; c < CLOCK_COUNT; c++)
				check_getres_against_syscall(c, "image, no getres entry");
		}
		check_others_through_image();
	}
	return done_testing();
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef Y2038_GETTIME64
	void *shared = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	tally = shared == MAP_FAILED ? NULL : shared;
#endif
	/* Before any call: a fake called without it would fault. */
	map_fake_counters();
	if (argc == 1)
		return run_without_vdso();
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "--image") == 0) {
		enum image_kind kind = KIND_CALLABLE;
		if (argc == 4) {
			if (strcmp(argv[3], "only64") == 0)
				kind = KIND_ONLY64;
			else if (strcmp(argv[3], "time32only") == 0)
				kind = KIND_ONLY32;
			else if (strcmp(argv[3], "time64only") == 0)
				kind = KIND_TIME64ONLY;
			else if (strcmp(argv[3], "v70") == 0)
				kind = KIND_V70;
			else if (strcmp(argv[3], "v73y2038") == 0)
				kind = KIND_V73Y2038;
			else if (strcmp(argv[3], "pre54") == 0)
				kind = KIND_PRE54;
			else if (strcmp(argv[3], "callable") != 0) {
				fprintf(stderr, "callpath: unknown image kind '%s'\n", argv[3]);
				return 2;
			}
		}
		return run_with_image(argv[2], kind);
	}
	fprintf(stderr, "usage: callpath [--image FILE [callable|only64|time32only|time64only|v70|v73y2038|pre54]]\n");
	return 2;
}
