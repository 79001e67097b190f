// SPDX-License-Identifier: MIT
/*
 * Every call the library serves in user space (vdsokit_route_of: the vDSO, a
 * register, the rseq area) makes zero syscalls — counted with a seccomp
 * supervisor (syscall-count.h), getrandom included — here and in a time
 * namespace with offsets entered after initialisation (needs root: a child
 * forked after unshare(CLONE_NEWTIME) and writing /proc/self/timens_offsets).
 * Under qemu-user (no vDSO, no seccomp) it checks that nothing claims to be
 * served in user space but the thread pointer.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "crng-ready.h"
#include "syscall-count.h"
#include "testutil.h"
#include "timens.h"

#define CALLS 100
#define MAX_CLOCK 11 /* CLOCK_TAI */

/* Every route but those that enter the kernel: the vDSO, a register, the rseq area. */
static int user_space(enum vdsokit_route route)
{
	return route != VDSOKIT_ROUTE_SYSCALL && route != VDSOKIT_ROUTE_VDSO_KERNEL &&
	       route != VDSOKIT_ROUTE_NONE;
}

/*
 * One call of fn (clock for the two clock functions; for getcpu, clock 1
 * also asks for the node); its result, 0 or positive when it worked.
 */
static long call_once(enum vdsokit_func fn, clockid_t clock)
{
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	unsigned cpu, node;
	unsigned char buf[32];
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME: return vdsokit_clock_gettime(clock, &ts);
	case VDSOKIT_FN_CLOCK_GETRES: return vdsokit_clock_getres(clock, &ts);
	case VDSOKIT_FN_GETTIMEOFDAY: return vdsokit_gettimeofday(&tv, NULL);
	case VDSOKIT_FN_TIME: return vdsokit_time(&t);
	case VDSOKIT_FN_GETCPU: return vdsokit_getcpu(&cpu, clock ? &node : NULL);
	case VDSOKIT_FN_GETRANDOM: return vdsokit_getrandom(buf, sizeof(buf), 0);
	case VDSOKIT_FN_THREAD_POINTER: return vdsokit_thread_pointer() ? 0 : -1;
	default: return -1;
	}
}

/*
 * x86's vDSO reads the clock in user space only for the clocksources with a
 * vDSO clock mode (tsc, kvm-clock, Hyper-V's page); with any other (hpet,
 * acpi_pm, xen) its high-resolution reads make the syscall themselves, which
 * the library cannot see.  Those calls are then expected to count one
 * syscall each.  The clocksource's name, or "" where it cannot be read.
 */
static char clocksource[64];

static int vdso_reads_clock_in_kernel(enum vdsokit_func fn, clockid_t clock)
{
#if defined(__i386__) || defined(__x86_64__)
	static const char *const user_readable[] = { "tsc", "kvm-clock", "hyperv_clocksource_tsc_page" };
	if (!clocksource[0])
		return 0;
	for (unsigned i = 0; i < sizeof(user_readable) / sizeof(user_readable[0]); i++)
		if (strcmp(clocksource, user_readable[i]) == 0)
			return 0;
	if (fn == VDSOKIT_FN_GETTIMEOFDAY)
		return 1;
	return fn == VDSOKIT_FN_CLOCK_GETTIME && clock != CLOCK_REALTIME_COARSE &&
	       clock != CLOCK_MONOTONIC_COARSE;
#else
	(void)fn, (void)clock;
	return 0;
#endif
}

static void read_clocksource(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f)
		return;
	if (fgets(clocksource, sizeof(clocksource), f))
		clocksource[strcspn(clocksource, "\n")] = 0;
	fclose(f);
}

struct count_job {
	const char *where;
	int counted;        /* checks that counted syscalls                       */
	int no_seccomp;
};

