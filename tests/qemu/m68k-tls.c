/* SPDX-License-Identifier: MIT */
/*
 * m68k-tls — in an m68k guest, vdsokit_thread_pointer() is the thread
 * pointer: in every thread after every switch, and in fork and exec
 * children, it equals
 *   - the get_thread_area syscall (the kernel's record, thread_info->tp_value),
 *   - glibc's TLS base: the address of a __thread variable (which gcc
 *     computes through glibc's __m68k_read_tp) minus its offset from the
 *     thread pointer, measured once in the main thread,
 *   - where the kernel has a vDSO (the m68k-vdso guest), the word the
 *     kernel patch keeps at AT_SYSINFO_EHDR - 4096
 *     (tests/qemu/kernel/m68k-vdso/), which the library reaches through
 *     __vdso_get_thread_area; without a vDSO (mainline) the library makes
 *     the syscall and the other equalities must still hold.
 *
 * m68k only: built by tests/qemu/matrix.t into $(BUILD)/m68k/tests/ so
 * that the m68k guests run it with the library's own test programs.
 * Prints TAP.  `m68k-tls exec-child` is the re-executed child.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vdsokit.h>

#include "../tap.h"

#ifndef __m68k__
#error "m68k-tls is an m68k test: build it with m68k-linux-gnu-gcc"
#endif

#define THREADS 8
#define ROUNDS 3000       /* per thread: a yield each round              */
#define SLEEP_EVERY 10    /* and a nanosleep every SLEEP_EVERY rounds     */
#define DATA_PAGE_TP_OFFSET 4096 /* where the series keeps it (not an interface) */

/* Each thread's own TLS block: a marker that must stay its own. */
static __thread unsigned long tls_marker;

/* Offset of tls_marker from the thread pointer: the same in every thread. */
static long marker_offset;

static void *syscall_tp(void)
{
	return (void *)syscall(SYS_get_thread_area);
}

/* glibc's view: the thread pointer its own TLS accesses start from. */
static void *glibc_tp(void)
{
	return (char *)&tls_marker - marker_offset;
}

/* The word the kernel keeps for the vDSO, or NULL without a vDSO. */
static const volatile unsigned long *data_page_slot(void)
{
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
	return ehdr ? (const volatile unsigned long *)(ehdr - DATA_PAGE_TP_OFFSET) : NULL;
}

/*
 * 0 when every source agrees on the thread pointer; else which one
 * disagreed first (for the diagnostics), with the values in *got.
 */
struct tp_views {
	void *library, *sys, *glibc, *slot;
};

static const char *tp_disagreement(struct tp_views *v)
{
	const volatile unsigned long *slot = data_page_slot();
	v->library = vdsokit_thread_pointer();
	v->sys = syscall_tp();
	v->glibc = glibc_tp();
	v->slot = slot ? (void *)*slot : NULL;
	if (v->library != v->sys)
		return "library != get_thread_area";
	if (v->glibc != v->sys)
		return "glibc's TLS base != get_thread_area";
	if (slot && v->slot != v->sys)
		return "data page slot != get_thread_area";
	return NULL;
}

static void diag_views(const char *what, const struct tp_views *v)
{
	diag("%s: library %p, get_thread_area %p, glibc %p, data page %p", what, v->library,
	     v->sys, v->glibc, v->slot);
}

/* ---- threads --------------------------------------------------------- */

struct worker {
	pthread_t thread;
	int index;
	long checks, failures, switches;
	const char *first_failure;
	struct tp_views failed_views;
	void *tp;
};

static atomic_int start_gate;

static void *work(void *arg)
{
	struct worker *w = arg;
	struct rusage before, after;
	const struct timespec nap = { 0, 1000 };

	tls_marker = 0x7e550000ul + (unsigned long)w->index;
	w->tp = vdsokit_thread_pointer();
	while (!atomic_load(&start_gate))
		sched_yield();
	getrusage(RUSAGE_THREAD, &before);
	for (int round = 0; round < ROUNDS; round++) {
		if (round % SLEEP_EVERY == 0)
			nanosleep(&nap, NULL);
		else
			sched_yield();
		struct tp_views v;
		const char *why = tp_disagreement(&v);
		w->checks++;
		if (tls_marker != 0x7e550000ul + (unsigned long)w->index)
			why = why ? why : "the thread's own __thread variable changed";
		if (v.library != w->tp)
			why = why ? why : "the thread pointer moved";
		if (why) {
			if (!w->failures++) {
				w->first_failure = why;
				w->failed_views = v;
			}
		}
	}
	getrusage(RUSAGE_THREAD, &after);
	w->switches = (after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw);
	return NULL;
}

