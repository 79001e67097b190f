// SPDX-License-Identifier: MIT
/*
 * How getrandom's pool of states grows:
 *   - while mmap fails (RLIMIT_AS), calls take the syscall and the pool does
 *     not grow its next block's size: once mmap works again, the thread and
 *     a new one get states (blocks were numbered per attempt: after 31
 *     failures no thread ever got a state again);
 *   - many threads' first calls at once map one block at a time: the address
 *     space grows by a few pages, not 2^threads of them (each thread that
 *     found the list empty mapped a block twice the last).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "vdsokit.h"
#include "../tap.h"
#include "crng-ready.h"
#include "testutil.h"

void *vdsokit_lib_random_thread_state(size_t *len);

#define FAILED_CALLS 40
#define RACERS 24
#define RACES 30

static void *state_of_new_thread(void *unused)
{
	(void)unused;
	unsigned char buf[16];
	for (int tries = 0; tries < 100 && !vdsokit_lib_random_thread_state(NULL); tries++)
		vdsokit_getrandom(buf, sizeof(buf), 0);
	return vdsokit_lib_random_thread_state(NULL);
}

/* 0: states after mmap failed 40 times; 1: none for this thread; 2: none for a new one; 3: setup. */
static int after_failed_mmaps(void *unused)
{
	(void)unused;
	unsigned char buf[16];
	struct rlimit old, none = { 0, 0 };
	if (getrlimit(RLIMIT_AS, &old))
		return 3;
	none.rlim_max = old.rlim_max;
	if (setrlimit(RLIMIT_AS, &none))
		return 3;
	for (int i = 0; i < FAILED_CALLS; i++)
		if (vdsokit_getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			return 3;
	if (setrlimit(RLIMIT_AS, &old))
		return 3;
	if (vdsokit_lib_random_thread_state(NULL))
		return 3; /* mmap did not fail: nothing tested */
	if (!state_of_new_thread(NULL))
		return 1;
	pthread_t t;
	void *theirs = NULL;
	if (pthread_create(&t, NULL, state_of_new_thread, NULL) || pthread_join(t, &theirs))
		return 3;
	return theirs ? 0 : 2;
}

static pthread_barrier_t start;

static void *racer(void *unused)
{
	(void)unused;
	unsigned char buf[16];
	pthread_barrier_wait(&start);
	vdsokit_getrandom(buf, sizeof(buf), 0);
	return NULL;
}

static long vm_size_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}

/* In a fresh child: the address space's growth over 24 first calls at once, in KiB (capped). */
static int racing_first_calls(void *unused)
{
	(void)unused;
	pthread_t t[RACERS];
	pthread_barrier_init(&start, NULL, RACERS);
	unsigned char buf[16];
	vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, buf, sizeof(buf), 0);
	long before = vm_size_kib();
	pthread_attr_t small; /* glibc caches up to 40 MiB of joined threads' stacks */
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 128 * 1024);
	for (int i = 0; i < RACERS; i++)
		if (pthread_create(&t[i], &small, racer, NULL))
			return 255;
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	long grew = (vm_size_kib() - before) / 1024; /* MiB; thread stacks are freed */
	return grew < 0 ? 0 : grew > 254 ? 254 : (int)grew;
}

int main(void)
{
	struct vdsokit_route_info info;
	if (vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &info) || info.route != VDSOKIT_ROUTE_VDSO) {
		skip("getrandom's pool of states: getrandom is not on the vDSO here");
		return done_testing();
	}
	wait_for_crng_ready();
	int status = run_in_child(after_failed_mmaps, NULL, 30);
	if (child_exited(status) && WEXITSTATUS(status) == 3)
		skip("%d calls while mmap fails: RLIMIT_AS could not make it fail", FAILED_CALLS);
	else
		ok(child_passed(status), "%d calls while mmap fails, then mmap works: this thread and a "
		   "new one get states (%s)", FAILED_CALLS, wait_status_text(status).text);

	int worst = 0, runs = 0;
	for (int i = 0; i < RACES; i++) {
		status = run_in_child(racing_first_calls, NULL, 30);
		if (!child_exited(status) || WEXITSTATUS(status) == 255)
			break;
		runs++;
		if (WEXITSTATUS(status) > worst)
			worst = WEXITSTATUS(status);
	}
	ok(runs == RACES && worst < 16, "%d threads' first calls at once, %d times: the address space "
	   "grew at most %d MiB (one block of states mapped at a time)", RACERS, runs, worst);
	return done_testing();
}
