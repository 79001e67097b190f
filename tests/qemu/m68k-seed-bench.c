/* SPDX-License-Identifier: MIT */
/*
 * m68k-seed-bench — the m68k seed's table from one run in one guest: each
 * call made through the syscall ("before"), through the vDSO entry itself
 * ("after", the raw pointer resolved from AT_SYSINFO_EHDR) and through
 * libvdsokit (which picks one of the two), in ns per call.  Rows: the
 * clock_gettime64 clocks the seed names, clock_getres, gettimeofday, the
 * thread pointer, and the thread pointer read as the seed's glibc patch 1
 * read it: one load from the data page at AT_SYSINFO_EHDR - 4096, where the
 * kernel series keeps it (an implementation detail its documentation no
 * longer promises: the row shows what the call costs beside a load).
 *
 * A benchmark, not a timing test: each TAP line says a row was measured
 * and its calls succeeded; the figures are "# " lines, and one
 * "# SEED|row|syscall|vdso|libvdsokit" line per row for tools.  Figures
 * under QEMU are emulated time: compare the columns of a row.
 *
 * m68k only: built by tests/qemu/matrix.t into $(BUILD)/m68k/tests/.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <vdsokit.h>

#include "../tap.h"

#ifndef __m68k__
#error "m68k-seed-bench is an m68k program: build it with m68k-linux-gnu-gcc"
#endif

/*
 * Rounds: each round runs one batch of every cell of a row, so the columns
 * of a row share the host's load; a cell's figure is its fastest batch,
 * since a busy host only ever adds time to an emulated guest.
 */
#define ROUNDS 15
#define MIN_BATCH_NS 20000000.0 /* 20 ms: ~15,600 ticks of the q800's VIA clock */
#define DATA_PAGE_TP_OFFSET 4096

struct kernel_timeval32 {
	long tv_sec, tv_usec;
};

typedef int (*clock_fn)(clockid_t, struct vdsokit_timespec *);
typedef int (*gtod_fn)(struct kernel_timeval32 *, struct timezone *);
typedef unsigned long (*tp_fn)(void);
extern void *__m68k_read_tp(void);

static clock_fn vdso_gettime, vdso_getres;
static gtod_fn vdso_gettimeofday;
static tp_fn vdso_get_thread_area;
static const volatile unsigned long *data_page_slot;

static clockid_t bench_clock;
static volatile unsigned long sink;

/* ---- the calls: one int-returning function per cell ---------------------- */

/* The clock cells: one runner, calling the entry chosen for the cell. */
static clock_fn cell_clock_fn;

static int clock_cell(void)
{
	struct vdsokit_timespec ts;
	return cell_clock_fn(bench_clock, &ts);
}
static int sys_clock_gettime64(clockid_t clock, struct vdsokit_timespec *ts)
{
	return (int)syscall(SYS_clock_gettime64, clock, ts);
}
static int sys_clock_getres_time64(clockid_t clock, struct vdsokit_timespec *ts)
{
	return (int)syscall(SYS_clock_getres_time64, clock, ts);
}
static int sys_gtod(void)
{
	struct kernel_timeval32 tv;
	return (int)syscall(SYS_gettimeofday, &tv, NULL);
}
static int raw_gtod(void)
{
	struct kernel_timeval32 tv;
	return vdso_gettimeofday(&tv, NULL);
}
static int kit_gtod(void)
{
	struct vdsokit_timeval tv;
	return vdsokit_gettimeofday(&tv, NULL);
}
static int sys_tp(void)
{
	sink = (unsigned long)syscall(SYS_get_thread_area);
	return 0;
}
static int raw_tp(void)
{
	sink = vdso_get_thread_area();
	return 0;
}
static int kit_tp(void)
{
	sink = (unsigned long)vdsokit_thread_pointer();
	return 0;
}
static int slot_tp(void)
{
	sink = *data_page_slot;
	return 0;
}
static int glibc_tp(void)
{
	sink = (unsigned long)__m68k_read_tp();
	return 0;
}

