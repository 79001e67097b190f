// SPDX-License-Identifier: MIT
/*
 * On an ILP32 ABI whose vDSO has only 32-bit-time entries (sparc32; i386
 * before 5.1, which the synthetic "time32only" image stands for), the inlined
 * vdsokit_clock_gettime and vdsokit_clock_getres reach the entry through
 * their clock's slot (the library's widening function, src/time.c) and
 * vdsokit_time calls the time entry itself: the library's public
 * out-of-line functions are never called.
 * Linked with -Wl,--wrap for those functions (tests/tests.mk), which count
 * the calls that reach them.
 *
 * The image: $VDSOKIT_IMAGES (or build/images)/i386/time32only.so on i386,
 * mapped flat and handed to the library; elsewhere this process's own
 * vDSO, when path_of says it is 32-bit-time only.  Anything else is a SKIP
 * with the reason.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "../images/fake_abi.h"
#include "testutil.h"

/* ---- the library's out-of-line functions, counted ------------------------ */

static unsigned lib_gettime, lib_getres, lib_time;

int __real_vdsokit_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts);
int __real_vdsokit_clock_getres(clockid_t clock, struct vdsokit_timespec *res);
int __real_vdsokit_time(int64_t *t);

int __wrap_vdsokit_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
	lib_gettime++;
	return __real_vdsokit_clock_gettime(clock, ts);
}

int __wrap_vdsokit_clock_getres(clockid_t clock, struct vdsokit_timespec *res)
{
	lib_getres++;
	return __real_vdsokit_clock_getres(clock, res);
}

int __wrap_vdsokit_time(int64_t *t)
{
	lib_time++;
	return __real_vdsokit_time(t);
}

/* ---- which vDSO ------------------------------------------------------- */

#if defined(__powerpc__) || defined(__LP64__) || (defined(__x86_64__) && defined(__ILP32__))
#define TIME32_ABI 0 /* 64-bit time, or powerpc's own call sequence: nothing inlined to widen */
#else
#define TIME32_ABI 1
#endif

#define CLOCK_TAI_ID 11 /* the time32only fake's 32-bit seconds wrap for it (-5) */

/* The fakes (tests/images/fake.c) count their calls in a page at a fixed address. */
static volatile uint32_t *fake_counters;
static int from_image;

/* i386's time32only image mapped flat and given to the library: 1, 0 (none here) or -1. */
static int use_only32_image(void)
{
#ifdef __i386__
	const char *dir = getenv("VDSOKIT_IMAGES");
	char file[4096];
	snprintf(file, sizeof(file), "%s/i386/time32only.so", dir && *dir ? dir : "build/images");
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		diag("no %s (make images): this process's own vDSO", file);
		return 0;
	}
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	void *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	void *want = (void *)FAKE_COUNTERS_ADDR;
	void *page = mmap(want, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || page != want) {
		diag("mmap of %s or of the fakes' counter page failed", file);
		return -1;
	}
	fake_counters = page;
	if (vdsokit_use_image(base, (size_t)st.st_size) != 0)
		return -1;
	diag("image %s", file);
	return 1;
#else
	return 0;
#endif
}

/* A clock's value from the syscall before and after: the call's must lie between. */
static int between_syscalls(clockid_t c, int (*call)(clockid_t, struct vdsokit_timespec *),
			    struct vdsokit_timespec *got, int *r)
{
	struct vdsokit_timespec before, after;
	int rb = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &before);
	*r = call(c, got);
	int ra = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &after);
	return rb == 0 && ra == 0 && *r == 0 && timespec_ns(before) <= timespec_ns(*got) &&
	       timespec_ns(*got) <= timespec_ns(after);
}

/* The inlined call, as a function for between_syscalls. */
static int inlined_gettime(clockid_t c, struct vdsokit_timespec *ts)
{
	return vdsokit_clock_gettime(c, ts);
}

static void check_gettime(clockid_t c)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, c, &p);
	if (p.route != VDSOKIT_ROUTE_VDSO) {
		diag("clock %d is not read in the vDSO here (%s)", (int)c, vdsokit_reason_text(p.reason));
		return;
	}
	struct vdsokit_timespec ts = { -1, -1 };
	int r = 0, right;
	unsigned lib = lib_gettime, entry = fake_counters ? fake_counters[FAKE_COUNT_GETTIME_NATIVE] : 0;
	if (from_image) {
		r = vdsokit_clock_gettime(c, &ts);
		right = r == 0 && ts.tv_sec == 0x10000 + c && ts.tv_nsec == 1000 + c;
	} else {
		right = between_syscalls(c, inlined_gettime, &ts, &r);
	}
	ok(lib_gettime == lib, "clock_gettime(%d) through %s: the library's function is not called "
	   "(%u calls)", (int)c, p.symbol, lib_gettime - lib);
	if (!ok(right, "clock_gettime(%d): the entry's answer, widened (%d {%" PRId64 ", %" PRId64 "})",
		(int)c, r, ts.tv_sec, ts.tv_nsec))
		diag("want %s", from_image ? "the fake's {0x10000 + clock, 1000 + clock}" : "the syscalls' range");
	if (fake_counters)
		ok(fake_counters[FAKE_COUNT_GETTIME_NATIVE] - entry == 1,
		   "clock_gettime(%d): the 32-bit entry is called once (%u)", (int)c,
		   fake_counters[FAKE_COUNT_GETTIME_NATIVE] - entry);
}

