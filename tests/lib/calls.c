// SPDX-License-Identifier: MIT
/*
 * Every library call against the raw syscall, on whatever vDSO this
 * process has (the host's, a guest kernel's, or none under qemu-user or
 * valgrind): clock values inside a syscall-before/syscall-after sandwich,
 * identical errors, getres and getcpu equal, and the path report saying
 * vDSO for the clocks the vDSO reads in user space and syscall for the
 * CPU-time clocks.  With the argument "novdso" the library is told there
 * is no vDSO and everything must still hold through the syscalls.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"
#include "timens.h"

static const char *const clock_names[] = {
	"REALTIME", "MONOTONIC", "PROCESS_CPUTIME_ID", "THREAD_CPUTIME_ID", "MONOTONIC_RAW",
	"REALTIME_COARSE", "MONOTONIC_COARSE", "BOOTTIME", "REALTIME_ALARM", "BOOTTIME_ALARM",
	"SGI_CYCLE", "TAI",
};

static int sandwich_clock(clockid_t c, const char *name)
{
	struct vdsokit_timespec before, mid, after;
	int rb = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &before);
	int rm = vdsokit_clock_gettime(c, &mid);
	int ra = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &after);
	if (rb || ra || rm)
		return ok(rb == rm && ra == rm, "clock_gettime(%s=%d): error %d, syscall's %d", name, c, rm, rb);
	/* COARSE clocks tick at HZ: the syscall reads them the same way. */
	return ok(timespec_ns(before) <= timespec_ns(mid) && timespec_ns(mid) <= timespec_ns(after) &&
			  mid.tv_nsec >= 0 && mid.tv_nsec < 1000000000,
		  "clock_gettime(%s=%d) %lld within [%lld, %lld]", name, c, timespec_ns(mid),
		  timespec_ns(before), timespec_ns(after));
}

static void test_clocks(void)
{
	for (clockid_t c = 0; c < 12; c++)
		sandwich_clock(c, clock_names[c]);
	const clockid_t invalid[] = { 12, 15, 16, 31, 32, 100, INT_MAX, -1, INT_MIN };
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct vdsokit_timespec a, b;
		int rl = vdsokit_clock_gettime(invalid[i], &a);
		int rs = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, invalid[i], &b);
		ok(rl == rs && rl < 0, "clock_gettime(invalid %d) = %d, syscall %d", invalid[i], rl, rs);
	}
}

static void test_getres(void)
{
	for (clockid_t c = -1; c < 14; c++) {
		struct vdsokit_timespec a = { -1, -1 }, b = { -2, -2 };
		int rl = vdsokit_clock_getres(c, &a);
		int rs = vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, c, &b);
		ok(rl == rs && (rl || (a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec)),
		   "clock_getres(%d) = %d {%lld, %lld}, syscall %d {%lld, %lld}", c, rl,
		   (long long)a.tv_sec, (long long)a.tv_nsec, rs, (long long)b.tv_sec,
		   (long long)b.tv_nsec);
	}
	ok(vdsokit_clock_getres(CLOCK_MONOTONIC, NULL) == 0, "clock_getres(MONOTONIC, NULL) = 0");
}

static void test_gettimeofday_time(void)
{
	struct vdsokit_timespec before, after;
	struct vdsokit_timeval tv;
	struct timezone tz = { -1, -1 }, tz_sys = { -2, -2 };
	struct vdsokit_timeval tv_sys;

	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &before);
	int r = vdsokit_gettimeofday(&tv, &tz);
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &after);
	long long us = (long long)tv.tv_sec * 1000000 + tv.tv_usec;
	ok(r == 0 && us >= timespec_ns(before) / 1000 && us <= timespec_ns(after) / 1000 && tv.tv_usec >= 0 &&
		   tv.tv_usec < 1000000,
	   "gettimeofday %lld us within CLOCK_REALTIME [%lld, %lld]", us, timespec_ns(before) / 1000,
	   timespec_ns(after) / 1000);
	ok(vdsokit_gettimeofday_via(VDSOKIT_ROUTE_SYSCALL, &tv_sys, &tz_sys) == 0 &&
		   tz.tz_minuteswest == tz_sys.tz_minuteswest && tz.tz_dsttime == tz_sys.tz_dsttime,
	   "gettimeofday timezone {%d, %d} equals the syscall's {%d, %d}", tz.tz_minuteswest,
	   tz.tz_dsttime, tz_sys.tz_minuteswest, tz_sys.tz_dsttime);
	ok(vdsokit_gettimeofday(&tv, NULL) == 0, "gettimeofday with a NULL timezone");
	ok(vdsokit_gettimeofday(NULL, NULL) == 0, "gettimeofday(NULL, NULL)");

	int64_t t = -1, t2 = -2;
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &before);
	r = vdsokit_time(&t);
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &after);
	/* time() is the tick's seconds: it may lag CLOCK_REALTIME by a tick. */
	ok(r == 0 && t >= before.tv_sec - 1 && t <= after.tv_sec,
	   "time %lld consistent with CLOCK_REALTIME [%lld, %lld]", (long long)t,
	   (long long)before.tv_sec, (long long)after.tv_sec);
	ok(vdsokit_time(NULL) == 0, "time(NULL)");
	ok(vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, &t2) == 0 && t2 >= t && t2 <= t + 2,
	   "time via syscall %lld agrees", (long long)t2);
}

