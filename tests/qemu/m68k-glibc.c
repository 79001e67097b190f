/* SPDX-License-Identifier: MIT */
/*
 * m68k-glibc — glibc's m68k port on the m68k guests, stock against the
 * project's patched build (tests/qemu/glibc/m68k-vdso, tests/qemu/build-glibc).
 * One dynamic program, run in the guest under either C library by naming
 * its loader:  LDSO --library-path LIBDIR m68k-glibc MODE ...
 *
 *   check stock|patched   TAP: in 8 threads across context switches, the
 *                         thread pointer glibc hands out (__m68k_read_tp, a
 *                         __thread variable's address) is the kernel's
 *                         (get_thread_area); and the syscalls that TLS
 *                         accesses, the COARSE clocks, clock_getres and
 *                         time() make, counted through a seccomp listener
 *                         (tests/lib/syscall-count.h): none with the
 *                         patched glibc on a kernel whose vDSO exports the
 *                         entries, one per call otherwise (stock glibc, or
 *                         no vDSO: the fallbacks).
 *   bench LD1 LIB1 LD2 LIB2   the seed's rows through glibc: rounds alternate
 *                         a child under each C library (fork, exec of
 *                         LDn --library-path LIBn self batch), each child
 *                         measures one batch of every row; a cell is its
 *                         fastest batch, from children that exited 0
 *                         with every call of every row succeeding.  "# GLIBC|row|first|second" lines.
 *   batch                 (the child) one line "ROW NS" per row.
 *
 * Built dynamically by tests/qemu/matrix.t against Debian's m68k cross
 * glibc 2.36 (the "stock" library the guest also gets as /lib).  Figures
 * are QEMU TCG emulated time: compare within a row.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
/* The 64-bit time calls, as the rows are named (clock_gettime64, ...):
 * glibc 2.36 maps clock_gettime and the rest to their *64 entries. */
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "../lib/syscall-count.h"

#ifndef __m68k__
#error "m68k-glibc is an m68k program: build it with m68k-linux-gnu-gcc"
#endif

extern void *__m68k_read_tp(void);

#define THREADS 8
#define ROUNDS 2000
#define CALLS 200
#define BENCH_ROUNDS 15 /* as tests/qemu/m68k-seed-bench.c's batches */
#define MIN_BATCH_NS 20000000.0

static __thread volatile unsigned long tls_word;
static long tls_offset; /* &tls_word - thread pointer, the same in every thread */

static unsigned long kernel_tp(void)
{
	return (unsigned long)syscall(SYS_get_thread_area);
}

/* A TLS access the compiler cannot fold: each call reads the thread pointer. */
__attribute__((noinline)) static unsigned long tls_touch(unsigned long v)
{
	tls_word += v;
	return tls_word;
}

/* ---- check: the thread pointer in threads ------------------------------- */

struct worker {
	int id;
	int bad_tp, bad_tls, bad_value;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	tls_word = 0x5a000000ul | (unsigned long)w->id;
	for (int i = 0; i < ROUNDS; i++) {
		unsigned long tp = (unsigned long)__m68k_read_tp();
		if (tp != kernel_tp())
			w->bad_tp++;
		if ((unsigned long)&tls_word - (unsigned long)tls_offset != tp)
			w->bad_tls++;
		if (tls_word != (0x5a000000ul | (unsigned long)w->id))
			w->bad_value++;
		if (i % 16 == 0)
			sched_yield();
		if (i % 200 == 0)
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return NULL;
}

static void check_threads(void)
{
	unsigned long tp = (unsigned long)__m68k_read_tp();
	ok(tp == kernel_tp(), "main thread: __m68k_read_tp() %#lx is get_thread_area's %#lx", tp,
	   kernel_tp());
	tls_offset = (long)((unsigned long)&tls_word - tp);
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int started = 0;
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .id = i + 1 };
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) == 0)
			started++;
		else
			break;
	}
	int bad_tp = 0, bad_tls = 0, bad_value = 0;
	for (int i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		bad_tp += w[i].bad_tp, bad_tls += w[i].bad_tls, bad_value += w[i].bad_value;
	}
	ok(started == THREADS, "%d threads started", started);
	ok(bad_tp == 0, "%d threads x %d rounds with yields and sleeps: __m68k_read_tp() is the kernel's "
	   "thread pointer every time (%d wrong)", started, ROUNDS, bad_tp);
	ok(bad_tls == 0, "a __thread variable's address is that thread pointer + its offset (%d wrong)",
	   bad_tls);
	ok(bad_value == 0, "each thread's __thread value stays its own (%d wrong)", bad_value);
}

