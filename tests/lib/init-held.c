// SPDX-License-Identifier: MIT
/*
 * Initialisation that never waits: threads are held inside the library's
 * first call (this program's getauxval, which the library calls to find
 * the vDSO, blocks them there), and meanwhile
 *   - vdsokit_init() in another thread returns at once, with the verdict;
 *   - a forked child (its parent's initialising threads do not exist in
 *     it) is on the vDSO route after its first call.
 * Each scenario runs in a fresh child under alarm(): a wait is a hang.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

#define HOLDERS 4
#define TIMEOUT_SECONDS 10

/* ---- getauxval, interposed ------------------------------------------ */

/* The process's auxiliary vector, read before any thread starts. */
static unsigned long auxv[2 * 64];

__attribute__((constructor(101))) static void read_auxv(void)
{
	FILE *f = fopen("/proc/self/auxv", "re");
	if (!f)
		return;
	size_t n = fread(auxv, sizeof(auxv[0]), sizeof(auxv) / sizeof(auxv[0]) - 2, f);
	fclose(f);
	auxv[n & ~(size_t)1] = 0; /* AT_NULL */
}

static __thread int is_holder;
static int hold = 1;     /* atomic: holders stay inside getauxval while set */
static int held, passed; /* atomic: holders inside, holders whose call returned */

unsigned long getauxval(unsigned long type)
{
	if (type == AT_SYSINFO_EHDR && is_holder) {
		__atomic_fetch_add(&held, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE))
			usleep(1000);
	}
	for (size_t i = 0; auxv[i] != 0; i += 2)
		if (auxv[i] == type)
			return auxv[i + 1];
	return 0;
}

/* ---------------------------------------------------------------------- */

static void *holder(void *unused)
{
	(void)unused;
	is_holder = 1;
	struct vdsokit_timespec ts;
	vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	__atomic_fetch_add(&passed, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Starts the holders; returns once each is held inside the library or has gone past it. */
static int start_holders(void)
{
	pthread_t t;
	for (int i = 0; i < HOLDERS; i++)
		if (pthread_create(&t, NULL, holder, NULL))
			return -1;
	while (__atomic_load_n(&held, __ATOMIC_ACQUIRE) == 0 ||
	       __atomic_load_n(&held, __ATOMIC_ACQUIRE) + __atomic_load_n(&passed, __ATOMIC_ACQUIRE) <
		       HOLDERS)
		usleep(1000);
	return 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* 0: vdsokit_init() answered 0 within a second; 1: its answer was not 0; 2: it took longer. */
static int init_does_not_wait(void *unused)
{
	(void)unused;
	if (start_holders())
		return 3;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = vdsokit_init();
	double took = seconds_since(&t0);
	printf("# vdsokit_init() with %d thread(s) held inside initialisation: %d after %.3f s\n",
	       __atomic_load_n(&held, __ATOMIC_ACQUIRE), r, took);
	return r != 0 ? 1 : took > 1.0 ? 2 : 0;
}

/* 0: the child's first call made it ready, on the vDSO route; 1: not ready; 2: not the vDSO. */
static int child_after_fork(void *unused)
{
	(void)unused;
	struct vdsokit_timespec ts;
	if (vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts))
		return 3;
	if (!vdsokit_process_image())
		return 1;
	/*
	 * A coarse clock: the vDSO answers it from its data page on every
	 * machine.  CLOCK_MONOTONIC goes to the syscall where the clocksource
	 * has no user-space read (m68k's q800), whatever the initialisation.
	 */
	struct vdsokit_route_info p;
	if (vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC_COARSE, &p) ||
	    p.route != VDSOKIT_ROUTE_VDSO)
		return 2;
	return 0;
}

static int fork_while_held(void *unused)
{
	(void)unused;
	if (start_holders())
		return 3;
	int status = run_in_child(child_after_fork, NULL, TIMEOUT_SECONDS / 2);
	if (!child_exited(status)) {
		printf("# the child: %s\n", wait_status_text(status).text);
		return 4;
	}
	return WEXITSTATUS(status);
}

int main(void)
{
	struct vdsokit_timespec ts;
	if (!getauxval(AT_SYSINFO_EHDR)) {
		printf("1..0 # SKIP no vDSO in this process: no initialisation to hold\n");
		return 0;
	}
	/* Nothing of the library runs here before the scenarios: each child starts uninitialised. */
	int status = run_in_child(init_does_not_wait, NULL, TIMEOUT_SECONDS);
	ok(child_passed(status),
	   "vdsokit_init() while threads are held inside initialisation returns 0 at once (%s)",
	   wait_status_text(status).text);
	status = run_in_child(fork_while_held, NULL, TIMEOUT_SECONDS);
	ok(child_passed(status),
	   "fork() while threads are held inside initialisation: the child is ready, on the vDSO, "
	   "after one call (%s)",
	   wait_status_text(status).text);
	/* The interposed getauxval serves the library as the libc's would. */
	ok(vdsokit_init() == 0 && vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts) == 0,
	   "without holders, the library initialises through the interposed getauxval");
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