static void check_getres(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETRES, CLOCK_MONOTONIC, &p);
	if (p.route != VDSOKIT_ROUTE_VDSO || p.reason != VDSOKIT_REASON_TIME32) {
		skip("clock_getres: not a 32-bit-time vDSO entry here (%s)", vdsokit_reason_text(p.reason));
		return;
	}
	struct vdsokit_timespec res = { -1, -1 }, want = { 0, 3 };
	unsigned lib = lib_getres;
	int r = vdsokit_clock_getres(CLOCK_MONOTONIC, &res);
	if (!from_image)
		vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_MONOTONIC, &want);
	ok(lib_getres == lib && r == 0 && res.tv_sec == want.tv_sec && res.tv_nsec == want.tv_nsec,
	   "clock_getres(MONOTONIC) through %s, inlined: %d {%" PRId64 ", %" PRId64 "}, want {%" PRId64
	   ", %" PRId64 "}; %u calls of the library's function", p.symbol, r, res.tv_sec, res.tv_nsec,
	   want.tv_sec, want.tv_nsec, lib_getres - lib);
}

static void check_time(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_TIME, 0, &p);
	struct vdsokit_timespec before, after;
	if (p.route == VDSOKIT_ROUTE_VDSO && p.symbol && !strstr(p.symbol, "clock_gettime")) {
		/* A 32-bit time() entry (i386's __vdso_time): called inline, widened. */
		int64_t t = -1;
		unsigned lib = lib_time;
		vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME_COARSE, &before);
		int r = vdsokit_time(&t);
		vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME_COARSE, &after);
		int right = from_image ? t == FAKE_TIME_VALUE_32 : before.tv_sec <= t && t <= after.tv_sec;
		ok(r == 0 && right && lib_time == lib,
		   "time through its own 32-bit entry %s, inlined: %d, %" PRId64 "; %u calls of the "
		   "library's time", p.symbol, r, t, lib_time - lib);
		return;
	}
	int64_t t = -1;
	unsigned lib = lib_time, libclock = lib_gettime;
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME_COARSE, &before);
	int r = vdsokit_time(&t);
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME_COARSE, &after);
	int right = from_image ? t == 0x10000 + CLOCK_REALTIME_COARSE
			       : before.tv_sec <= t && t <= after.tv_sec;
	ok(r == 0 && right && lib_time == lib && lib_gettime == libclock,
	   "time through %s, inlined: %d, %" PRId64 "; %u calls of the library's time, %u of its "
	   "clock_gettime", p.symbol ? p.symbol : "the syscall", r, t, lib_time - lib,
	   lib_gettime - libclock);
}

/* The fake's TAI wraps: the entry is called once, dropped, and the syscall answers. */
static void check_wrapped(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_TAI_ID, &p);
	if (!from_image || p.route != VDSOKIT_ROUTE_VDSO) {
		diag("no wrapped seconds to check: %s", from_image ? "TAI not on the vDSO" : "a real vDSO");
		return;
	}
	struct vdsokit_timespec ts;
	int r = 0;
	uint32_t entry = fake_counters[FAKE_COUNT_GETTIME_NATIVE];
	ok(between_syscalls(CLOCK_TAI_ID, inlined_gettime, &ts, &r),
	   "clock_gettime(TAI), wrapped 32-bit seconds: the syscall's answer (%d)", r);
	ok(fake_counters[FAKE_COUNT_GETTIME_NATIVE] - entry == 1,
	   "the wrapped entry was called once (%u)", fake_counters[FAKE_COUNT_GETTIME_NATIVE] - entry);
	ok(between_syscalls(CLOCK_MONOTONIC, inlined_gettime, &ts, &r) &&
		   fake_counters[FAKE_COUNT_GETTIME_NATIVE] - entry == 1,
	   "after it, clock_gettime(MONOTONIC) is the syscall's, the entry never called again (%d)", r);
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_TIME32_OVERFLOWED,
	   "and path_of says so: %s", vdsokit_reason_text(p.reason));
}

int main(void)
{
	if (!TIME32_ABI) {
		skip("64-bit time (or powerpc's call sequence) on this ABI: no 32-bit-time entry to inline");
		return done_testing();
	}
	int image = use_only32_image();
	if (image < 0) {
		ok(0, "the time32only image could not be given to the library");
		return done_testing();
	}
	from_image = image;
	struct vdsokit_route_info p;
	int r = vdsokit_init();
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	if (r != 0 || p.route != VDSOKIT_ROUTE_VDSO || p.reason != VDSOKIT_REASON_TIME32) {
		skip("this process's vDSO is not 32-bit-time only (init %d; MONOTONIC: %s)", r,
		     vdsokit_reason_text(p.reason));
		return done_testing();
	}
	diag("%s", from_image ? "the time32only image" : "this kernel's vDSO, 32-bit-time only");
	static const clockid_t fast[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME_COARSE,
					  CLOCK_MONOTONIC_COARSE };
	for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++)
		check_gettime(fast[i]);
	check_getres();
	check_time();
	/* An error of the entry is returned as it is, inlined or not. */
	struct vdsokit_timespec ts;
	r = vdsokit_clock_gettime(100, &ts);
	ok(r == -EINVAL, "clock_gettime(100): -EINVAL (%d)", r);
	check_wrapped();
	return done_testing();
}