/* ---- check: syscalls per call ------------------------------------------- */

enum op { OP_TLS, OP_RT_COARSE, OP_MONO_COARSE, OP_GETRES, OP_TIME, OP_COUNT };
static const char *const op_name[OP_COUNT] = {
	"TLS access (__m68k_read_tp)", "clock_gettime(REALTIME_COARSE)",
	"clock_gettime(MONOTONIC_COARSE)", "clock_getres(MONOTONIC)", "time()",
};

static int do_op(enum op op)
{
	struct timespec ts;
	switch (op) {
	case OP_TLS: return tls_touch(1) == 0;
	case OP_RT_COARSE: return clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	case OP_MONO_COARSE: return clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	case OP_GETRES: return clock_getres(CLOCK_MONOTONIC, &ts);
	case OP_TIME: return time(NULL) == (time_t)-1;
	default: return -1;
	}
}

struct count_job {
	int no_seccomp;
	int count[OP_COUNT];
	int failed[OP_COUNT];
};

static void *count_calls(void *arg)
{
	struct count_job *job = arg;
	static struct syscall_counter counter;
	if (counter_start(&counter, NULL, 0)) {
		job->no_seccomp = 1;
		return NULL;
	}
	for (int op = 0; op < OP_COUNT; op++) {
		do_op(op); /* warm: the first call may resolve a PLT slot */
		counter_on(&counter);
		for (int i = 0; i < CALLS; i++)
			job->failed[op] += do_op(op) != 0;
		job->count[op] = counter_off(&counter);
	}
	return NULL;
}

static void check_syscalls(int patched)
{
	int vdso = getauxval(AT_SYSINFO_EHDR) != 0;
	int expect_none = patched && vdso;
	diag("%s glibc, %s: expecting %s", patched ? "patched" : "stock",
	     vdso ? "the kernel maps a vDSO" : "no vDSO", expect_none ? "no syscall" :
	     "one syscall per call");
	struct count_job job;
	memset(&job, 0, sizeof(job));
	pthread_t t;
	if (pthread_create(&t, NULL, count_calls, &job) != 0 || pthread_join(t, NULL) != 0 ||
	    job.no_seccomp) {
		skip("syscall counts: no seccomp user notification here");
		return;
	}
	for (int op = 0; op < OP_COUNT; op++) {
		int want = expect_none ? 0 : CALLS;
		ok(job.failed[op] == 0 && job.count[op] == want, "%d x %s: %d syscalls (want %d), %d failed",
		   CALLS, op_name[op], job.count[op], want, job.failed[op]);
	}
}

/* ---- bench ---------------------------------------------------------------- */

static volatile unsigned long sink;

/* The clock_gettime64 syscall writes the kernel's 64-bit timespec (16
 * bytes), whatever the program's struct timespec is: with a 32-bit time_t
 * (8 bytes) it overwrote the caller's frame, and every bench child died of
 * SIGSEGV on its first timing. */
