/* SPDX-License-Identifier: MIT */
/*
 * The benchmark engine: calibrated batches of calls, interleaved across the
 * call paths of one function, reduced to the median, minimum and 90th
 * percentile of the batch means.
 *
 * Why batches: a single call (1–300 ns) is shorter than the clock read that
 * would time it, and a timer interrupt or a migration inside a long loop
 * spoils the whole figure.  Batches of ~50 µs make the clock read negligible
 * (< 0.1 %), and the median of many batch means ignores the few batches a
 * tick or a neighbour disturbed.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "images/images.h"
#include "measure/measure.h"
#include "host/syscall_killed.h"
#include "bare_entry.h"

static const char *const path_names[BENCH_PATH_COUNT] = {
	[BENCH_LIBRARY] = "vdsokit", [BENCH_VDSO] = "vdso",
	[BENCH_LIBC] = "libc", [BENCH_SYSCALL] = "syscall",
};

static const char *const path_titles[BENCH_PATH_COUNT] = {
	[BENCH_LIBRARY] = "libvdsokit", [BENCH_VDSO] = "raw vDSO",
	[BENCH_LIBC] = "libc", [BENCH_SYSCALL] = "syscall",
};

const char *bench_path_name(enum bench_path path)
{
	return path < BENCH_PATH_COUNT ? path_names[path] : "?";
}

const char *bench_path_title(enum bench_path path)
{
	/* Where the vDSO column cannot be the bare pointer, it says what it is. */
	if (path == BENCH_VDSO && !raw_vdso_is_bare(VDSOKIT_FN_CLOCK_GETTIME))
		return "vDSO via lib";
	return path < BENCH_PATH_COUNT ? path_titles[path] : "?";
}

void bench_case_init(struct bench_case *c, enum vdsokit_func func, long arg)
{
	char clock[32];
	c->func = func;
	c->arg = arg;
	switch (func) {
	case VDSOKIT_FN_CLOCK_GETTIME:
	case VDSOKIT_FN_CLOCK_GETRES:
		snprintf(c->label, sizeof(c->label), "%s(%s)", cli_func_name(func),
			 clock_id_name(clock, sizeof(clock), arg));
		break;
	case VDSOKIT_FN_GETRANDOM:
		snprintf(c->label, sizeof(c->label), "%s(%ld)", cli_func_name(func), arg);
		break;
	case VDSOKIT_FN_GETCPU:
		/* No comma: labels go into CSV unquoted. */
		snprintf(c->label, sizeof(c->label), "%s(%s)", cli_func_name(func),
			 arg == BENCH_GETCPU_NODE ? "cpu+node" : "cpu");
		break;
	default:
		snprintf(c->label, sizeof(c->label), "%s", cli_func_name(func));
	}
}

int bench_case_path(const struct bench_case *c, struct vdsokit_route_info *p)
{
	int r = vdsokit_route_of(c->func, (clockid_t)c->arg, p);
	if (r != 0 || c->func != VDSOKIT_FN_GETCPU || p->route != VDSOKIT_ROUTE_RSEQ)
		return r;
	/*
	 * path_of's getcpu route is the CPU's; its symbol and syscall are what
	 * a call that asks for the node takes when the rseq area has no
	 * node_id (vdsokit_getcpu: the vDSO entry, else the syscall).
	 */
	if (c->arg == BENCH_GETCPU_NODE && p->reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY) {
		p->route = p->symbol ? VDSOKIT_ROUTE_VDSO : VDSOKIT_ROUTE_SYSCALL;
	} else {
		/* One load from the rseq area: no symbol is called. */
		p->symbol = p->version = NULL;
		p->address = NULL;
	}
	return 0;
}

void json_route_members(struct json_writer *w, const struct vdsokit_route_info *p, int refused)
{
	json_kv_string(w, "route", vdsokit_route_name(p->route));
	/* Not "fast path" for a call that fails: what was measured overrides. */
	if (refused) {
		json_key(w, "reason");
		json_stringf(w, "the call fails here: %s", errno_name(-refused));
	} else {
		json_kv_string(w, "reason", cli_reason_text(p->reason));
	}
	json_kv_string(w, "symbol", p->symbol);
	json_kv_string(w, "version", p->version);
	json_kv_string(w, "syscall", p->syscall);
}

