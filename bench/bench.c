// SPDX-License-Identifier: MIT
/*
 * The library's benchmark program (`make bench`): what vdsokit_clock_gettime
 * costs next to its references, measured side by side in one run:
 *   raw   the resolved vDSO pointer called directly (the floor for any library)
 *   kit   vdsokit_clock_gettime
 *   libc  the libc's clock_gettime
 *   sys   the raw syscall
 * and the cost of the first call (locate + parse + resolve everything) in
 * fresh processes.  It reports figures; it never passes or fails.
 *
 * Method: all variants of a row are measured in interleaved rounds (so a
 * frequency or load change hits them alike); each round runs a batch
 * calibrated to ~100 µs; the figure is the median of the batch means.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "internal.h" /* vdsokit_resolve(), to time the first-call work alone */

#define ROUNDS 41
#define BATCH_TARGET_NS 100000.0

typedef int (*clock_fn)(clockid_t, void *);

static clock_fn raw_gettime;
static volatile clockid_t bench_clock;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Each variant runs n calls; the loop is the same shape for all four. */
static void run_raw(long n)
{
	struct timespec ts;
	clockid_t c = bench_clock;
	for (long i = 0; i < n; i++)
		raw_gettime(c, &ts);
}

static void run_kit(long n)
{
	struct vdsokit_timespec ts;
	clockid_t c = bench_clock;
	for (long i = 0; i < n; i++)
		vdsokit_clock_gettime(c, &ts);
}

static void run_libc(long n)
{
	struct timespec ts;
	clockid_t c = bench_clock;
	for (long i = 0; i < n; i++)
		clock_gettime(c, &ts);
}

static void run_sys(long n)
{
	struct vdsokit_timespec ts;
	clockid_t c = bench_clock;
	for (long i = 0; i < n; i++)
		vdsokit_clock_gettime_via(VDSOKIT_VIA_SYSCALL, c, &ts);
}

