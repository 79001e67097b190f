// SPDX-License-Identifier: MIT
/*
 * The library's benchmark program (`make bench`): what vdsokit_clock_gettime
 * costs next to its references, measured side by side in one run:
 *   raw   the resolved vDSO pointer called directly (the floor for any library)
 *   kit   vdsokit_clock_gettime
 *   libc  the libc's clock_gettime
 *   sys   the raw syscall
 * and the cost of the first call (locate + parse + resolve its entries) in
 * fresh processes.  It reports figures; it never passes or fails.
 *
 * Method: all variants of a row are measured in interleaved rounds (so a
 * frequency or load change hits them alike); each round runs a batch
 * calibrated to ~100 µs; the figure is the median of the batch means.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "internal.h" /* vdsokit_lib_resolve_clocks(), to time the first call's work alone */

#define ROUNDS 41
#define BATCH_TARGET_NS 100000.0

typedef int (*clock_fn)(clockid_t, void *);
typedef int64_t (*time_fn)(int64_t *);
typedef int (*getcpu_fn)(unsigned *, unsigned *, void *);

/* The resolved vDSO entries, called straight from the loops: the floor. */
static clock_fn raw_gettime, raw_getres;
static time_fn raw_time;
static getcpu_fn raw_getcpu;
static volatile clockid_t bench_clock;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/*
 * RUN_LOOP(name, setup, call): void name(long n) making n calls, with the
 * same loop shape for every variant; setup copies what the call needs into
 * locals first (the raw pointer too, so the loop calls it directly).
 */
#define RUN_LOOP(name, setup, call)                                         \
	static void name(long n)                                            \
	{                                                                   \
		setup;                                                      \
		for (long i = 0; i < n; i++)                                \
			call;                                               \
	}

#define CLOCK_LOCALS clockid_t c = bench_clock; struct timespec ts; struct vdsokit_timespec kts
RUN_LOOP(run_raw_gettime, CLOCK_LOCALS; clock_fn fn = raw_gettime; (void)ts, fn(c, &kts))
RUN_LOOP(run_kit_gettime, CLOCK_LOCALS; (void)ts, vdsokit_clock_gettime(c, &kts))
RUN_LOOP(run_libc_gettime, CLOCK_LOCALS; (void)kts, clock_gettime(c, &ts))
RUN_LOOP(run_sys_gettime, CLOCK_LOCALS; (void)ts, vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, c, &kts))
/* The bare entry again, its address read from memory at each call, as any library's call reads it. */
RUN_LOOP(run_loaded_gettime, CLOCK_LOCALS; (void)ts, __atomic_load_n(&raw_gettime, __ATOMIC_RELAXED)(c, &kts))

RUN_LOOP(run_raw_getres, CLOCK_LOCALS; clock_fn fn = raw_getres; (void)ts, fn(c, &kts))
RUN_LOOP(run_kit_getres, CLOCK_LOCALS; (void)ts, vdsokit_clock_getres(c, &kts))
RUN_LOOP(run_libc_getres, CLOCK_LOCALS; (void)kts, clock_getres(c, &ts))
RUN_LOOP(run_sys_getres, CLOCK_LOCALS; (void)ts, vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, c, &kts))
RUN_LOOP(run_loaded_getres, CLOCK_LOCALS; (void)ts, __atomic_load_n(&raw_getres, __ATOMIC_RELAXED)(c, &kts))

RUN_LOOP(run_raw_time, time_fn fn = raw_time, fn(NULL))
RUN_LOOP(run_kit_time, int64_t t, vdsokit_time(&t))
RUN_LOOP(run_libc_time, , time(NULL))
RUN_LOOP(run_sys_time, int64_t t, vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, &t))
RUN_LOOP(run_loaded_time, , __atomic_load_n(&raw_time, __ATOMIC_RELAXED)(NULL))

RUN_LOOP(run_raw_getcpu, unsigned cpu; getcpu_fn fn = raw_getcpu, fn(&cpu, NULL, NULL))
RUN_LOOP(run_kit_getcpu, unsigned cpu, vdsokit_getcpu(&cpu, NULL))
RUN_LOOP(run_libc_getcpu, , sched_getcpu())
RUN_LOOP(run_sys_getcpu, unsigned cpu, vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, &cpu, NULL))
RUN_LOOP(run_loaded_getcpu, unsigned cpu, __atomic_load_n(&raw_getcpu, __ATOMIC_RELAXED)(&cpu, NULL, NULL))