void bench_deadline_start(struct bench_deadline *d, double seconds)
{
	d->last = bench_now_ns();
	d->at = d->last + seconds * 1e9;
	d->still = 0;
}

bool bench_deadline_passed(struct bench_deadline *d)
{
	if (bench_clock_frozen())
		return true;
	double now = bench_now_ns();
	if (now != d->last) {
		d->last = now;
		d->still = 0;
	} else if (++d->still >= BENCH_DEADLINE_STILL_CHECKS) {
		return true;   /* a clock that stopped: the deadline would never come */
	}
	return now >= d->at;
}

int bench_pin_to_cpu(int cpu)
{
	cpu_set_t set;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		return -errno;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The loops: one per function and path, the call inlined in its loop so   */
/* that nothing but the path itself is measured.                           */
/* ---------------------------------------------------------------------- */


/* getrandom's destination: 4096 bytes is the largest default length. */
static unsigned char random_buffer[65536];

/* Keeps a value the compiler would otherwise drop (a register read). */
#define KEEP(v) __asm__ volatile("" : : "r"(v) : "memory")

#define DEFINE_LOOP(name, decl, call)                        \
	static void name(long arg, uint64_t n)               \
	{                                                    \
		decl;                                        \
		(void)arg;                                   \
		for (uint64_t i = 0; i < n; i++) {           \
			call;                                \
		}                                            \
	}

DEFINE_LOOP(loop_lib_gettime, struct vdsokit_timespec ts, vdsokit_clock_gettime((clockid_t)arg, &ts))
DEFINE_LOOP(loop_raw_gettime, struct vdsokit_timespec ts,
	    vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, (clockid_t)arg, &ts))
DEFINE_LOOP(loop_libc_gettime, struct timespec ts, clock_gettime((clockid_t)arg, &ts))
DEFINE_LOOP(loop_sys_gettime, struct vdsokit_timespec ts,
	    vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, (clockid_t)arg, &ts))

DEFINE_LOOP(loop_lib_getres, struct vdsokit_timespec ts, vdsokit_clock_getres((clockid_t)arg, &ts))
DEFINE_LOOP(loop_raw_getres, struct vdsokit_timespec ts,
	    vdsokit_clock_getres_via(VDSOKIT_ROUTE_VDSO, (clockid_t)arg, &ts))
DEFINE_LOOP(loop_libc_getres, struct timespec ts, clock_getres((clockid_t)arg, &ts))
DEFINE_LOOP(loop_sys_getres, struct vdsokit_timespec ts,
	    vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, (clockid_t)arg, &ts))

DEFINE_LOOP(loop_lib_gettimeofday, struct vdsokit_timeval tv, vdsokit_gettimeofday(&tv, NULL))
DEFINE_LOOP(loop_raw_gettimeofday, struct vdsokit_timeval tv,
	    vdsokit_gettimeofday_via(VDSOKIT_ROUTE_VDSO, &tv, NULL))
DEFINE_LOOP(loop_libc_gettimeofday, struct timeval tv, gettimeofday(&tv, NULL))
DEFINE_LOOP(loop_sys_gettimeofday, struct vdsokit_timeval tv,
	    vdsokit_gettimeofday_via(VDSOKIT_ROUTE_SYSCALL, &tv, NULL))

DEFINE_LOOP(loop_lib_time, int64_t t, vdsokit_time(&t))
DEFINE_LOOP(loop_raw_time, int64_t t, vdsokit_time_via(VDSOKIT_ROUTE_VDSO, &t))
DEFINE_LOOP(loop_libc_time, time_t t, time(&t))
DEFINE_LOOP(loop_sys_time, int64_t t, vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, &t))

/*
 * getcpu comes twice, because asking for the node can take another path
 * (an rseq area with cpu_id but no node_id): the CPU alone, against glibc's
 * sched_getcpu(), and the CPU and node, against glibc's getcpu().
 */