static void test_threads(void)
{
	struct worker workers[THREADS];
	memset(workers, 0, sizeof(workers));
	for (int i = 0; i < THREADS; i++) {
		workers[i].index = i;
		if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) != 0) {
			printf("Bail out! pthread_create: %s\n", strerror(errno));
			exit(1);
		}
	}
	atomic_store(&start_gate, 1);
	long switches = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(workers[i].thread, NULL);
		struct worker *w = &workers[i];
		switches += w->switches;
		if (!ok(w->failures == 0 && w->checks == ROUNDS,
			"thread %d (tp %p): %ld checks after %d yields/sleeps and %ld context switches, "
			"thread pointer = get_thread_area = glibc's TLS base%s every time",
			i, w->tp, w->checks, ROUNDS, w->switches,
			data_page_slot() ? " = data page slot" : ""))
			diag_views(w->first_failure ? w->first_failure : "incomplete", &w->failed_views);
	}
	void *tps[THREADS];
	int distinct = 1;
	for (int i = 0; i < THREADS; i++) {
		tps[i] = workers[i].tp;
		for (int j = 0; j < i; j++)
			distinct &= tps[i] != tps[j];
	}
	ok(distinct, "each of the %d threads has its own thread pointer", THREADS);
	ok(switches >= THREADS * ROUNDS / 2,
	   "the threads were switched %ld times (at least %d): the checks ran after real switches",
	   switches, THREADS * ROUNDS / 2);
}

/* ---- fork, set_thread_area, exec ------------------------------------- */

/* Runs fn in a forked child; ok when it exits 0. */
static void in_child(const char *what, int (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(fn());
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		ok(0, "%s: %s", what, strerror(errno));
		return;
	}
	if (!ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", what))
		diag("child status %#x", status);
}

static int child_agrees(void)
{
	struct tp_views v;
	const char *why = tp_disagreement(&v);
	if (why)
		diag_views(why, &v);
	return why ? 1 : 0;
}

/* trap #0 with one argument, without glibc: its TLS is invalid while the child runs on a made-up pointer. */
static long raw_syscall1(long nr, long arg)
{
	register long d0 __asm__("d0") = nr;
	register long d1 __asm__("d1") = arg;
	__asm__ volatile("trap #0" : "+d"(d0) : "d"(d1) : "memory");
	return d0;
}

/*
 * set_thread_area in a child, then a yield (a switch away and back): the
 * library, the syscall and the data page must all follow.  glibc is not
 * called after the first set (its TLS would be read through the new value).
 */
static int child_set_thread_area(void)
{
	const volatile unsigned long *slot = data_page_slot();
	const long values[] = { 0x12345678, 0x7ffe0000, (long)syscall_tp() };
	int failed = 0;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		if (raw_syscall1(__NR_set_thread_area, values[i]) != 0)
			failed = 2;
		raw_syscall1(__NR_sched_yield, 0);
		if (vdsokit_thread_pointer() != (void *)values[i] ||
		    raw_syscall1(__NR_get_thread_area, 0) != values[i] ||
		    (slot && *slot != (unsigned long)values[i]))
			failed = 1;
	}
	raw_syscall1(__NR_exit_group, failed);
	return failed;
}

static const char *self_path;

static int child_exec(void)
{
	execl(self_path, self_path, "exec-child", (char *)NULL);
	return 3;
}

/* A fork from a non-main thread: the child continues with that thread's pointer. */
static void *fork_from_thread(void *arg)
{
	(void)arg;
	tls_marker = 0x7e55f00d;
	in_child("fork from a second thread: the child's thread pointer agrees everywhere",
		 child_agrees);
	return NULL;
}

static void test_children(void)
{
	in_child("fork: the child's thread pointer agrees everywhere", child_agrees);
	pthread_t t;
	if (pthread_create(&t, NULL, fork_from_thread, NULL) == 0)
		pthread_join(t, NULL);
	else
		ok(0, "pthread_create for the fork from a second thread");
	in_child("set_thread_area in a child: library, syscall and data page follow it",
		 child_set_thread_area);
	in_child("exec: the new program's thread pointer agrees everywhere", child_exec);
}

static int exec_child_main(void)
{
	/* The exec'd image: glibc set its TLS up again at startup. */
	int failed = child_agrees();
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_THREAD_POINTER, 0, &p);
	if (data_page_slot() && p.route != VDSOKIT_ROUTE_VDSO)
		failed = 1;
	return failed;
}

static void measure_marker_offset(void)
{
	marker_offset = (char *)&tls_marker - (char *)syscall_tp();
}

int main(int argc, char **argv)
{
	self_path = argv[0];
	measure_marker_offset();
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0)
		return exec_child_main();

	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_THREAD_POINTER, 0, &p);
	diag("AT_SYSINFO_EHDR %#lx; thread pointer via %s%s%s; __thread offset %ld", ehdr,
	     vdsokit_route_name(p.route), p.symbol ? " " : "", p.symbol ? p.symbol : "",
	     marker_offset);
	if (ehdr)
		ok(p.route == VDSOKIT_ROUTE_VDSO && p.symbol &&
			   strcmp(p.symbol, "__vdso_get_thread_area") == 0,
		   "with a vDSO the library reads the thread pointer through __vdso_get_thread_area");
	else
		ok(p.route == VDSOKIT_ROUTE_SYSCALL,
		   "without a vDSO the library makes the get_thread_area syscall");
	struct tp_views v;
	const char *why = tp_disagreement(&v);
	if (!ok(!why, "main thread: library = get_thread_area = glibc's TLS base%s",
		ehdr ? " = data page slot" : ""))
		diag_views(why, &v);
	test_threads();
	test_children();
	return done_testing();
}