/* ---- timing ----------------------------------------------------------- */

static double now_ns(void)
{
	struct vdsokit_timespec ts;
	syscall(SYS_clock_gettime64, CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * Calls per batch for fn so that a batch lasts at least MIN_BATCH_NS;
 * 0 when a call failed (*error gets its result).
 */
static long calibrate(int (*fn)(void), int *error)
{
	for (long n = 16;; n *= 2) {
		double t0 = now_ns();
		for (long i = 0; i < n; i++) {
			int r = fn();
			if (r != 0) {
				*error = r;
				return 0;
			}
		}
		if (now_ns() - t0 >= MIN_BATCH_NS)
			return n;
	}
}

static double batch_ns_per_call(int (*fn)(void), long n)
{
	double t0 = now_ns();
	for (long i = 0; i < n; i++)
		fn();
	return (now_ns() - t0) / (double)n;
}

/* ---- the table -------------------------------------------------------- */

/* A cell calls run(), or for a clock row the clock entry clock; neither: not measured. */
struct cell {
	int (*run)(void);
	clock_fn clock;
};

struct row {
	const char *name;
	clockid_t clock;
	struct cell cells[3]; /* syscall, vDSO, libvdsokit */
	double fig[3];
};

static void fmt(char *buf, size_t len, double ns)
{
	if (ns < 0)
		snprintf(buf, len, "—");
	else if (ns >= 10000)
		snprintf(buf, len, "%.1f µs", ns / 1000);
	else
		snprintf(buf, len, "%.0f ns", ns);
}

static const void *resolve(const struct vdsokit_image *img, const char *name)
{
	struct vdsokit_symbol sym;
	if (!img || vdsokit_image_lookup(img, name, "LINUX_5.10", &sym) != 0)
		return NULL;
	return sym.address;
}

int main(void)
{
	const struct vdsokit_image *img = vdsokit_process_image();
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
	vdso_gettime = (clock_fn)resolve(img, "__vdso_clock_gettime64");
	vdso_getres = (clock_fn)resolve(img, "__vdso_clock_getres_time64");
	vdso_gettimeofday = (gtod_fn)resolve(img, "__vdso_gettimeofday");
	vdso_get_thread_area = (tp_fn)resolve(img, "__vdso_get_thread_area");
	if (ehdr && vdso_get_thread_area)
		data_page_slot = (const volatile unsigned long *)(ehdr - DATA_PAGE_TP_OFFSET);
	diag("AT_SYSINFO_EHDR %#lx; resolved: clock_gettime64 %s, clock_getres_time64 %s, "
	     "gettimeofday %s, get_thread_area %s", ehdr, vdso_gettime ? "yes" : "no",
	     vdso_getres ? "yes" : "no", vdso_gettimeofday ? "yes" : "no",
	     vdso_get_thread_area ? "yes" : "no");

	/* The vDSO column only where the entry (or the data-page slot) is there. */
	int (*raw_tp_cell)(void) = vdso_get_thread_area ? raw_tp : NULL;
	int (*raw_gtod_cell)(void) = vdso_gettimeofday ? raw_gtod : NULL;
	int (*slot_cell)(void) = data_page_slot ? slot_tp : NULL;
#define GETTIME_CELLS { { NULL, sys_clock_gettime64 }, { NULL, vdso_gettime }, \
			{ NULL, vdsokit_clock_gettime } }
	struct row rows[] = {
		{ "clock_gettime64(REALTIME)", CLOCK_REALTIME, GETTIME_CELLS, { 0 } },
		{ "clock_gettime64(MONOTONIC)", CLOCK_MONOTONIC, GETTIME_CELLS, { 0 } },
		{ "clock_gettime64(REALTIME_COARSE)", CLOCK_REALTIME_COARSE, GETTIME_CELLS, { 0 } },
		{ "clock_gettime64(MONOTONIC_COARSE)", CLOCK_MONOTONIC_COARSE, GETTIME_CELLS, { 0 } },
		{ "clock_gettime64(BOOTTIME)", CLOCK_BOOTTIME, GETTIME_CELLS, { 0 } },
		{ "clock_getres_time64(MONOTONIC)", CLOCK_MONOTONIC,
		  { { NULL, sys_clock_getres_time64 }, { NULL, vdso_getres }, { NULL, vdsokit_clock_getres } },
		  { 0 } },
		{ "gettimeofday", 0, { { sys_gtod, NULL }, { raw_gtod_cell, NULL }, { kit_gtod, NULL } },
		  { 0 } },
		{ "thread pointer (get_thread_area)", 0,
		  { { sys_tp, NULL }, { raw_tp_cell, NULL }, { kit_tp, NULL } }, { 0 } },
		{ "thread pointer, load at AT_SYSINFO_EHDR-4096", 0,
		  { { NULL, NULL }, { slot_cell, NULL }, { NULL, NULL } }, { 0 } },
		{ "thread pointer, glibc __m68k_read_tp", 0,
		  { { glibc_tp, NULL }, { NULL, NULL }, { NULL, NULL } }, { 0 } },
	};
#undef GETTIME_CELLS
	const size_t n_rows = sizeof(rows) / sizeof(rows[0]);

	for (size_t i = 0; i < n_rows; i++) {
		struct row *r = &rows[i];
		int errors[3] = { 0, 0, 0 }, measured = 0;
		long calls[3] = { 0, 0, 0 };
		int (*run[3])(void);
		bench_clock = r->clock;
		for (int c = 0; c < 3; c++) {
			r->fig[c] = -1;
			run[c] = r->cells[c].clock ? clock_cell : r->cells[c].run;
			if (!run[c])
				continue;
			cell_clock_fn = r->cells[c].clock;
			calls[c] = calibrate(run[c], &errors[c]);
			measured++;
		}
		if (!measured) {
			skip("%s: nothing to measure without the vDSO entry", r->name);
			continue;
		}
		for (int round = 0; round < ROUNDS; round++)
			for (int c = 0; c < 3; c++) {
				if (!calls[c])
					continue;
				cell_clock_fn = r->cells[c].clock;
				double t = batch_ns_per_call(run[c], calls[c]);
				if (r->fig[c] < 0 || t < r->fig[c])
					r->fig[c] = t;
			}
		int failed = errors[0] || errors[1] || errors[2];
		if (!ok(!failed, "%s measured, every call returned 0", r->name))
			diag("errors: syscall %d, vDSO %d, libvdsokit %d", errors[0], errors[1], errors[2]);
	}

	diag("ns per call, fastest of %d interleaved batches of >= %.0f ms; QEMU TCG: emulated time",
	     ROUNDS, MIN_BATCH_NS / 1e6);
	diag("%-46s %10s %10s %11s %8s", "call", "syscall", "vDSO", "libvdsokit", "gain");
	for (size_t i = 0; i < n_rows; i++) {
		const struct row *r = &rows[i];
		char s[32], v[32], k[32], g[32] = "—";
		fmt(s, sizeof(s), r->fig[0]);
		fmt(v, sizeof(v), r->fig[1]);
		fmt(k, sizeof(k), r->fig[2]);
		if (r->fig[0] > 0 && r->fig[1] > 0)
			snprintf(g, sizeof(g), "%.2f×", r->fig[0] / r->fig[1]);
		diag("%-46s %10s %10s %11s %8s", r->name, s, v, k, g);
	}
	for (size_t i = 0; i < n_rows; i++)
		diag("SEED|%s|%.0f|%.0f|%.0f", rows[i].name, rows[i].fig[0], rows[i].fig[1],
		     rows[i].fig[2]);
	return done_testing();
}