DEFINE_LOOP(loop_lib_getcpu, unsigned cpu, vdsokit_getcpu(&cpu, NULL))
DEFINE_LOOP(loop_raw_getcpu, unsigned cpu, vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &cpu, NULL))
DEFINE_LOOP(loop_libc_getcpu, int cpu, cpu = sched_getcpu(); KEEP(cpu))
DEFINE_LOOP(loop_sys_getcpu, unsigned cpu, vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, &cpu, NULL))

DEFINE_LOOP(loop_lib_getcpu_node, unsigned cpu; unsigned node, vdsokit_getcpu(&cpu, &node))
DEFINE_LOOP(loop_raw_getcpu_node, unsigned cpu; unsigned node,
	    vdsokit_getcpu_via(VDSOKIT_ROUTE_VDSO, &cpu, &node))
DEFINE_LOOP(loop_libc_getcpu_node, unsigned cpu; unsigned node, getcpu(&cpu, &node))
DEFINE_LOOP(loop_sys_getcpu_node, unsigned cpu; unsigned node,
	    vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, &cpu, &node))

DEFINE_LOOP(loop_lib_getrandom, , vdsokit_getrandom(random_buffer, (size_t)arg, 0))
DEFINE_LOOP(loop_raw_getrandom, ,
	    vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, random_buffer, (size_t)arg, 0))
/* A variable, not a discarded call: glibc declares getrandom() warn_unused_result
 * under _FORTIFY_SOURCE (Debian's default build flags), and -Werror stops the build. */
DEFINE_LOOP(loop_libc_getrandom, ssize_t got, got = getrandom(random_buffer, (size_t)arg, 0); KEEP(got))
DEFINE_LOOP(loop_sys_getrandom, ,
	    vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, random_buffer, (size_t)arg, 0))

DEFINE_LOOP(loop_lib_tp, void *tp, tp = vdsokit_thread_pointer(); KEEP(tp))
DEFINE_LOOP(loop_raw_tp, void *tp, tp = vdsokit_thread_pointer_via(VDSOKIT_ROUTE_VDSO); KEEP(tp))
/*
 * glibc declares pthread_self() __attribute__((const)), so the compiler
 * would call it once per loop; through a pointer it cannot see, it is
 * called every time, as a program that needs it in a function does.
 */
DEFINE_LOOP(loop_libc_tp, pthread_t (*self_fn)(void) = pthread_self; pthread_t self,
	    __asm__("" : "+r"(self_fn)); self = self_fn(); KEEP(self))
DEFINE_LOOP(loop_sys_tp, void *tp, tp = vdsokit_thread_pointer_via(VDSOKIT_ROUTE_SYSCALL); KEEP(tp))

/*
 * The bare vDSO entries (vdsokit_bare_entry, with the kernel's signatures
 * of bare_entry.h): the pointer is loaded once per batch, and each
 * iteration is the call itself.
 */

/* fn's bare entry, NULL without one; *time64 as vdsokit_bare_entry says. */
static const void *bare_entry(enum vdsokit_func fn, int *time64)
{
	const void *entry;
	int wide = 1;
	if (vdsokit_bare_entry(fn, &entry, &wide) != 0)
		entry = NULL;
	if (time64)
		*time64 = wide;
	return entry;
}

bool raw_vdso_is_bare(enum vdsokit_func fn)
{
	const void *entry;
	return vdsokit_bare_entry(fn, &entry, NULL) != -EOPNOTSUPP;
}

#define BARE(type, fn) ((type *)bare_entry((fn), NULL))

DEFINE_LOOP(loop_bare_gettime, bare_clock_fn *f = BARE(bare_clock_fn, VDSOKIT_FN_CLOCK_GETTIME);
	    struct kernel_time_buffer ts, f((clockid_t)arg, &ts))
DEFINE_LOOP(loop_bare_getres, bare_clock_fn *f = BARE(bare_clock_fn, VDSOKIT_FN_CLOCK_GETRES);
	    struct kernel_time_buffer ts, f((clockid_t)arg, &ts))
