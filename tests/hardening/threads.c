// SPDX-License-Identifier: MIT
/*
 * 64 threads race the first call of every function of the library.  The
 * threads are released together from a barrier, each starting with a
 * different function, in a fresh process per round (the first call only
 * happens once per process).  Then:
 *
 *   - every result is valid: clocks inside a syscall sandwich taken around
 *     the race, getres equal to the syscall's, getcpu below the CPU count,
 *     getrandom filling its buffer, the thread pointer the kernel's;
 *   - there was one resolution: vdsokit_process_image() and every resolved
 *     address are the same pointers in every thread;
 *   - built with -fsanitize=thread (threads-tsan.t), ThreadSanitizer
 *     reports nothing (a report makes the round's process exit non-zero).
 *
 * And a pair, 30 times: one thread's first call is a clock call (which
 * resolves the clock entries alone), while another calls vdsokit_init()
 * and reads the whole image it gives: the clock call writes nothing that
 * reader reads (ce45fff had it rewrite that image: ThreadSanitizer saw
 * the race in 6 of 30 runs).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"

enum { THREADS = 64, ROUNDS = 8 };

enum call { C_GETTIME, C_GETRES, C_GETTIMEOFDAY, C_TIME, C_GETCPU, C_GETRANDOM, C_TP, C_PATH, C_COUNT };

struct result {
	int rc[C_COUNT];
	struct vdsokit_timespec gettime, getres;
	struct vdsokit_timeval tv;
	int64_t seconds;
	unsigned cpu;
	unsigned char random[32];
	void *tp, *tp_kernel;
	const struct vdsokit_image *image;
	const void *address[VDSOKIT_FN_COUNT];
	int init;
};

static pthread_barrier_t start_line, all_called;
static struct result results[THREADS];

static void make_call(enum call c, struct result *r)
{
	switch (c) {
	case C_GETTIME: r->rc[c] = vdsokit_clock_gettime(CLOCK_REALTIME, &r->gettime); break;
	case C_GETRES: r->rc[c] = vdsokit_clock_getres(CLOCK_MONOTONIC, &r->getres); break;
	case C_GETTIMEOFDAY: r->rc[c] = vdsokit_gettimeofday(&r->tv, NULL); break;
	case C_TIME: r->rc[c] = vdsokit_time(&r->seconds); break;
	case C_GETCPU: r->rc[c] = vdsokit_getcpu(&r->cpu, NULL); break;
	case C_GETRANDOM:
		r->rc[c] = (int)vdsokit_getrandom(r->random, sizeof(r->random), 0) == (int)sizeof(r->random)
				   ? 0 : -1;
		break;
	case C_TP: r->tp = vdsokit_thread_pointer(); r->rc[c] = 0; break;
	case C_PATH: {
		struct vdsokit_route_info p;
		r->rc[c] = vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p);
		break;
	}
	default: break;
	}
}

static void *racer(void *arg)
{
	struct result *r = arg;
	int first = (int)(r - results) % C_COUNT;
	pthread_barrier_wait(&start_line);
	for (int i = 0; i < C_COUNT; i++)
		make_call((enum call)((first + i) % C_COUNT), r);
	/*
	 * After the race (every first call has returned, the initialising
	 * one's too: vdsokit_init() waits for nobody), record what it chose.
	 */
	pthread_barrier_wait(&all_called);
	r->init = vdsokit_init();
	r->image = vdsokit_process_image();
	for (int f = 0; f < VDSOKIT_FN_COUNT; f++) {
		struct vdsokit_route_info p;
		vdsokit_route_of((enum vdsokit_func)f, CLOCK_MONOTONIC, &p);
		r->address[f] = p.address;
	}
	r->tp_kernel = vdsokit_thread_pointer_via(VDSOKIT_ROUTE_SYSCALL);
	return NULL;
}

static long long ns(const struct vdsokit_timespec *t) { return (long long)t->tv_sec * 1000000000LL + t->tv_nsec; }

