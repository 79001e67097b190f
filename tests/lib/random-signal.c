// SPDX-License-Identifier: MIT
/*
 * getrandom and signal handlers:
 *   - a thread's first vdsokit_getrandom inside a signal handler that
 *     interrupted malloc: async-signal-safe means no allocation and no lock
 *     on that path.  40 pthread keys are created first, so that anything the
 *     library might store per key lands in the libc's allocated second
 *     level;
 *   - handlers racing a thread's calls, 20,000 times: a handler that finds
 *     the thread's state in use takes the syscall and claims nothing, so the
 *     thread keeps its one state and no state is mapped for the handlers.
 * A hang is a failure: each scenario runs in a child under alarm().
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

void *vdsokit_lib_random_thread_state(size_t *len);

#define KEYS 40
#define ROUNDS 200
#define TIMEOUT_SECONDS 30

/* Shared between threads and the handler: atomics, not just volatile. */
static int handled, handler_result, looping;

static void on_usr1(int sig)
{
	(void)sig;
	unsigned char buf[16];
	__atomic_store_n(&handler_result, (int)vdsokit_getrandom(buf, sizeof(buf), 0), __ATOMIC_RELAXED);
	__atomic_store_n(&handled, 1, __ATOMIC_RELEASE);
}

/* Sizes past the per-thread caches, so that malloc takes its arena lock. */
static void *malloc_loop(void *arg)
{
	(void)arg;
	size_t size = 2000;
	__atomic_store_n(&looping, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&handled, __ATOMIC_ACQUIRE)) {
		void *p = malloc(size);
		if (p)
			((volatile char *)p)[0] = 1;
		free(p);
		size = size >= 60000 ? 2000 : size + 1000;
	}
	return NULL;
}

/* In the child: the number of rounds whose handler call failed (100: no thread). */
static int first_use_in_handler(void *unused)
{
	(void)unused;
	pthread_key_t keys[KEYS];
	for (int i = 0; i < KEYS; i++)
		pthread_key_create(&keys[i], NULL);
	unsigned char buf[16];
	vdsokit_getrandom(buf, sizeof(buf), 0); /* initialised; this thread's state taken */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	int failures = 0;
	for (int round = 0; round < ROUNDS; round++) {
		__atomic_store_n(&handled, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&looping, 0, __ATOMIC_RELAXED);
		pthread_t t;
		if (pthread_create(&t, NULL, malloc_loop, NULL))
			return 100;
		while (!__atomic_load_n(&looping, __ATOMIC_ACQUIRE))
			sched_yield();
		usleep(200 + round % 7 * 50);
		pthread_kill(t, SIGUSR1);
		pthread_join(t, NULL);
		failures += __atomic_load_n(&handler_result, __ATOMIC_RELAXED) != (int)sizeof(buf);
	}
	return failures > 99 ? 99 : failures;
}

/* ---- handlers racing the calls ---------------------------------------- */

#define RACES 2000
static int racing_done, handler_calls, handler_failures, caller_started;

static void on_usr2(int sig)
{
	(void)sig;
	unsigned char buf[24];
	if (vdsokit_getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		__atomic_fetch_add(&handler_failures, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&handler_calls, 1, __ATOMIC_RELAXED);
}

/* *state: the thread's state (NULL where the kernel has no vDSO getrandom). */
static void *caller(void *state)
{
	unsigned char buf[64];
	vdsokit_getrandom(buf, sizeof(buf), 0);
	*(void **)state = vdsokit_lib_random_thread_state(NULL);
	__atomic_store_n(&caller_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&racing_done, __ATOMIC_ACQUIRE))
		if (vdsokit_getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			__atomic_fetch_add(&handler_failures, 1, __ATOMIC_RELAXED);
	/* Still the state it started with: no handler took another for it. */
	if (vdsokit_lib_random_thread_state(NULL) != *(void **)state)
		__atomic_store_n(&caller_started, 2, __ATOMIC_RELEASE);
	return NULL;
}

/* The process's mapped bytes, from /proc/self/maps. */
static long long mapped_bytes(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	long long total = 0;
	unsigned long start, end;
	char line[512];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2)
			total += (long long)(end - start);
	if (f)
		fclose(f);
	return total;
}

/* 0: one state, nothing mapped for the handlers; 1: another state; 2: mapped; 3: failures. */
static int handlers_race_calls(void *unused)
{
	(void)unused;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR2, &sa, NULL);
	void *state = NULL;
	pthread_t t;
	if (pthread_create(&t, NULL, caller, &state))
		return 4;
	while (!__atomic_load_n(&caller_started, __ATOMIC_ACQUIRE))
		sched_yield();
	long long before = mapped_bytes();
	/* Pending signals merge: send until that many handlers have run (or 10 s, emulated). */
	time_t start = time(NULL);
	while (__atomic_load_n(&handler_calls, __ATOMIC_ACQUIRE) < RACES && time(NULL) - start < 10) {
		pthread_kill(t, SIGUSR2);
		sched_yield();
	}
	long long after = mapped_bytes();
	__atomic_store_n(&racing_done, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	printf("# %d handler calls racing the thread's, %d failed; mapped %lld -> %lld KiB\n",
	       __atomic_load_n(&handler_calls, __ATOMIC_RELAXED),
	       __atomic_load_n(&handler_failures, __ATOMIC_RELAXED), before / 1024, after / 1024);
	if (__atomic_load_n(&handler_failures, __ATOMIC_RELAXED))
		return 3;
	if (__atomic_load_n(&handler_calls, __ATOMIC_RELAXED) < 100)
		return 4; /* too few to say anything */
	if (__atomic_load_n(&caller_started, __ATOMIC_ACQUIRE) != 1)
		return 1;
	return after > before ? 2 : 0;
}

int main(void)
{
	const char *cannot = threads_cannot_wait();
	if (cannot) {
		skip("%d threads' first getrandom in a SIGUSR1 handler: %s", ROUNDS, cannot);
		return done_testing();
	}
	int status = run_in_child(first_use_in_handler, NULL, TIMEOUT_SECONDS);
	if (!child_exited(status))
		ok(0, "%d threads' first getrandom in a SIGUSR1 handler that interrupted malloc: %s",
		   ROUNDS, wait_status_text(status).text);
	else
		ok(WEXITSTATUS(status) == 0,
		   "%d threads' first getrandom in a SIGUSR1 handler that interrupted malloc, %d keys "
		   "in use: no hang, %d failed calls",
		   ROUNDS, KEYS, WEXITSTATUS(status));
	status = run_in_child(handlers_race_calls, NULL, TIMEOUT_SECONDS);
	ok(child_passed(status), "signal handlers racing a thread's calls: every call answered, the "
	   "thread keeps its one state, nothing mapped for the handlers (%s)",
	   wait_status_text(status).text);
	return done_testing();
}