DEFINE_LOOP(loop_bare_gettimeofday,
	    bare_gettimeofday_fn *f = BARE(bare_gettimeofday_fn, VDSOKIT_FN_GETTIMEOFDAY);
	    struct kernel_time_buffer tv, f(&tv, NULL))
DEFINE_LOOP(loop_bare_time64, bare_time64_fn *f = BARE(bare_time64_fn, VDSOKIT_FN_TIME);
	    int64_t t, t = f(NULL); KEEP(t))
DEFINE_LOOP(loop_bare_time32, bare_time32_fn *f = BARE(bare_time32_fn, VDSOKIT_FN_TIME);
	    int32_t t, t = f(NULL); KEEP(t))
DEFINE_LOOP(loop_bare_getcpu, bare_getcpu_fn *f = BARE(bare_getcpu_fn, VDSOKIT_FN_GETCPU);
	    unsigned cpu, f(&cpu, NULL, NULL))
DEFINE_LOOP(loop_bare_getcpu_node, bare_getcpu_fn *f = BARE(bare_getcpu_fn, VDSOKIT_FN_GETCPU);
	    unsigned cpu; unsigned node, f(&cpu, &node, NULL))

/* One bare call, as probe() reports it: 0 / -errno, the cpu, or -ENOSYS: no entry. */
static long bare_probe(const struct bench_case *c)
{
	int time64;
	const void *entry = bare_entry(c->func, &time64);
	struct kernel_time_buffer buffer;
	unsigned cpu, node;
	if (!entry)
		return -ENOSYS;
	switch (c->func) {
	case VDSOKIT_FN_CLOCK_GETTIME:
	case VDSOKIT_FN_CLOCK_GETRES:
		return ((bare_clock_fn *)entry)((clockid_t)c->arg, &buffer);
	case VDSOKIT_FN_GETTIMEOFDAY:
		return ((bare_gettimeofday_fn *)entry)(&buffer, NULL);
	case VDSOKIT_FN_TIME: {
		int64_t t = time64 ? ((bare_time64_fn *)entry)(NULL) : ((bare_time32_fn *)entry)(NULL);
		return t < 0 && t >= -4095 ? (long)t : 0;
	}
	case VDSOKIT_FN_GETCPU: {
		int r = ((bare_getcpu_fn *)entry)(&cpu, c->arg == BENCH_GETCPU_NODE ? &node : NULL,
						  NULL);
		return r == 0 ? (long)cpu : r;
	}
	default:
		return -ENOSYS;
	}
}

static bench_loop *const bare_loops[VDSOKIT_FN_COUNT] = {
	[VDSOKIT_FN_CLOCK_GETTIME] = loop_bare_gettime,
	[VDSOKIT_FN_CLOCK_GETRES] = loop_bare_getres,
	[VDSOKIT_FN_GETTIMEOFDAY] = loop_bare_gettimeofday,
	[VDSOKIT_FN_TIME] = loop_bare_time64, /* loop_for() picks the 32-bit one */
	[VDSOKIT_FN_GETCPU] = loop_bare_getcpu,
};

/* The vDSO column's loops where raw_vdso_is_bare() is false. */
static bench_loop *const loops[VDSOKIT_FN_COUNT][BENCH_PATH_COUNT] = {
	[VDSOKIT_FN_CLOCK_GETTIME] = { loop_lib_gettime, loop_raw_gettime, loop_libc_gettime,
				    loop_sys_gettime },
	[VDSOKIT_FN_CLOCK_GETRES] = { loop_lib_getres, loop_raw_getres, loop_libc_getres,
				   loop_sys_getres },
	[VDSOKIT_FN_GETTIMEOFDAY] = { loop_lib_gettimeofday, loop_raw_gettimeofday,
				   loop_libc_gettimeofday, loop_sys_gettimeofday },
	[VDSOKIT_FN_TIME] = { loop_lib_time, loop_raw_time, loop_libc_time, loop_sys_time },
	[VDSOKIT_FN_GETCPU] = { loop_lib_getcpu, loop_raw_getcpu, loop_libc_getcpu, loop_sys_getcpu },
	[VDSOKIT_FN_GETRANDOM] = { loop_lib_getrandom, loop_raw_getrandom, loop_libc_getrandom,
				loop_sys_getrandom },
	[VDSOKIT_FN_THREAD_POINTER] = { loop_lib_tp, loop_raw_tp, loop_libc_tp, loop_sys_tp },
};