/* Asking for the node too: each reference asks for it as well. */
#define NODE_LOCALS unsigned cpu; unsigned node
RUN_LOOP(run_raw_getcpu_node, NODE_LOCALS; getcpu_fn fn = raw_getcpu, fn(&cpu, &node, NULL))
RUN_LOOP(run_kit_getcpu_node, NODE_LOCALS, vdsokit_getcpu(&cpu, &node))
RUN_LOOP(run_libc_getcpu_node, NODE_LOCALS, getcpu(&cpu, &node))
RUN_LOOP(run_sys_getcpu_node, NODE_LOCALS, vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, &cpu, &node))
RUN_LOOP(run_loaded_getcpu_node, NODE_LOCALS, __atomic_load_n(&raw_getcpu, __ATOMIC_RELAXED)(&cpu, &node, NULL))

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
 * The first call in a fresh process, which locates and validates the vDSO
 * and resolves the clock entries, with cold caches: bench/first_call.c, built -static with the
 * archive and against the shared library, run FRESH_RUNS times each
 * (interleaved) from this program's directory.  Each prints its time, the
 * page faults the call took, and (static) the same resolution at once
 * again in that process.  The static one runs twice in a row: the first
 * run follows the shared program, so its code and data come from memory;
 * the second follows itself, with them still in the CPU's caches, which is
 * most of the difference a first call sees (docs/performance.md).
 * The figures are the medians.
 */
#define FRESH_RUNS 31
struct first_call { double ns, faults, again_ns; };

/* One run of program (with arg, or none): 0 and its figures, or -1 (not built, failed). */
static int run_fresh(const char *program, const char *arg, struct first_call *out)
{
	int fd[2];
	if (pipe(fd))
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(program, program, arg, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char text[96];
	ssize_t n = pid > 0 ? read(fd[0], text, sizeof(text) - 1) : -1;
	close(fd[0]);
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	text[n] = '\0';
	return sscanf(text, "%lf %lf %lf", &out->ns, &out->faults, &out->again_ns) == 3 ? 0 : -1;
}

struct fresh_program {
	const char *file, *arg, *what;
	double ns[FRESH_RUNS], faults[FRESH_RUNS], again[FRESH_RUNS];
	int runs;
};

static double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return v[n / 2];
}

static void print_fresh_process_figures(double warm_ns)
{
	struct fresh_program progs[] = {
		{ .file = "first-call-static", .what = "static (-static, libvdsokit.a)" },
		{ .file = "first-call-static", .what = "static, right after the same program" },
		{ .file = "first-call-shared", .what = "dynamic (libvdsokit.so)" },
	};
	char dir[4096];
	ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len <= 0)
		return;
	dir[len] = '\0';
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (int r = 0; r < FRESH_RUNS; r++)
		for (size_t p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
			char path[4200];
			struct first_call fc;
			struct fresh_program *f = &progs[p];
			snprintf(path, sizeof(path), "%s/%s", dir, f->file);
			if (run_fresh(path, f->arg, &fc) == 0) {
				f->ns[f->runs] = fc.ns;
				f->again[f->runs] = fc.again_ns;
				f->faults[f->runs++] = fc.faults;
			}
		}
	printf("first call in a fresh process (exec), page faults and cold caches included, median of %d:\n",
	       FRESH_RUNS);
	for (size_t p = 0; p < sizeof(progs) / sizeof(progs[0]); p++) {
		struct fresh_program *f = &progs[p];
		if (f->runs == 0) {
			printf("  %-38s not measured: %s/%s did not run (make bench builds it)\n", f->what, dir,
			       f->file);
			continue;
		}
		double ns = median_of(f->ns, f->runs), faults = median_of(f->faults, f->runs);
		double again = median_of(f->again, f->runs);
		printf("  %-38s %6.0f ns, %.0f page faults   goal <= 2000 ns  %s\n", f->what, ns, faults,
		       ns <= 2000 ? "ok" : "over");
		if (again >= 0)
			printf("    the same resolution again at once, in that process: %.0f ns\n", again);
	}
	printf("  (the same work warm, in this process, fastest of 31 x 100: %.0f ns)\n", warm_ns);
}

