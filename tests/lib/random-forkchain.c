// SPDX-License-Identifier: MIT
/*
 * getrandom's states across generations of fork(): each generation runs
 * THREADS threads that hold a state each, then its main thread forks and
 * the child does the same.  A child has one thread, so fork gives the
 * states of the others back: the states' memory (the kernel's wipe-on-fork
 * mappings, "wf" in /proc/self/smaps) is the same in the last generation
 * as in the first.  Before the fork handler it doubled every few
 * generations (32 KiB at the first, 1 MiB at the 35th).
 * SKIP where the vDSO has no getrandom (Linux < 6.11, i386, qemu-user).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "crng-ready.h"
#include "testutil.h"

void *vdsokit_lib_random_thread_state(size_t *len);

#define THREADS 64
#define GENERATIONS 12
#define TIMEOUT_SECONDS 60

enum { PASSED, NO_STATE, GREW, SETUP_FAILED, NOT_MEASURED };

static pthread_barrier_t all_hold, may_exit;

static void *hold_a_state(void *arg)
{
	unsigned char buf[16];
	for (int tries = 0; tries < 100 && !vdsokit_lib_random_thread_state(NULL); tries++)
		vdsokit_getrandom(buf, sizeof(buf), 0);
	*(int *)arg = vdsokit_lib_random_thread_state(NULL) != NULL;
	pthread_barrier_wait(&all_hold);
	pthread_barrier_wait(&may_exit);
	return NULL;
}

/* KiB of this process's wipe-on-fork mappings: the states'. */
static long wipe_on_fork_kib(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	long size = 0, total = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Size: %ld kB", &size) == 1)
			continue;
		if (strncmp(line, "VmFlags:", 8) == 0 && strstr(line, " wf"))
			total += size;
	}
	fclose(f);
	return total;
}

/* One generation: THREADS threads with a state each, then (while they hold them) the states' memory. */
static int generation(long *kib)
{
	pthread_t t[THREADS];
	int got[THREADS];
	if (pthread_barrier_init(&all_hold, NULL, THREADS + 1) || pthread_barrier_init(&may_exit, NULL, THREADS + 1))
		return SETUP_FAILED;
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, hold_a_state, &got[i]))
			return SETUP_FAILED;
	pthread_barrier_wait(&all_hold);
	*kib = wipe_on_fork_kib();
	pthread_barrier_wait(&may_exit);
	int result = PASSED;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		if (!got[i])
			result = NO_STATE;
	}
	pthread_barrier_destroy(&all_hold);
	pthread_barrier_destroy(&may_exit);
	return result;
}

/*
 * Generations, each in a child of the last: the first's memory, then each
 * later one's compared with it.  The threads of a generation are still
 * running when it forks, so the child inherits their states as held.
 */
static int chain(void *unused)
{
	(void)unused;
	long first = 0, now = 0;
	pthread_t t[THREADS];
	int got[THREADS];
	int r = generation(&first);
	if (r != PASSED)
		return r;
	/* A kernel without /proc/self/smaps (PROC_PAGE_MONITOR), or whose states show no "wf": no measure. */
	if (first <= 0)
		return NOT_MEASURED;
	for (int g = 1; g < GENERATIONS; g++) {
		/* Threads holding states at the fork: the child must give theirs back. */
		if (pthread_barrier_init(&all_hold, NULL, THREADS + 1) ||
		    pthread_barrier_init(&may_exit, NULL, THREADS + 1))
			return SETUP_FAILED;
		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&t[i], NULL, hold_a_state, &got[i]))
				return SETUP_FAILED;
		pthread_barrier_wait(&all_hold);
		pid_t pid = fork();
		if (pid < 0)
			return SETUP_FAILED;
		if (pid == 0) {
			r = generation(&now);
			if (r != PASSED)
				_exit(r);
			if (now > first) {
				printf("# generation %d: %ld KiB of states, the first had %ld\n", g, now, first);
				fflush(stdout);
				_exit(GREW);
			}
			continue; /* this child is the next generation's parent */
		}
		pthread_barrier_wait(&may_exit);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		int status;
		if (waitpid(pid, &status, 0) != pid)
			return SETUP_FAILED;
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : SETUP_FAILED);
	}
	return PASSED;
}

static int vdso_serves_getrandom(void *unused)
{
	(void)unused;
	struct vdsokit_route_info p;
	return vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p) == 0 && p.route == VDSOKIT_ROUTE_VDSO ? 0 : 1;
}

int main(void)
{
	static const char *const text[] = {
		[PASSED] = "passed",
		[NO_STATE] = "a thread got no state",
		[GREW] = "the states' memory grew",
		[SETUP_FAILED] = "setup failed (threads or fork)",
		[NOT_MEASURED] = "",
	};
	wait_for_crng_ready();
	if (!child_passed(run_in_child(vdso_serves_getrandom, NULL, TIMEOUT_SECONDS))) {
		printf("1..0 # SKIP no vDSO getrandom here (Linux < 6.11, i386, or no vDSO)\n");
		return 0;
	}
	int status = run_in_child(chain, NULL, TIMEOUT_SECONDS);
	int code = child_exited(status) ? WEXITSTATUS(status) : -1;
	if (code == NOT_MEASURED)
		skip("the states' memory cannot be read here: no /proc/self/smaps (a kernel without "
		     "PROC_PAGE_MONITOR), or no wipe-on-fork mapping shown in it");
	else if (!ok(code == PASSED, "%d generations of fork() with %d threads holding states: the states' memory "
				"stays the first generation's", GENERATIONS, THREADS))
		diag("%s", code >= PASSED && code < NOT_MEASURED ? text[code] : "the chain crashed or hung");
	return done_testing();
}