static bench_loop *const getcpu_node_loops[BENCH_PATH_COUNT] = {
	loop_lib_getcpu_node, loop_raw_getcpu_node, loop_libc_getcpu_node, loop_sys_getcpu_node,
};

static bench_loop *loop_for(const struct bench_case *c, enum bench_path path)
{
	enum vdsokit_func fn = c->func;
	if (fn == VDSOKIT_FN_GETCPU && c->arg == BENCH_GETCPU_NODE)
		return path == BENCH_VDSO && raw_vdso_is_bare(fn) ? loop_bare_getcpu_node :
								     getcpu_node_loops[path];
	if (path == BENCH_VDSO && raw_vdso_is_bare(fn)) {
		int time64;
		if (fn == VDSOKIT_FN_TIME && bare_entry(fn, &time64) && !time64)
			return loop_bare_time32;
		return bare_loops[fn];
	}
	return loops[fn][path];
}

static void empty_function(void)
{
	__asm__ volatile("");
}

/* volatile: the pointer is loaded and the call made on every iteration. */
static void (*volatile empty_call)(void) = empty_function;

static void floor_loop(long arg, uint64_t n)
{
	(void)arg;
	for (uint64_t i = 0; i < n; i++)
		empty_call();
}

/* The libc's answer, as 0 / -errno (or the value for getcpu, getrandom). */
static bool probe_libc(const struct bench_case *c, long *result)
{
	struct timespec ts;
	struct timeval tv;
	long r;

	errno = 0;
	switch (c->func) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		r = clock_gettime((clockid_t)c->arg, &ts);
		break;
	case VDSOKIT_FN_CLOCK_GETRES:
		r = clock_getres((clockid_t)c->arg, &ts);
		break;
	case VDSOKIT_FN_GETTIMEOFDAY:
		r = gettimeofday(&tv, NULL);
		break;
	case VDSOKIT_FN_TIME:
		r = time(NULL) == (time_t)-1 ? -1 : 0;
		break;
	case VDSOKIT_FN_GETCPU:
		if (c->arg == BENCH_GETCPU_NODE) {
			unsigned cpu, node;
			r = getcpu(&cpu, &node);
			if (r == 0)
				r = cpu;
		} else {
			r = sched_getcpu();
		}
		break;
	case VDSOKIT_FN_GETRANDOM:
		r = getrandom(random_buffer, (size_t)c->arg, 0);
		break;
	case VDSOKIT_FN_THREAD_POINTER:
		r = 0;
		break;
	default:
		*result = -ENOSYS;
		return false;
	}
	*result = r < 0 ? -errno : r;
	return true;
}

/*
 * One call, to learn whether the path exists here and what it returns.
 * Only the raw vDSO path can be missing (and the thread pointer's syscall,
 * on architectures where none returns it): the library always answers,
 * the libc always has its function.
 */