/* The first call's work (locate, parse, resolve, choose) with warm caches and no page faults. */
static double resolve_ns(void)
{
	double best = 1e18;
	for (int r = 0; r < 31; r++) {
		double t0 = now_ns();
		for (int i = 0; i < 100; i++) {
			vdsokit_lib_image_kept = 0; /* the first call parses */
			vdsokit_lib_resolve_clocks();
		}
		double t = (now_ns() - t0) / 100;
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * fn's bare vDSO entry (vdsokit_bare_entry) where its time values are
 * 64-bit, as the loops' types are; NULL elsewhere (powerpc, 32-bit-time
 * entries, none).  getcpu takes no time.
 */
static const void *bare_entry(enum vdsokit_func fn)
{
	const void *entry;
	int time64;
	if (vdsokit_bare_entry(fn, &entry, &time64) != 0)
		return NULL;
	return time64 || fn == VDSOKIT_FN_GETCPU ? entry : NULL;
}

/*
 * One row: raw (when the vDSO serves the call and it can be called as a
 * plain C function here), kit, libc, syscall, side by side, and the
 * library's goal: kit <= raw + max(3 %, 0.3 ns).
 */
struct row {
	const char *name;
	void (*raw)(long), (*kit)(long), (*libc)(long), (*sys)(long);
	int have_raw;
	const char *why_slower_than_libc; /* when kit > libc: the reason, or NULL */
	void (*loaded)(long); /* the bare entry read from memory at each call */
};

/*
 * Notes under the table: why a row missed the goal, why one is slower than
 * the libc.  Room for every row's note (a dozen rows, ~220 bytes each); a
 * note that would not fit whole is counted, not cut.
 */
struct note_list {
	char text[4096];
	int left_out;
};
struct notes {
	struct note_list over, slower;
};

static void add_note(struct note_list *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct note_list *list, const char *fmt, ...)
{
	size_t used = strlen(list->text);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(list->text + used, sizeof(list->text) - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(list->text) - used) {
		list->text[used] = '\0';
		list->left_out++;
	}
}

static void print_notes(const char *title, const struct note_list *list)
{
	if (!list->text[0] && !list->left_out)
		return;
	printf("\n%s\n%s", title, list->text);
	if (list->left_out)
		printf("  (%d more left out: no room)\n", list->left_out);
}

static int slower(double a, double b)
{
	double margin = b * 0.03 > 0.3 ? b * 0.03 : 0.3;
	return a > b + margin;
}

/*
 * A row over the goal: the bare entry, the same entry read from memory at
 * each call (no library can keep it in a register across its callers'
 * calls), and the library, measured again side by side.
 */
static void explain_over(const struct row *r, struct notes *notes)
{
	struct variant v[3] = {
		{ .name = "raw", .run = r->raw }, { .name = "loaded", .run = r->loaded },
		{ .name = "kit", .run = r->kit },
	};
	measure(v, 3);
	double raw = v[0].median, loaded = v[1].median, kit = v[2].median;
	add_note(&notes->over,
		 "  %s, again: the entry in a register %.2f ns, read from memory at each call %.2f ns,\n"
		 "    the library %.2f ns: %s\n",
		 r->name, raw, loaded, kit,
		 !slower(kit, raw) ? "within the goal this time"
		 : !slower(kit, loaded) ? "what is over is reading the entry's address, which every library's call does"
					: "no reason known");
}

static void print_row(const struct row *r, struct notes *notes)
{
	struct variant v[4] = {
		{ .name = "raw", .run = r->raw }, { .name = "kit", .run = r->kit },
		{ .name = "libc", .run = r->libc }, { .name = "sys", .run = r->sys },
	};
	struct variant *vs = r->have_raw ? v : v + 1;
	measure(vs, r->have_raw ? 4 : 3);
	double raw = v[0].median, kit = v[1].median, libc = v[2].median;
	if (r->have_raw)
		printf("%-32s %8.2f %8.2f %8.2f %8.2f   %7.1f%% %+8.2fns %7.1f%%  %s\n", r->name, raw, kit,
		       libc, v[3].median, 100.0 * kit / raw, kit - raw, 100.0 * kit / libc,
		       slower(kit, raw) ? "over" : "ok");
	else
		printf("%-32s %8s %8.2f %8.2f %8.2f   %8s %10s %7.1f%%  %s\n", r->name, "-", kit, libc,
		       v[3].median, "-", "-", 100.0 * kit / libc, "-");
	if (r->have_raw && slower(kit, raw))
		explain_over(r, notes);
	if (slower(kit, libc))
		add_note(&notes->slower, "  %s: library %.2f ns, glibc %.2f ns: %s\n",
			 r->name, kit, libc, r->why_slower_than_libc ? r->why_slower_than_libc : "no reason known");
}

/* ---- getrandom's first call in a thread, with many threads alive -------- */

/*
 * The cost of a thread's first vdsokit_getrandom (claiming a state: a pop
 * off the free list, with signals blocked, two rt_sigprocmask calls)
 * should not grow with the threads that hold one.  Threads that drew once stay
 * alive, blocked; then 31 new threads, one after the other, each time their
 * first call and their second and exit, as the threads of a churning pool
 * do (each finds the state of the one before given back, or none free).
 * The vDSO seeds a fresh state with one getrandom syscall (a state given
 * back by an exited thread is already seeded): the syscall is the reference.
 */
#define NEW_THREADS 31
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t live_released = PTHREAD_COND_INITIALIZER;
static int live_release, live_count;

struct first_draw { double first_ns, second_ns; };

static void *live_thread(void *arg)
{
	struct first_draw *d = arg;
	unsigned char buf[16];
	double t0 = now_ns();
	vdsokit_getrandom(buf, sizeof(buf), 0);
	double t1 = now_ns();
	vdsokit_getrandom(buf, sizeof(buf), 0);
	double t2 = now_ns();
	if (d) { /* a measured thread: it exits, as threads of a pool churning do */
		d->first_ns = t1 - t0;
		d->second_ns = t2 - t1;
		return NULL;
	}
	pthread_mutex_lock(&live_lock);
	live_count++;
	while (!live_release)
		pthread_cond_wait(&live_released, &live_lock);
	pthread_mutex_unlock(&live_lock);
	return NULL;
}

static void print_getrandom_first_calls(void)
{
	struct vdsokit_route_info p;
	if (vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p) || p.route != VDSOKIT_ROUTE_VDSO) {
		printf("\ngetrandom first call with live threads: skipped, getrandom is not on the vDSO here (%s)\n",
		       vdsokit_reason_text(p.reason));
		return;
	}
	static const int live_targets[] = { 15, 1000, 4096, 16384 };
	static pthread_t threads[16384];
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	int started = 0;
	double sys[NEW_THREADS];
	for (int i = 0; i < NEW_THREADS; i++) {
		unsigned char buf[16];
		double t0 = now_ns();
		vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, buf, sizeof(buf), 0);
		sys[i] = now_ns() - t0;
	}
	qsort(sys, NEW_THREADS, sizeof(double), cmp_double);
	printf("\ngetrandom(16), a new thread's first call (claims a state: one given back by a thread\n"
	       "that exited, or a fresh one, which the vDSO seeds with a getrandom syscall, %.0f ns here)\n"
	       "and its second, median of %d threads started and ended in turn:\n",
	       sys[NEW_THREADS / 2], NEW_THREADS);
	printf("  %-28s %10s %10s\n", "threads holding states", "first", "second");
	for (size_t k = 0; k < sizeof(live_targets) / sizeof(live_targets[0]); k++) {
		for (; started < live_targets[k]; started++)
			if (pthread_create(&threads[started], &attr, live_thread, NULL))
				break;
		if (started < live_targets[k]) {
			printf("  %-28d could not start more threads (%d)\n", live_targets[k], started);
			break;
		}
		for (;;) { /* every one has drawn */
			pthread_mutex_lock(&live_lock);
			int n = live_count;
			pthread_mutex_unlock(&live_lock);
			if (n >= started)
				break;
			usleep(1000);
		}
		struct first_draw d[NEW_THREADS];
		double first[NEW_THREADS], second[NEW_THREADS];
		int measured = 0;
		for (int i = 0; i < NEW_THREADS; i++) {
			pthread_t t;
			if (pthread_create(&t, &attr, live_thread, &d[i]))
				break;
			pthread_join(t, NULL);
			first[i] = d[i].first_ns;
			second[i] = d[i].second_ns;
			measured++;
		}
		qsort(first, (size_t)measured, sizeof(double), cmp_double);
		qsort(second, (size_t)measured, sizeof(double), cmp_double);
		if (measured)
			printf("  %-28d %7.0f ns %7.0f ns\n", live_targets[k], first[measured / 2],
			       second[measured / 2]);
	}
	pthread_mutex_lock(&live_lock);
	live_release = 1;
	pthread_cond_broadcast(&live_released);
	pthread_mutex_unlock(&live_lock);
	for (int i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_attr_destroy(&attr);
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
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	int pinned = sched_setaffinity(0, sizeof(one), &one) == 0;

	vdsokit_init();
	raw_gettime = (clock_fn)(uintptr_t)bare_entry(VDSOKIT_FN_CLOCK_GETTIME);
	raw_getres = (clock_fn)(uintptr_t)bare_entry(VDSOKIT_FN_CLOCK_GETRES);
	raw_time = (time_fn)(uintptr_t)bare_entry(VDSOKIT_FN_TIME);
	raw_getcpu = (getcpu_fn)(uintptr_t)bare_entry(VDSOKIT_FN_GETCPU);
	struct vdsokit_route_info path;
	vdsokit_route_of(VDSOKIT_FN_GETCPU, 0, &path);

	printf("libvdsokit %s bench, %s, %d rounds of ~%.0f us batches, median ns/call%s\n",
	       VDSOKIT_VERSION_STRING, vdsokit_arch_name(), ROUNDS, BATCH_TARGET_NS / 1000,
	       pinned ? ", pinned to one CPU" : "");
	printf("raw: the vDSO entry called straight from the loop; kit: libvdsokit; libc: the C library;\n"
	       "syscall: the library's raw syscall.  goal: kit <= raw + max(3 %%, 0.3 ns).\n");
	printf("\n%-32s %8s %8s %8s %8s   %8s %10s %8s  %s\n", "call", "raw", "kit", "libc", "syscall",
	       "kit/raw", "kit-raw", "kit/libc", "goal");
	static struct notes notes;
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		char name[40];
		snprintf(name, sizeof(name), "clock_gettime(%s)", clocks[c].name);
		bench_clock = clocks[c].id;
		struct vdsokit_timespec probe;
		struct row r = { name, run_raw_gettime, run_kit_gettime, run_libc_gettime, run_sys_gettime,
				 raw_gettime && vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, clocks[c].id, &probe) == 0,
				 NULL, run_loaded_gettime };
		print_row(&r, &notes);
	}
	bench_clock = CLOCK_MONOTONIC;
	struct row getres = { "clock_getres(MONOTONIC)", run_raw_getres, run_kit_getres, run_libc_getres,
			      run_sys_getres, raw_getres != NULL, NULL, run_loaded_getres };
	print_row(&getres, &notes);
	struct row time_row = {
		"time", run_raw_time, run_kit_time, run_libc_time, run_sys_time, raw_time != NULL,
		"glibc's time() is an IFUNC bound to __vdso_time at load time, a direct call; "
		"the library's inline path loads the entry and calls it indirectly",
		run_loaded_time
	};
	print_row(&time_row, &notes);
	/*
	 * getcpu twice, each against its like: the CPU alone (the bare entry
	 * with a NULL node, sched_getcpu()) and with the node (the bare entry
	 * and getcpu(3) asking for it too), which can take another route.
	 */
	char getcpu_name[48], node_name[48];
	snprintf(getcpu_name, sizeof(getcpu_name), "getcpu(cpu) (%s)", vdsokit_route_name(path.route));
	enum vdsokit_route node_route = path.route;
	if (path.route == VDSOKIT_ROUTE_RSEQ && path.reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY)
		node_route = path.symbol ? VDSOKIT_ROUTE_VDSO : VDSOKIT_ROUTE_SYSCALL;
	snprintf(node_name, sizeof(node_name), "getcpu(cpu+node) (%s)", vdsokit_route_name(node_route));
	struct row getcpu = {
		getcpu_name, run_raw_getcpu, run_kit_getcpu, run_libc_getcpu, run_sys_getcpu,
		raw_getcpu != NULL, NULL, run_loaded_getcpu
	};
	print_row(&getcpu, &notes);
	struct row getcpu_node = {
		node_name, run_raw_getcpu_node, run_kit_getcpu_node, run_libc_getcpu_node,
		run_sys_getcpu_node, raw_getcpu != NULL, NULL, run_loaded_getcpu_node
	};
	print_row(&getcpu_node, &notes);
	printf("getcpu(cpu):      raw __vdso_getcpu(&cpu, NULL, NULL), kit vdsokit_getcpu(&cpu, NULL),\n"
	       "                  libc sched_getcpu()\n"
	       "getcpu(cpu+node): raw __vdso_getcpu(&cpu, &node, NULL), kit vdsokit_getcpu(&cpu, &node),\n"
	       "                  libc getcpu(&cpu, &node)\n");
	print_notes("over the goal, and why:", &notes.over);
	print_notes("slower than the libc (beyond 3 % / 0.3 ns), and why:", &notes.slower);

	double warm = resolve_ns();
	printf("\nfirst call's work (locate + parse + resolve + choose), warm, fastest of 31 x 100: %.0f ns\n",
	       warm);
	print_fresh_process_figures(warm);
	print_getrandom_first_calls();
	return 0;
}
