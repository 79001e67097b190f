// SPDX-License-Identifier: MIT
/*
 * A thread's first vdsokit_getrandom inside a signal handler that
 * interrupted malloc: async-signal-safe means no allocation and no lock on
 * that path.  40 pthread keys are created first, so that anything the
 * library might store per key lands in the libc's allocated second level.
 * A hang is a failure: the scenario runs in a child under alarm().
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

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
	return done_testing();
}