static bool probe(const struct bench_case *c, enum bench_path path, long *result)
{
	enum vdsokit_route route = path == BENCH_VDSO ? VDSOKIT_ROUTE_VDSO :
			    path == BENCH_SYSCALL ? VDSOKIT_ROUTE_SYSCALL : VDSOKIT_ROUTE_AUTO;
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	unsigned cpu, node;

	/*
	 * A syscall a filter kills is never made: its path is refused, not
	 * timed; so are the others where the library's route is that syscall
	 * or the vDSO's entry into the kernel, or unknown (a CPU-time clock,
	 * an invalid id, a function the vDSO lacks): the vDSO, the library and the libc hand such a call to the
	 * kernel.
	 */
	struct vdsokit_route_info route_info;
	if (syscall_killed(c->func) &&
	    (path == BENCH_SYSCALL || bench_case_path(c, &route_info) != 0 ||
	     route_info.route == VDSOKIT_ROUTE_SYSCALL || route_info.route == VDSOKIT_ROUTE_VDSO_KERNEL ||
	     route_info.reason == VDSOKIT_REASON_ENTRY_IS_SYSCALL)) {
		*result = REFERENCE_KILLED;
		return true;
	}
	if (path == BENCH_LIBC)
		return probe_libc(c, result);
	if (path == BENCH_VDSO && raw_vdso_is_bare(c->func)) {
		*result = bare_probe(c);
		return *result != -ENOSYS;
	}
	switch (c->func) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		*result = vdsokit_clock_gettime_via(route, (clockid_t)c->arg, &ts);
		break;
	case VDSOKIT_FN_CLOCK_GETRES:
		*result = vdsokit_clock_getres_via(route, (clockid_t)c->arg, &ts);
		break;
	case VDSOKIT_FN_GETTIMEOFDAY:
		*result = vdsokit_gettimeofday_via(route, &tv, NULL);
		break;
	case VDSOKIT_FN_TIME:
		*result = vdsokit_time_via(route, &t);
		break;
	case VDSOKIT_FN_GETCPU:
		*result = vdsokit_getcpu_via(route, &cpu, c->arg == BENCH_GETCPU_NODE ? &node : NULL);
		if (*result == 0)
			*result = cpu;
		break;
	case VDSOKIT_FN_GETRANDOM:
		*result = vdsokit_getrandom_via(route, random_buffer, (size_t)c->arg, 0);
		break;
	case VDSOKIT_FN_THREAD_POINTER:
		*result = vdsokit_thread_pointer_via(route) ? 0 : -ENOSYS;
		break;
	default:
		*result = -ENOSYS;
		return false;
	}
	/*
	 * -ENOSYS from the vDSO path means "no such symbol here"; from the
	 * thread pointer's syscall path, that no syscall returns it here.
	 */
	return !(*result == -ENOSYS &&
		 (path == BENCH_VDSO || c->func == VDSOKIT_FN_THREAD_POINTER));
}

static double time_batch(bench_loop *loop, long arg, uint64_t n)
{
	double start = bench_now_ns();
	loop(arg, n);
	return bench_now_ns() - start;
}

/*
 * Calls per batch so that a batch lasts about target_ns.  Run after a
 * warm-up: the first call through the libc may go through the dynamic
 * linker's lazy binding (microseconds), which would size the batches for
 * a cost the later calls do not have.  The estimate is then checked on a
 * full batch and corrected, so one disturbed timing cannot stick.
 */
/*
 * The smallest step bench_now_ns() takes: a few ns on most machines, but
 * hundreds of µs on some emulated ones (QEMU's Quadra 800 timer).  Batches
 * must span many steps, or their times are mostly rounding.
 */
static double clock_step_ns(void)
{
	static double step;
	if (step > 0)
		return step;
	double best = INFINITY;
	for (int i = 0; i < 8; i++) {
		double a = bench_now_ns(), b = a;
		for (unsigned long reads = 0; b == a && reads < BENCH_CLOCK_STILL_READS; reads++)
			b = bench_now_ns();
		if (b == a)
			break;   /* frozen: no step to find */
		if (b - a < best)
			best = b - a;
	}
	return step = best;
}

bool bench_clock_frozen(void)
{
	return !isfinite(clock_step_ns());
}