/* In its own thread: the counter's filter stays on the thread that installs it. */
static void *count_each_user_space_call(void *arg)
{
	struct count_job *job = arg;
	/* Static: its supervisor thread may read it after this function returns. */
	static struct syscall_counter counter;
	if (counter_start(&counter, NULL, 0)) {
		job->no_seccomp = 1;
		return NULL;
	}
	for (int fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		int per_clock = fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
		int variants = per_clock ? MAX_CLOCK : fn == VDSOKIT_FN_GETCPU ? 1 : 0;
		for (clockid_t clock = 0; clock <= variants; clock++) {
			struct vdsokit_route_info p;
			if (vdsokit_route_of(fn, clock, &p) != 0 || !user_space(p.route))
				continue;
			/* Warm: a getrandom state's first use seeds it through the syscall. */
			call_once(fn, clock);
			call_once(fn, clock);
			counter_on(&counter);
			int failed = 0;
			for (int i = 0; i < CALLS; i++)
				failed += call_once(fn, clock) < 0;
			int syscalls = counter_off(&counter);
			char what[64];
			if (fn == VDSOKIT_FN_GETCPU)
				snprintf(what, sizeof(what), "getcpu(cpu, %s)", clock ? "node" : "NULL");
			else
				snprintf(what, sizeof(what), per_clock ? "%s(%d)" : "%s",
					 vdsokit_func_name(fn), (int)clock);
			/*
			 * getcpu(cpu, node) where the rseq area has no node_id and the
			 * vDSO no getcpu: the path names the syscall for the node.
			 */
			int node_by_syscall = fn == VDSOKIT_FN_GETCPU && clock &&
					      p.reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY && !p.symbol;
			if (vdso_reads_clock_in_kernel(fn, clock))
				ok(syscalls == CALLS && failed == 0,
				   "%s: %s: the vDSO makes the syscall itself with clocksource %s: "
				   "%d calls, %d syscalls", job->where, what, clocksource, CALLS, syscalls);
			else if (node_by_syscall)
				ok(syscalls == CALLS && failed == 0,
				   "%s: %s: the node from the %s syscall, as the path says: %d calls, %d syscalls",
				   job->where, what, p.syscall, CALLS, syscalls);
			else
				ok(syscalls == 0 && failed == 0,
				   "%s: %s (%s%s%s): %d calls, %d syscalls, %d failed", job->where, what,
				   vdsokit_route_name(p.route), p.symbol ? " " : "",
				   p.symbol ? p.symbol : "", CALLS, syscalls, failed);
			if (syscalls)
				diag("the last syscall counted: nr %d", counter.last_nr);
			job->counted++;
		}
	}
	return NULL;
}

/* A counting child's job and TAP counters, in memory shared with the parent. */
struct child_count {
	struct count_job job;
	int tap_count, tap_failed;
};

static int count_in_child(void *arg)
{
	struct child_count *c = arg;
	count_each_user_space_call(&c->job);
	c->tap_count = tap_count;
	c->tap_failed = tap_failed;
	return 0;
}

/*
 * Where this C library's threads cannot wait (testutil.h), joining the
 * counting thread would end the test: a forked child counts instead (the
 * filter goes with it) and hands its TAP counters back.
 */
static int count_all_in_child(const char *where)
{
	struct child_count *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		ok(0, "%s: shared memory for a counting child: %s", where, strerror(errno));
		return -1;
	}
	diag("%s: counted in a forked child: %s", where, threads_cannot_wait());
	c->job = (struct count_job){ .where = where };
	c->tap_count = tap_count;
	c->tap_failed = tap_failed;
	int status = run_in_child(count_in_child, c, 120);
	if (child_passed(status)) {
		tap_count = c->tap_count;
		tap_failed = c->tap_failed;
	} else {
		ok(0, "%s: the counting child %s", where, wait_status_text(status).text);
	}
	int counted = c->job.no_seccomp ? -1 : c->job.counted;
	munmap(c, sizeof(*c));
	return counted;
}

static int count_all(const char *where)
{
	if (threads_cannot_wait())
		return count_all_in_child(where);
	struct count_job job = { .where = where };
	pthread_t t;
	pthread_create(&t, NULL, count_each_user_space_call, &job);
	pthread_join(t, NULL);
	if (job.no_seccomp)
		return -1;
	return job.counted;
}

/* With no seccomp: only the thread pointer may be served without a syscall. */
static void check_routes_without_seccomp(void)
{
	int in_vdso = 0;
	for (int fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		struct vdsokit_route_info p;
		vdsokit_route_of(fn, CLOCK_MONOTONIC, &p);
		in_vdso += p.route == VDSOKIT_ROUTE_VDSO;
	}
	if (vdsokit_process_image())
		skip("no seccomp filters here (%d functions routed to the vDSO): syscalls cannot be counted",
		     in_vdso);
	else
		/* No vDSO (qemu-user, vdso=0): then nothing may claim to be served by one. */
		ok(in_vdso == 0, "no seccomp and no vDSO (qemu-user, or vdso=0): %d functions routed to it",
		   in_vdso);
}

/* Before the fork into the namespace, outside it: the offsets must show. */
static struct vdsokit_timespec mono_outside;

static void checks_in_time_namespace(void)
{
	struct vdsokit_timespec lib;
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &lib);
	ok(lib.tv_sec >= mono_outside.tv_sec + TIMENS_MONOTONIC_OFFSET &&
	   lib.tv_sec < mono_outside.tv_sec + TIMENS_MONOTONIC_OFFSET + 60,
	   "time namespace: MONOTONIC is %lld s past the parent's (offset %d s)",
	   (long long)(lib.tv_sec - mono_outside.tv_sec), TIMENS_MONOTONIC_OFFSET);
	count_all("time namespace");
}

int main(void)
{
	vdsokit_init();
	read_clocksource();
	wait_for_crng_ready();
	int counted = count_all("here");
	if (counted < 0) {
		check_routes_without_seccomp();
		return done_testing();
	}
	diag("%d user-space paths counted here", counted);
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &mono_outside);
	timens_run(checks_in_time_namespace);
	return done_testing();
}