static double now_ns(void)
{
	struct {
		long long tv_sec, tv_nsec;
	} ts;
	if (syscall(SYS_clock_gettime64, CLOCK_MONOTONIC, &ts) != 0)
		return -1;
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static clockid_t row_clock;
static int row_gettime(void)
{
	struct timespec ts;
	return clock_gettime(row_clock, &ts);
}
static int row_getres(void)
{
	struct timespec ts;
	return clock_getres(CLOCK_MONOTONIC, &ts);
}
static int row_time(void)
{
	return time(NULL) == (time_t)-1;
}
static int row_gtod(void)
{
	struct timeval tv;
	return gettimeofday(&tv, NULL);
}
static int row_tls(void)
{
	sink = tls_touch(1);
	return 0;
}

/* Row names as tests/qemu/m68k-seed-bench.c names them, where it has the row. */
static const struct bench_row {
	const char *name;
	clockid_t clock;
	int (*fn)(void);
} bench_rows[] = {
	{ "clock_gettime64(REALTIME)", CLOCK_REALTIME, row_gettime },
	{ "clock_gettime64(MONOTONIC)", CLOCK_MONOTONIC, row_gettime },
	{ "clock_gettime64(REALTIME_COARSE)", CLOCK_REALTIME_COARSE, row_gettime },
	{ "clock_gettime64(MONOTONIC_COARSE)", CLOCK_MONOTONIC_COARSE, row_gettime },
	{ "clock_gettime64(BOOTTIME)", CLOCK_BOOTTIME, row_gettime },
	{ "clock_getres_time64(MONOTONIC)", 0, row_getres },
	{ "time", 0, row_time },
	{ "gettimeofday", 0, row_gtod },
	{ "TLS variable access (__m68k_read_tp)", 0, row_tls },
};
#define N_ROWS (sizeof(bench_rows) / sizeof(bench_rows[0]))

/*
 * Each row: batches of 16, 32, ... calls until one takes MIN_BATCH_NS or
 * more, and that batch is the figure.  (A figure from a batch timed after
 * a separate calibration could read 0 ns: the clock of a guest without a
 * fine clocksource moves in ticks, and a calibration that crossed two of
 * them may be followed by a batch that crosses none.)  Every call is
 * checked: a figure only from calls that all succeeded.
 */
static int batch(void)
{
	for (size_t r = 0; r < N_ROWS; r++) {
		row_clock = bench_rows[r].clock;
		for (long n = 16;; n *= 2) {
			int bad = 0;
			double t0 = now_ns();
			for (long i = 0; i < n; i++)
				bad |= bench_rows[r].fn();
			double t1 = now_ns();
			if (bad || t0 < 0 || t1 < 0)
				return 1;
			if (t1 - t0 >= MIN_BATCH_NS) {
				printf("%zu %.1f\n", r, (t1 - t0) / (double)n);
				break;
			}
		}
	}
	return 0;
}

/* One child under LD/LIB; its figures into fig[] where faster, only if it
 * measured every row and exited 0.  0 on success. */
static int run_child(const char *self, const char *ld, const char *lib, double *fig)
{
	double got[N_ROWS];
	for (size_t r = 0; r < N_ROWS; r++)
		got[r] = -1;
	int fds[2];
	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl(ld, ld, "--library-path", lib, self, "batch", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	size_t row;
	double ns;
	int rows = 0;
	while (in && fscanf(in, "%zu %lf", &row, &ns) == 2)
		if (row < N_ROWS && got[row] < 0 && ns > 0) {
			rows++;
			got[row] = ns;
		}
	if (in)
		fclose(in);
	int st = 0;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    rows != (int)N_ROWS) {
		diag("a batch under %s failed: %s %d, %d of %zu rows", ld,
		     WIFSIGNALED(st) ? "signal" : "exit",
		     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), rows, N_ROWS);
		return -1;
	}
	for (size_t r = 0; r < N_ROWS; r++)
		if (fig[r] < 0 || got[r] < fig[r])
			fig[r] = got[r];
	return 0;
}

static int bench(const char *self, char **ldlib)
{
	double fig[2][N_ROWS];
	int failed[2] = { 0, 0 };
	for (int l = 0; l < 2; l++)
		for (size_t r = 0; r < N_ROWS; r++)
			fig[l][r] = -1;
	for (int round = 0; round < BENCH_ROUNDS; round++)
		for (int l = 0; l < 2; l++)
			failed[l] += run_child(self, ldlib[2 * l], ldlib[2 * l + 1], fig[l]) != 0;
	for (int l = 0; l < 2; l++)
		ok(failed[l] == 0, "%d batches of every row under %s (--library-path %s), every call 0",
		   BENCH_ROUNDS, ldlib[2 * l], ldlib[2 * l + 1]);
	diag("ns per call, fastest of %d batches of >= %.0f ms, the two C libraries alternating; "
	     "QEMU TCG: emulated time", BENCH_ROUNDS, MIN_BATCH_NS / 1e6);
	diag("%-40s %10s %10s %8s", "call", "first", "second", "gain");
	for (size_t r = 0; r < N_ROWS; r++)
		diag("%-40s %10.0f %10.0f %7.2fx", bench_rows[r].name, fig[0][r], fig[1][r],
		     fig[1][r] > 0 ? fig[0][r] / fig[1][r] : 0);
	for (size_t r = 0; r < N_ROWS; r++)
		diag("GLIBC|%s|%.0f|%.0f", bench_rows[r].name, fig[0][r], fig[1][r]);
	return done_testing();
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "batch") == 0)
		return batch();
	if (argc == 6 && strcmp(argv[1], "bench") == 0)
		return bench(argv[0], argv + 2);
	if (argc == 3 && strcmp(argv[1], "check") == 0 &&
	    (strcmp(argv[2], "stock") == 0 || strcmp(argv[2], "patched") == 0)) {
		check_threads();
		check_syscalls(strcmp(argv[2], "patched") == 0);
		return done_testing();
	}
	fprintf(stderr, "usage: m68k-glibc check stock|patched | bench LD1 LIB1 LD2 LIB2\n");
	return 2;
}