static void test_getcpu(void)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		skip("sched_getaffinity failed");
		return;
	}
	/* Every CPU: a per-CPU value the vDSO or the rseq area reads wrongly shows on one only. */
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		unsigned lc = ~0u, ln = ~0u, sc = ~1u, sn = ~1u;
		int rl = vdsokit_getcpu(&lc, &ln);
		int rs = vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, &sc, &sn);
		ok(rl == 0 && rs == 0 && lc == sc && ln == sn && lc == (unsigned)cpu,
		   "getcpu on cpu %d: %u/%u, syscall %u/%u", cpu, lc, ln, sc, sn);
	}
	sched_setaffinity(0, sizeof(allowed), &allowed);
	unsigned c;
	ok(vdsokit_getcpu(&c, NULL) == 0 && vdsokit_getcpu(NULL, NULL) == 0, "getcpu with NULL node / both NULL");
}

/* The ABI thread pointer, read here without the library. */
static void *abi_thread_pointer(void)
{
	void *tp;
#if defined(__powerpc64__)
	__asm__("mr %0, 13" : "=r"(tp)); /* gcc 12 has no __builtin_thread_pointer here */
#elif defined(__powerpc__)
	__asm__("mr %0, 2" : "=r"(tp));
#elif defined(__sparc__)
	__asm__("mov %%g7, %0" : "=r"(tp));
#elif defined(__m68k__)
	tp = (void *)syscall(SYS_get_thread_area);
#elif defined(__i386__) || defined(__x86_64__)
	tp = (void *)pthread_self(); /* glibc and musl: the TCB, which %fs:0 / %gs:0 point to */
#else
	tp = __builtin_thread_pointer();
#endif
	return tp;
}

static void test_thread_pointer(void)
{
	void *want = abi_thread_pointer();
	ok(vdsokit_thread_pointer() == want, "thread pointer %p equals the ABI's %p",
	   vdsokit_thread_pointer(), want);
	void *kernel = vdsokit_thread_pointer_via(VDSOKIT_ROUTE_SYSCALL);
	if (kernel)
		ok(kernel == want, "the kernel's record of the thread pointer %p agrees", kernel);
	else
		skip("no syscall returns the thread pointer on %s (or this kernel refuses it)", vdsokit_arch_name());
}

static void test_errno_untouched(void)
{
	struct vdsokit_timespec ts;
	errno = 4242;
	vdsokit_clock_gettime(12345, &ts);
	vdsokit_clock_getres(-99999, &ts);
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	vdsokit_getcpu(NULL, NULL);
	ok(errno == 4242, "errno untouched by calls, failing or not (%d)", errno);
}

/* The name this architecture's vDSO gives clock_gettime (independent of the library's table). */
static const char *expected_gettime_symbol(void)
{
#if defined(__aarch64__) || defined(__powerpc__) || defined(__s390__)
	return "__kernel_clock_gettime";
#elif defined(__m68k__)
	return "__vdso_clock_gettime64";
#else
	return "__vdso_clock_gettime";
#endif
}

static void test_paths(int told_no_vdso)
{
	const struct vdsokit_image *img = vdsokit_process_image();
	int have_aux = getauxval(AT_SYSINFO_EHDR) != 0 && !told_no_vdso;
	struct vdsokit_route_info p;

	if (!have_aux) {
		ok(img == NULL, "no vDSO: no process image");
		for (clockid_t c = 0; c < 12; c++) {
			vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, c, &p);
			ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_NO_VDSO && p.syscall,
			   "no vDSO: clock %d takes the %s syscall (%s)", c, p.syscall ? p.syscall : "?",
			   vdsokit_reason_text(p.reason));
		}
		return;
	}
	ok(img != NULL, "vDSO image parsed (%s)", img ? "yes" : "rejected");
	if (!img)
		return;
	struct vdsokit_symbol sym;
	int has = vdsokit_image_lookup(img, expected_gettime_symbol(), NULL, &sym) == 0;
	diag("vDSO %zu bytes, %u symbols; %s %s", img->size, img->symbol_count,
	     expected_gettime_symbol(), has ? "present" : "absent");