struct variant {
	const char *name;
	void (*run)(long n);
	long batch;
	double samples[ROUNDS];
	double median;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static long calibrate(void (*run)(long))
{
	long n = 16;
	for (;;) {
		double t0 = now_ns();
		run(n);
		double dt = now_ns() - t0;
		if (dt > BATCH_TARGET_NS / 4 || n > (1L << 26))
			return (long)(n * (BATCH_TARGET_NS / (dt > 1 ? dt : 1)));
		n *= 4;
	}
}

static void measure(struct variant *v, int count)
{
	for (int i = 0; i < count; i++) {
		v[i].batch = calibrate(v[i].run);
		if (v[i].batch < 1)
			v[i].batch = 1;
		v[i].run(v[i].batch); /* warm-up */
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int i = 0; i < count; i++) {
			double t0 = now_ns();
			v[i].run(v[i].batch);
			v[i].samples[r] = (now_ns() - t0) / v[i].batch;
		}
	for (int i = 0; i < count; i++) {
		qsort(v[i].samples, ROUNDS, sizeof(double), cmp_double);
		v[i].median = v[i].samples[ROUNDS / 2];
	}
}

/*
 * The first call in a fresh process, which locates, validates and resolves
 * everything.  Timed with the libc's clock (whose own cost is subtracted)
 * in forked children that have not touched the library yet.
 */
static double first_call_ns(int children)
{
	double results[64];
	int n = 0;
	for (int i = 0; i < children && i < 64; i++) {
		int fd[2];
		if (pipe(fd))
			break;
		pid_t pid = fork();
		if (pid == 0) {
			struct vdsokit_timespec ts;
			struct timespec a, b, c;
			clock_gettime(CLOCK_MONOTONIC, &a);
			clock_gettime(CLOCK_MONOTONIC, &b);
			vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
			clock_gettime(CLOCK_MONOTONIC, &c);
			double clock_cost = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
			double d = (c.tv_sec - b.tv_sec) * 1e9 + (c.tv_nsec - b.tv_nsec) - clock_cost;
			if (write(fd[1], &d, sizeof(d)) != sizeof(d))
				_exit(1);
			_exit(0);
		}
		close(fd[1]);
		if (pid > 0 && read(fd[0], &results[n], sizeof(double)) == sizeof(double))
			n++;
		close(fd[0]);
		waitpid(pid, NULL, 0);
	}
	if (n == 0)
		return -1;
	qsort(results, (size_t)n, sizeof(double), cmp_double);
	return results[n / 2];
}

/* The first call's work (locate, parse, resolve, choose) with warm caches and no page faults. */
static double resolve_ns(void)
{
	static struct vdsokit_state s;
	double best = 1e18;
	for (int r = 0; r < 31; r++) {
		double t0 = now_ns();
		for (int i = 0; i < 100; i++)
			vdsokit_resolve(&s);
		double t = (now_ns() - t0) / 100;
		if (t < best)
			best = t;
	}
	return best;
}

int main(void)
{
	static const struct { clockid_t id; const char *name; } clocks[] = {
		{ CLOCK_REALTIME, "REALTIME" }, { CLOCK_MONOTONIC, "MONOTONIC" },
		{ CLOCK_BOOTTIME, "BOOTTIME" }, { CLOCK_TAI, "TAI" },
		{ CLOCK_MONOTONIC_RAW, "MONOTONIC_RAW" }, { CLOCK_REALTIME_COARSE, "REALTIME_COARSE" },
		{ CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE" },
		{ CLOCK_PROCESS_CPUTIME_ID, "PROCESS_CPUTIME" },
	};
	/* Before anything touches the library in this process. */
	double first = first_call_ns(31);

	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	int pinned = sched_setaffinity(0, sizeof(one), &one) == 0;

	struct vdsokit_path path;
	vdsokit_path_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &path);
	raw_gettime = (clock_fn)(uintptr_t)path.address;
#if defined(__powerpc__) || !(defined(__LP64__) || defined(__x86_64__))
	/* powerpc needs the CR0.SO sequence and 32-bit arches may hold a time32 entry. */
	raw_gettime = NULL;
#endif

	printf("libvdsokit %s bench, %s, %s, %d rounds of ~%.0f us batches, median ns/call%s\n",
	       VDSOKIT_VERSION_STRING, vdsokit_arch_name(),
	       path.symbol ? path.symbol : "no vDSO clock_gettime", ROUNDS, BATCH_TARGET_NS / 1000,
	       pinned ? ", pinned to one CPU" : "");
	printf("\n%-17s %8s %8s %8s %8s   %10s %10s %9s\n", "clock", "raw", "kit", "libc", "syscall",
	       "kit/raw", "kit-raw", "kit/libc");
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		struct variant v[4] = {
			{ .name = "raw", .run = run_raw },
			{ .name = "kit", .run = run_kit },
			{ .name = "libc", .run = run_libc },
			{ .name = "sys", .run = run_sys },
		};
		bench_clock = clocks[c].id;
		struct vdsokit_timespec probe;
		int have_raw = raw_gettime && vdsokit_clock_gettime_via(VDSOKIT_VIA_VDSO, clocks[c].id, &probe) == 0;
		struct variant *vs = have_raw ? v : v + 1;
		measure(vs, have_raw ? 4 : 3);
		if (have_raw)
			printf("%-17s %8.2f %8.2f %8.2f %8.2f   %9.1f%% %+9.2fns %8.1f%%\n", clocks[c].name,
			       v[0].median, v[1].median, v[2].median, v[3].median,
			       100.0 * v[1].median / v[0].median, v[1].median - v[0].median,
			       100.0 * v[1].median / v[2].median);
		else
			printf("%-17s %8s %8.2f %8.2f %8.2f   %10s %10s %8.1f%%\n", clocks[c].name, "-",
			       v[1].median, v[2].median, v[3].median, "-", "-",
			       100.0 * v[1].median / v[2].median);
	}
	printf("\nfirst call (locate + parse + resolve + choose), fastest of 31 x 100: %.0f ns\n",
	       resolve_ns());
	printf("first call in a fresh process, page faults included, median of 31: %.0f ns\n", first);
	return 0;
}