static uint64_t calibrate(bench_loop *loop, long arg, double target_ns)
{
	uint64_t n = 1;
	double elapsed;
	/* Nothing can be timed on a clock that does not move: one call a batch. */
	if (bench_clock_frozen())
		return 1;
	if (target_ns < 20 * clock_step_ns())
		target_ns = 20 * clock_step_ns();
	for (;;) {
		elapsed = time_batch(loop, arg, n);
		if (elapsed >= target_ns / 8 || n >= (UINT64_C(1) << 32))
			break;
		n *= elapsed < target_ns / 1000 ? 16 : 2;
	}
	for (int round = 0; round < 4; round++) {
		/* A batch that read as no time at all is below the clock's step: grow it. */
		double scaled = elapsed > 0 ? n * target_ns / elapsed : 2.0 * n;
		n = scaled < 1 ? 1 : (uint64_t)scaled;
		elapsed = time_batch(loop, arg, n);
		if (elapsed > target_ns * 0.7 && elapsed < target_ns * 1.5)
			break;
	}
	return n;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void summarize(double *means, unsigned count, uint64_t calls_per_batch,
		      struct bench_result *r)
{
	double sum = 0;
	qsort(means, count, sizeof(*means), compare_doubles);
	for (unsigned i = 0; i < count; i++)
		sum += means[i];
	r->batches = count;
	r->calls_per_batch = calls_per_batch;
	r->calls = calls_per_batch * count;
	r->min_ns = means[0];
	r->median_ns = count % 2 ? means[count / 2] : (means[count / 2 - 1] + means[count / 2]) / 2;
	/* nearest rank */
	unsigned p90 = (unsigned)ceil(0.9 * count);
	r->p90_ns = means[p90 ? p90 - 1 : 0];
	r->mean_ns = sum / count;
}

/* One path of one case: its loop, batch size and batch means. */
struct slot {
	bench_loop *loop;
	long arg;
	uint64_t per_batch;
	double *means;
	struct bench_result *out;
};

static void *checked_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size);
	if (!p) {
		fprintf(stderr, "%s: out of memory\n", CLI_PROGRAM);
		exit(CLI_EXIT_USAGE);
	}
	return p;
}

/*
 * Every slot is calibrated first; then the batches go in rounds, one batch
 * of every slot per round, until the rounds planned for the budget are
 * done or the wall-clock budget is spent (at least min_batches rounds).
 * So each figure samples the whole run: a burst of load from a neighbour
 * slows a few batches of every figure instead of all batches of one, and
 * the medians stay put.
 */
static void measure_slots(struct slot *slots, unsigned count, const struct bench_config *config)
{
	double start = bench_now_ns();
	double deadline = start + config->seconds * 1e9;
	/*
	 * The budget decides how long this takes: when it holds more rounds
	 * than max_batches, the batches grow instead of the rounds, which
	 * keeps the means (and memory) bounded.
	 */
	double batch_ns = config->batch_ns;
	if (config->max_batches && config->seconds * 1e9 > batch_ns * count * config->max_batches)
		batch_ns = config->seconds * 1e9 / ((double)count * config->max_batches);

	for (unsigned i = 0; i < count; i++) {
		/* Warm-up: lazy binding, the library's first-use resolve, caches. */
		slots[i].loop(slots[i].arg, 64);
		slots[i].per_batch = calibrate(slots[i].loop, slots[i].arg, batch_ns);
		progress_tick();
	}
	double left = deadline - bench_now_ns();
	double fit = left > 0 ? left / (batch_ns * count) : 0;
	unsigned rounds = fit > config->max_batches ? config->max_batches : (unsigned)fit;
	if (rounds < config->min_batches)
		rounds = config->min_batches;
	/* Batches that ran short of their target may leave time: room to go on. */
	unsigned capacity = rounds < config->max_batches ? config->max_batches : 2 * rounds;
	capacity += capacity & 1;
	for (unsigned i = 0; i < count; i++)
		slots[i].means = checked_calloc(capacity, sizeof(double));

	/*
	 * The rounds go on until the deadline, not until a count: a batch
	 * calibrated while the machine was busy (the process preempted in the
	 * middle of it) is too short once the load is gone, and the planned
	 * rounds would end the run early.  When the means fill up, the batches
	 * double: each pair of means becomes the mean of one batch twice as
	 * long, which is what the longer batches measure from then on.
	 */
	unsigned done = 0;
	for (;;) {
		if (done == capacity) {
			for (unsigned i = 0; i < count; i++) {
				struct slot *s = &slots[i];
				for (unsigned k = 0; k < capacity / 2; k++)
					s->means[k] = (s->means[2 * k] + s->means[2 * k + 1]) / 2;
				s->per_batch *= 2;
			}
			done = capacity / 2;
		}
		for (unsigned i = 0; i < count; i++) {
			struct slot *s = &slots[i];
			s->means[done] = time_batch(s->loop, s->arg, s->per_batch) / s->per_batch;
		}
		done++;
		progress_tick();
		/* A frozen clock: the least the figures need, then no more. */
		if (done >= config->min_batches && (bench_clock_frozen() || bench_now_ns() > deadline))
			break;
	}
	for (unsigned i = 0; i < count; i++) {
		summarize(slots[i].means, done, slots[i].per_batch, slots[i].out);
		slots[i].out->batch_ns = batch_ns;
		/* A clock that did not move timed nothing: no figures, not 0 ns. */
		if (bench_clock_frozen())
			slots[i].out->median_ns = slots[i].out->min_ns = slots[i].out->p90_ns =
				slots[i].out->mean_ns = NAN;
		free(slots[i].means);
	}
}