#ifdef __m68k__
	/* No user-readable counter on m68k: only the COARSE clocks are user-space reads. */
	const clockid_t fast[] = { CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE };
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	ok(p.route == VDSOKIT_ROUTE_SYSCALL, "m68k: clock MONOTONIC goes straight to the syscall (%s)",
	   vdsokit_reason_text(p.reason));
	/*
	 * The vDSO's gettimeofday is a REALTIME read: there, only a way into
	 * the kernel.  Without it (the series adds no y2038-unsafe entry)
	 * gettimeofday is CLOCK_REALTIME's read through clock_gettime64, so
	 * it takes REALTIME's route and gives REALTIME's reason, not the
	 * missing symbol: that symbol would change nothing.
	 */
	int has_gtod = vdsokit_image_lookup(img, "__vdso_gettimeofday", NULL, &sym) == 0;
	struct vdsokit_route_info realtime;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_REALTIME, &realtime);
	vdsokit_route_of(VDSOKIT_FN_GETTIMEOFDAY, 0, &p);
	ok(p.route == VDSOKIT_ROUTE_SYSCALL &&
		   p.reason == (has_gtod ? VDSOKIT_REASON_ENTRY_IS_SYSCALL : realtime.reason),
	   "m68k: gettimeofday takes the syscall; the vDSO %s it (%s; REALTIME: %s)",
	   has_gtod ? "has" : "lacks", vdsokit_reason_text(p.reason),
	   vdsokit_reason_text(realtime.reason));
#else
	/* REALTIME, MONOTONIC and the COARSE clocks are user-space reads wherever the symbol is. */
	const clockid_t fast[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_REALTIME_COARSE,
				   CLOCK_MONOTONIC_COARSE };
#endif
	for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++) {
		vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, fast[i], &p);
		if (has)
			ok(p.route == VDSOKIT_ROUTE_VDSO && p.symbol && p.address,
			   "clock %s: path %s via %s@%s", clock_names[fast[i]], vdsokit_route_name(p.route),
			   p.symbol ? p.symbol : "-", p.version ? p.version : "-");
		else
			ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == VDSOKIT_REASON_SYMBOL_ABSENT,
			   "clock %s: symbol absent, syscall (%s)", clock_names[fast[i]],
			   vdsokit_reason_text(p.reason));
	}
	const clockid_t cpu[] = { CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };
	for (size_t i = 0; i < 2; i++) {
		vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, cpu[i], &p);
		ok(p.route == VDSOKIT_ROUTE_SYSCALL && p.syscall, "clock %s: syscall %s (%s)",
		   clock_names[cpu[i]], p.syscall ? p.syscall : "?", vdsokit_reason_text(p.reason));
	}
	vdsokit_route_of(VDSOKIT_FN_THREAD_POINTER, 0, &p);
#ifdef __m68k__
	/* The vDSO's __vdso_get_thread_area wherever it has one (the m68k-vdso guest). */
	int has_tp = vdsokit_image_lookup(img, "__vdso_get_thread_area", NULL, &sym) == 0;
	ok(p.route == (has_tp ? VDSOKIT_ROUTE_VDSO : VDSOKIT_ROUTE_SYSCALL), "m68k thread pointer: %s",
	   vdsokit_route_name(p.route));
#else
	ok(p.route == VDSOKIT_ROUTE_REGISTER, "thread pointer from a register");
#endif
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n && !b[n - 1])
		n--;
	return n == 0;
}

/*
 * The structs filled through the caller's pointer: over any bytes the
 * caller left there, this release's version, and the reserved room 0.
 */
static void test_struct_versions(void)
{
	struct vdsokit_route_info p;
	memset(&p, 0xa5, sizeof(p));
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
	ok(p.struct_version == VDSOKIT_ROUTE_INFO_VERSION && !p.reserved32 &&
		   all_zero(p.reserved, sizeof(p.reserved)),
	   "route info: struct_version %u, reserved room 0", p.struct_version);

	const struct vdsokit_image *img = vdsokit_process_image();
	if (!img || !img->symbol_count) {
		skip("symbol: no process image with symbols");
		skip("verdef: no process image with symbols");
		return;
	}
	struct vdsokit_symbol sym;
	memset(&sym, 0xa5, sizeof(sym));
	int r = vdsokit_image_symbol(img, img->symbol_count - 1, &sym);
	ok(r == 0 && sym.struct_version == VDSOKIT_SYMBOL_VERSION && !sym.reserved32 &&
		   all_zero(sym.reserved, sizeof(sym.reserved)),
	   "symbol: struct_version %u, reserved room 0 (%d)", sym.struct_version, r);
	struct vdsokit_verdef def;
	memset(&def, 0xa5, sizeof(def));
	r = img->verdef_count ? vdsokit_image_verdef(img, 0, &def) : -1;
	if (r == -1)
		skip("verdef: no version definitions");
	else
		ok(r == 0 && def.struct_version == VDSOKIT_VERDEF_VERSION && !def.reserved32 &&
			   all_zero(def.reserved, sizeof(def.reserved)),
		   "verdef: struct_version %u, reserved room 0 (%d)", def.struct_version, r);
}

