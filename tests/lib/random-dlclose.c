// SPDX-License-Identifier: MIT
/*
 * libvdsokit.so under dlopen/dlclose.  It is linked -z nodelete, so dlclose
 * never unloads it: threads that called vdsokit_getrandom exit after the
 * handle is closed (their exit hooks run), and many load/call/close cycles,
 * with threads that hold states across the close or without, leave the
 * process's mappings as they were after the first.  Loaded after the
 * program made 40 pthread keys, where glibc's pthread_setspecific would
 * allocate for the library's key, getrandom takes the syscall: a thread's
 * first call in a signal handler that interrupted malloc cannot deadlock.
 * Each scenario runs in a child so a crash is a "not ok", not the end of
 * the test.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/types.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

#ifndef TEST_LIBVDSOKIT_SO
#define TEST_LIBVDSOKIT_SO "libvdsokit.so.1"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

#define THREADS 4
#define CYCLES 1100
#define CHILD_TIMEOUT_SECONDS 60

/* The scenarios' exit codes: what did not go well. */
enum { PASSED, LOAD_FAILED = 2, CALL_FAILED, MAPPINGS_LEAKED, KEY_CREATE_FAILED, WRONG_ROUTE, HUNG_IN_HANDLER };

typedef ssize_t (*getrandom_fn)(void *, size_t, unsigned);

static pthread_barrier_t called, unloaded;
static getrandom_fn lib_getrandom;

static void *caller(void *arg)
{
	unsigned char buf[16];
	*(ssize_t *)arg = lib_getrandom(buf, sizeof(buf), 0);
	pthread_barrier_wait(&called);
	pthread_barrier_wait(&unloaded); /* exit only once the library is gone */
	return NULL;
}

static void *open_library(getrandom_fn *fn)
{
	void *h = dlopen(TEST_LIBVDSOKIT_SO, RTLD_NOW | RTLD_LOCAL);
	*fn = h ? (getrandom_fn)dlsym(h, "vdsokit_getrandom") : NULL;
	return h;
}

/* In the child: PASSED, or what did not go well. */
static int threads_outlive_library(void *unused)
{
	(void)unused;
	void *h = open_library(&lib_getrandom);
	if (!lib_getrandom)
		return LOAD_FAILED;
	pthread_barrier_init(&called, NULL, THREADS + 1);
	pthread_barrier_init(&unloaded, NULL, THREADS + 1);
	pthread_t th[THREADS];
	ssize_t got[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, caller, &got[i]);
	pthread_barrier_wait(&called);
	dlclose(h);
	pthread_barrier_wait(&unloaded);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < THREADS; i++)
		if (got[i] != 16)
			return CALL_FAILED;
	return PASSED;
}

/* The process's mapped bytes, from /proc/self/maps: merged mappings still add up. */
static long long mapped_bytes(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	long long total = 0;
	unsigned long start, end;
	char line[512];
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2)
			total += (long long)(end - start);
	fclose(f);
	return total;
}

static int cycles_leave_nothing(void *unused)
{
	(void)unused;
	long long before = 0;
	for (int i = 0; i < CYCLES; i++) {
		getrandom_fn fn;
		void *h = open_library(&fn);
		if (!fn)
			return LOAD_FAILED;
		unsigned char buf[16];
		if (fn(buf, sizeof(buf), 0) != 16)
			return CALL_FAILED;
		dlclose(h);
		if (i == 9) /* after the loader's own first-time allocations */
			before = mapped_bytes();
	}
	long long after = mapped_bytes();
	printf("# %d cycles: %lld KiB mapped after 10, %lld KiB after all\n", CYCLES, before / 1024,
	       after / 1024);
	/* A page of states left per cycle would be 4 MiB or more by now. */
	if (!UNDER_ASAN && after - before > (long long)CYCLES * 4096 / 4)
		return MAPPINGS_LEAKED;
	pthread_key_t key;
	if (pthread_key_create(&key, NULL) != 0)
		return KEY_CREATE_FAILED;
	return PASSED;
}

/* Cycles whose threads hold states across the close, then exit: memory stays flat. */
static int cycles_with_holders(void *unused)
{
	(void)unused;
	long long before = 0;
	enum { HOLDER_CYCLES = 200 };
	for (int i = 0; i < HOLDER_CYCLES; i++) {
		void *h = open_library(&lib_getrandom);
		if (!lib_getrandom)
			return LOAD_FAILED;
		pthread_barrier_init(&called, NULL, THREADS + 1);
		pthread_barrier_init(&unloaded, NULL, THREADS + 1);
		pthread_t th[THREADS];
		ssize_t got[THREADS];
		for (int k = 0; k < THREADS; k++)
			pthread_create(&th[k], NULL, caller, &got[k]);
		pthread_barrier_wait(&called);
		dlclose(h);
		pthread_barrier_wait(&unloaded);
		for (int k = 0; k < THREADS; k++)
			pthread_join(th[k], NULL);
		pthread_barrier_destroy(&called);
		pthread_barrier_destroy(&unloaded);
		for (int k = 0; k < THREADS; k++)
			if (got[k] != 16)
				return CALL_FAILED;
		if (i == 9)
			before = mapped_bytes();
	}
	long long after = mapped_bytes();
	printf("# %d cycles, %d threads holding states across each close: %lld KiB mapped after 10, "
	       "%lld KiB after all\n", HOLDER_CYCLES, THREADS, before / 1024, after / 1024);
	if (!UNDER_ASAN && after - before > 64 * 1024)
		return MAPPINGS_LEAKED;
	return PASSED;
}

/* ---- loaded after 40 pthread keys --------------------------------------- */

#define SPINNERS 32
static volatile int stop_spinning;
static int handled; /* atomic */