void bench_measure_cases(const struct bench_case *cases, unsigned count,
			 const bool wanted[BENCH_PATH_COUNT], const struct bench_config *config,
			 struct bench_result (*results)[BENCH_PATH_COUNT])
{
	struct slot *slots = checked_calloc((size_t)count * BENCH_PATH_COUNT, sizeof(*slots));
	unsigned used = 0;

	for (unsigned k = 0; k < count; k++) {
		const struct bench_case *c = &cases[k];
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
			struct bench_result *r = &results[k][p];
			memset(r, 0, sizeof(*r));
			r->median_ns = r->min_ns = r->p90_ns = r->mean_ns = NAN;
			if (!wanted[p] || c->func >= VDSOKIT_FN_COUNT)
				continue;
			r->available = probe(c, p, &r->first_result);
			if (!r->available)
				continue;
			/* A refused call costs what the filter costs: no figure of the call. */
			if (syscall_refused(r->first_result)) {
				r->refused = (int)r->first_result;
				continue;
			}
			slots[used].loop = loop_for(c, p);
			slots[used].arg = c->arg;
			slots[used].out = r;
			used++;
		}
	}
	if (used)
		measure_slots(slots, used, config);
	free(slots);
}

void bench_measure(const struct bench_case *c, const bool wanted[BENCH_PATH_COUNT],
		   const struct bench_config *config, struct bench_result results[BENCH_PATH_COUNT])
{
	bench_measure_cases(c, 1, wanted, config, (struct bench_result (*)[BENCH_PATH_COUNT])results);
}

void bench_measure_floor(const struct bench_config *config, struct bench_result *result)
{
	struct slot slot = { .loop = floor_loop, .out = result };
	memset(result, 0, sizeof(*result));
	result->available = true;
	measure_slots(&slot, 1, config);
}

bench_loop *bench_loop_of(const struct bench_case *c, enum bench_path path)
{
	long result;
	if (!c || path >= BENCH_PATH_COUNT)
		return NULL;
	if (c->func == VDSOKIT_FN_COUNT)
		return floor_loop;
	if (c->func > VDSOKIT_FN_COUNT || !probe(c, path, &result))
		return NULL;
	return loop_for(c, path);
}

double bench_plain_loop_ns(const struct bench_case *c, enum bench_path path, uint64_t calls)
{
	long result;
	if (c->func >= VDSOKIT_FN_COUNT || path >= BENCH_PATH_COUNT || !probe(c, path, &result))
		return NAN;
	bench_loop *loop = loop_for(c, path);
	loop(c->arg, calls / 10 + 1);     /* warm-up */
	return time_batch(loop, c->arg, calls) / calls;
}

long bench_call_once(const struct bench_case *c, enum bench_path path)
{
	long result;
	if (c->func >= VDSOKIT_FN_COUNT || path >= BENCH_PATH_COUNT || !probe(c, path, &result))
		return -ENOSYS;
	return result;
}