/*
 * vdsokit_bare_entry: the entry path_of names, called bare with the
 * kernel's types it gives the same time as the syscall; getrandom and the
 * thread pointer never bare; powerpc's entries never (CR0.SO, descriptors).
 */
static void test_bare_entry(void)
{
	const void *entry = &entry;
	int time64 = -1;
	ok(vdsokit_bare_entry(VDSOKIT_FN_GETRANDOM, &entry, &time64) == -EOPNOTSUPP && !entry,
	   "bare entry of getrandom: -EOPNOTSUPP (its state comes from the library)");
	ok(vdsokit_bare_entry(VDSOKIT_FN_THREAD_POINTER, &entry, NULL) == -EOPNOTSUPP,
	   "bare entry of the thread pointer: -EOPNOTSUPP");
	ok(vdsokit_bare_entry(VDSOKIT_FN_COUNT, &entry, NULL) == -EINVAL, "bare entry of no function: -EINVAL");
	ok(vdsokit_bare_entry(VDSOKIT_FN_CLOCK_GETTIME, NULL, NULL) == -EINVAL,
	   "bare entry with nowhere to put it: -EINVAL, no crash");

	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_REALTIME_COARSE, &p);
	int r = vdsokit_bare_entry(VDSOKIT_FN_CLOCK_GETTIME, &entry, &time64);
#if defined(__powerpc__)
	ok(r == -EOPNOTSUPP && !entry, "powerpc: no bare clock_gettime (%d)", r);
	return;
#endif
	if (p.route != VDSOKIT_ROUTE_VDSO) {
		ok(r == -ENOENT && !entry, "no clock_gettime entry in use: bare entry -ENOENT (%d)", r);
		return;
	}
	ok(r == 0 && entry == p.address && (time64 == 0 || time64 == 1),
	   "bare clock_gettime is path_of's %s at %p (time64 %d)", p.symbol, p.address, time64);
	if (r != 0 || !time64)
		return;
	/* The bare call, with the kernel's 64-bit timespec, inside a syscall sandwich. */
	int (*bare)(clockid_t, struct vdsokit_timespec *) =
		(int (*)(clockid_t, struct vdsokit_timespec *))(uintptr_t)entry;
	struct vdsokit_timespec before, mid, after;
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME_COARSE, &before);
	int rm = bare(CLOCK_REALTIME_COARSE, &mid);
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME_COARSE, &after);
	ok(rm == 0 && timespec_ns(before) <= timespec_ns(mid) && timespec_ns(mid) <= timespec_ns(after),
	   "bare clock_gettime(REALTIME_COARSE) %lld within the syscall's [%lld, %lld]",
	   timespec_ns(mid), timespec_ns(before), timespec_ns(after));
}

#ifndef TEST_NO_VDSO
#define TEST_NO_VDSO 0
#endif
#ifndef TEST_IN_TIME_NAMESPACE
#define TEST_IN_TIME_NAMESPACE 0
#endif

/* The checks that hold wherever the process runs, a time namespace included. */
static void test_calls(void)
{
	test_clocks();
	test_getres();
	test_gettimeofday_time();
	test_getcpu();
	test_thread_pointer();
	test_errno_untouched();
}

int main(int argc, char **argv)
{
	if (TEST_IN_TIME_NAMESPACE) {
		/* Initialised outside, called inside: the vDSO's data page changes under the library. */
		int r = vdsokit_init();
		diag("arch %s, vdsokit_init() = %d; the calls run in a time namespace", vdsokit_arch_name(), r);
		timens_run(test_calls);
		return done_testing();
	}
	int no_vdso = TEST_NO_VDSO || (argc > 1 && strcmp(argv[1], "novdso") == 0);
	if (no_vdso)
		ok(vdsokit_use_image(NULL, 0) == 0, "vdsokit_use_image(NULL) before first use");
	diag("arch %s, AT_SYSINFO_EHDR %p%s", vdsokit_arch_name(), (void *)getauxval(AT_SYSINFO_EHDR),
	     no_vdso ? " (ignored: told no vDSO)" : "");
	test_paths(no_vdso);
	test_struct_versions();
	test_bare_entry();
	test_calls();
	ok(vdsokit_use_image(NULL, 0) == -EBUSY, "vdsokit_use_image after first use: -EBUSY");
	int r = vdsokit_init();
	ok(no_vdso || !getauxval(AT_SYSINFO_EHDR) ? r == -ENOENT : r == 0, "vdsokit_init() = %d", r);
	return done_testing();
}