static int all_zero(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* One round, in its own process: the number of failed checks, printed as TAP by the parent. */
static int round_checks(int round)
{
	struct vdsokit_timespec before, after, res;
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	pthread_t tids[THREADS];
	int failed = 0;
#define CHECK(cond, ...) do { if (!(cond)) { failed++; printf("# round %d: ", round); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

	memset(results, 0, sizeof(results));
	pthread_barrier_init(&start_line, NULL, THREADS);
	pthread_barrier_init(&all_called, NULL, THREADS);
	/* The sandwich: raw syscalls, which do not initialise the library. */
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &before);
	vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_MONOTONIC, &res);
	for (int t = 0; t < THREADS; t++)
		if (pthread_create(&tids[t], NULL, racer, &results[t]) != 0) {
			printf("# round %d: pthread_create failed\n", round);
			return 1;
		}
	for (int t = 0; t < THREADS; t++)
		pthread_join(tids[t], NULL);
	vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &after);

	const struct result *r0 = &results[0];
	for (int t = 0; t < THREADS; t++) {
		const struct result *r = &results[t];
		for (int c = 0; c < C_COUNT; c++)
			CHECK(r->rc[c] == 0, "thread %d: call %d returned %d", t, c, r->rc[c]);
		CHECK(ns(&before) <= ns(&r->gettime) && ns(&r->gettime) <= ns(&after),
		      "thread %d: clock_gettime %lld outside [%lld, %lld]", t, ns(&r->gettime),
		      ns(&before), ns(&after));
		CHECK(ns(&r->getres) == ns(&res), "thread %d: getres %lld, syscall's %lld", t,
		      ns(&r->getres), ns(&res));
		long long tv_ns = (long long)r->tv.tv_sec * 1000000000LL + r->tv.tv_usec * 1000LL;
		CHECK(tv_ns >= ns(&before) / 1000 * 1000 && tv_ns <= ns(&after),
		      "thread %d: gettimeofday %lld outside the sandwich", t, tv_ns);
		/* time() may read the coarse clock, one tick behind. */
		CHECK(r->seconds >= before.tv_sec - 1 && r->seconds <= after.tv_sec,
		      "thread %d: time %lld outside [%lld, %lld]", t, (long long)r->seconds,
		      (long long)before.tv_sec, (long long)after.tv_sec);
		CHECK(cpus <= 0 || r->cpu < (unsigned)cpus, "thread %d: getcpu %u of %ld CPUs", t,
		      r->cpu, cpus);
		CHECK(!all_zero(r->random, sizeof(r->random)), "thread %d: getrandom left zeros", t);
		/* NULL: no syscall returns the thread pointer on this architecture. */
		CHECK(!r->tp_kernel || r->tp == r->tp_kernel, "thread %d: thread pointer %p, kernel's %p", t, r->tp,
		      r->tp_kernel);
		/* One resolution: the same image and the same entry points everywhere. */
		CHECK(r->init == r0->init && r->image == r0->image,
		      "thread %d: init %d image %p, thread 0: init %d image %p", t, r->init,
		      (const void *)r->image, r0->init, (const void *)r0->image);
		for (int f = 0; f < VDSOKIT_FN_COUNT; f++)
			CHECK(r->address[f] == r0->address[f], "thread %d: %s resolved at %p, thread 0 at %p",
			      t, vdsokit_func_name((enum vdsokit_func)f), r->address[f], r0->address[f]);
		for (int u = 0; u < t; u++)
			CHECK(memcmp(results[u].random, r->random, sizeof(r->random)) != 0,
			      "threads %d and %d drew the same random bytes", u, t);
	}
	CHECK(r0->init == 0 ? r0->image != NULL : r0->image == NULL,
	      "vdsokit_init %d but vdsokit_process_image %p", r0->init, (const void *)r0->image);
	if (round == 0)
		diag("vdsokit_init %d, image %p, clock_gettime at %p", r0->init, (const void *)r0->image,
		     r0->address[VDSOKIT_FN_CLOCK_GETTIME]);
	fflush(stdout);
	return failed;
}

enum { PAIR_ROUNDS = 30 };
static pthread_barrier_t pair_start;

static void *clock_caller(void *unused)
{
	(void)unused;
	struct vdsokit_timespec ts;
	pthread_barrier_wait(&pair_start);
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	return NULL;
}

static void *image_reader(void *unused)
{
	(void)unused;
	pthread_barrier_wait(&pair_start);
	vdsokit_init();
	const unsigned char *bytes = (const unsigned char *)vdsokit_process_image();
	unsigned sum = 0;
	for (size_t i = 0; bytes && i < sizeof(struct vdsokit_image); i++)
		sum += bytes[i];
	return (void *)(uintptr_t)sum;
}

/* One pair in this (fresh) process: 0, or 1 when a thread could not start. */
static int clock_call_beside_reader(void)
{
	pthread_t a, b;
	pthread_barrier_init(&pair_start, NULL, 2);
	if (pthread_create(&a, NULL, clock_caller, NULL) || pthread_create(&b, NULL, image_reader, NULL))
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

int main(void)
{
	for (int round = 0; round < ROUNDS; round++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(round_checks(round) ? 1 : 0);
		int status;
		waitpid(pid, &status, 0);
		/* ThreadSanitizer exits 66 after a report. */
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "round %d: %d threads race the first call of every function: %s", round, THREADS,
		   WIFSIGNALED(status) ? "killed by a signal"
		   : WEXITSTATUS(status) == 66 ? "ThreadSanitizer report"
		   : WEXITSTATUS(status) ? "wrong results" : "one resolution, valid results");
	}
#ifndef __SANITIZE_THREAD__
	(void)clock_call_beside_reader;
	skip("a first clock call beside a thread reading the image: only ThreadSanitizer (threads-tsan.t) "
	     "sees what it checks");
#else
	int pairs_failed = 0, reports = 0;
	for (int round = 0; round < PAIR_ROUNDS; round++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(clock_call_beside_reader());
		int status;
		waitpid(pid, &status, 0);
		pairs_failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
		reports += WIFEXITED(status) && WEXITSTATUS(status) == 66;
	}
	ok(pairs_failed == 0, "%d times, a first clock call beside a thread reading the image "
	   "vdsokit_init() gives: %d failed, %d with a ThreadSanitizer report", PAIR_ROUNDS, pairs_failed, reports);
#endif
	return done_testing();
}