static void on_usr1(int sig)
{
	(void)sig;
	unsigned char buf[16];
	if (lib_getrandom(buf, sizeof(buf), 0) == 16)
		__atomic_fetch_add(&handled, 1, __ATOMIC_RELEASE);
}

/* In malloc most of the time: a signal lands there. */
static void *spinner(void *unused)
{
	(void)unused;
	while (!stop_spinning) {
		void *p = malloc(64 + (size_t)(rand() & 1023));
		free(p);
	}
	return NULL;
}

static int loaded_after_many_keys(void *unused)
{
	(void)unused;
	pthread_key_t keys[40];
	for (int i = 0; i < 40; i++)
		if (pthread_key_create(&keys[i], NULL) != 0)
			return KEY_CREATE_FAILED;
	void *h = open_library(&lib_getrandom);
	if (!lib_getrandom)
		return LOAD_FAILED;
	int (*route_of)(enum vdsokit_func, clockid_t, struct vdsokit_route_info *) =
		(int (*)(enum vdsokit_func, clockid_t, struct vdsokit_route_info *))dlsym(h, "vdsokit_route_of");
	struct vdsokit_route_info info;
	if (!route_of || route_of(VDSOKIT_FN_GETRANDOM, 0, &info) != 0)
		return LOAD_FAILED;
	printf("# loaded after 40 keys: getrandom by %s (reason %d)\n",
	       info.route == VDSOKIT_ROUTE_VDSO ? "the vDSO" : "the syscall", (int)info.reason);
	/* Where the vDSO has getrandom: the syscall, for the reason that says why. */
	if (info.route == VDSOKIT_ROUTE_VDSO ||
	    (info.route == VDSOKIT_ROUTE_SYSCALL && info.reason != VDSOKIT_REASON_NO_EXIT_HOOK &&
	     info.reason != VDSOKIT_REASON_SYMBOL_ABSENT && info.reason != VDSOKIT_REASON_NO_VDSO &&
	     info.reason != VDSOKIT_REASON_NOT_ON_ARCH))
		return WRONG_ROUTE;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t th[SPINNERS];
	for (int i = 0; i < SPINNERS; i++)
		pthread_create(&th[i], NULL, spinner, NULL);
	usleep(10000);
	/* Each thread's first getrandom, in a handler that most likely interrupted malloc. */
	for (int i = 0; i < SPINNERS; i++)
		pthread_kill(th[i], SIGUSR1);
	for (int waited = 0; __atomic_load_n(&handled, __ATOMIC_ACQUIRE) < SPINNERS; waited++) {
		if (waited > 1000)
			return HUNG_IN_HANDLER; /* 10 s: a handler is stuck (calloc's lock) */
		usleep(10000);
	}
	stop_spinning = 1;
	for (int i = 0; i < SPINNERS; i++)
		pthread_join(th[i], NULL);
	return PASSED;
}

/* What a scenario's exit code says went wrong; NULL for PASSED or an unknown code. */
static const char *scenario_failure(int code)
{
	switch (code) {
	case LOAD_FAILED: return "the library did not load";
	case CALL_FAILED: return "a call failed";
	case MAPPINGS_LEAKED: return "mappings leaked";
	case KEY_CREATE_FAILED: return "pthread_key_create failed";
	case WRONG_ROUTE: return "getrandom's route is the vDSO, or the syscall for another reason";
	case HUNG_IN_HANDLER: return "a thread's first getrandom in a signal handler never returned";
	default: return NULL;
	}
}

static int loads(void *unused)
{
	(void)unused;
	void *h = dlopen(TEST_LIBVDSOKIT_SO, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		printf("# %s\n", dlerror());
	return h ? PASSED : LOAD_FAILED;
}

/* One check: scenario in a child, which passes only by exiting PASSED. */
static void check_in_child(int (*scenario)(void *), const char *what)
{
	int status = run_in_child(scenario, NULL, CHILD_TIMEOUT_SECONDS);
	const char *why = child_exited(status) ? scenario_failure(WEXITSTATUS(status)) : NULL;
	if (child_passed(status))
		ok(1, "%s", what);
	else
		ok(0, "%s: %s", what, why ? why : wait_status_text(status).text);
}

int main(void)
{
	if (getauxval(AT_BASE) == 0) {
		skip("statically linked: no dlopen of libvdsokit.so");
		return done_testing();
	}
	/* Not here: the library, never unloaded, would stay in every child. */
	int status = run_in_child(loads, NULL, CHILD_TIMEOUT_SECONDS);
	if (!child_passed(status)) {
		skip("%s cannot be loaded here", TEST_LIBVDSOKIT_SO);
		return done_testing();
	}
	check_in_child(threads_outlive_library,
		       "4 threads call getrandom, dlclose, then they exit: no crash");
	if (UNDER_ASAN) {
		/* ASan's own allocator grows by megabytes over these dlopens. */
		check_in_child(cycles_leave_nothing,
			       "1100 dlopen/getrandom/dlclose cycles: no crash, pthread keys left");
		skip("1100 dlopen/getrandom/dlclose cycles leak no mapping: not measurable under "
		     "ASan, whose allocator grows by megabytes over the cycles");
	} else {
		check_in_child(cycles_leave_nothing,
			       "1100 dlopen/getrandom/dlclose cycles: no mapping leaked, pthread keys left");
	}
	check_in_child(cycles_with_holders,
		       "200 cycles whose 4 threads hold states across dlclose: memory stays flat");
	check_in_child(loaded_after_many_keys,
		       "loaded after 40 pthread keys: getrandom takes the syscall (no exit hook that "
		       "never allocates), and 32 threads' first calls, in handlers that interrupt "
		       "malloc, all return");
	return done_testing();
}
