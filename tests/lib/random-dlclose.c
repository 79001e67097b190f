// SPDX-License-Identifier: MIT
/*
 * libvdsokit.so under dlopen/dlclose: threads that called vdsokit_getrandom
 * exit after the library is gone (no hook of the library may run then), and
 * many load/call/unload cycles leave the process's pthread keys and its
 * mappings as they were.  Each scenario runs in a child so a crash is a
 * "not ok", not the end of the test.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/types.h>
#include <unistd.h>

#include "../tap.h"
#include "testutil.h"

#ifndef TEST_LIBVDSOKIT_SO
#define TEST_LIBVDSOKIT_SO "libvdsokit.so.0"
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
enum { PASSED, LOAD_FAILED = 2, CALL_FAILED, MAPPINGS_LEAKED, KEY_CREATE_FAILED };

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

/* What a scenario's exit code says went wrong; NULL for PASSED or an unknown code. */
static const char *scenario_failure(int code)
{
	switch (code) {
	case LOAD_FAILED: return "the library did not load";
	case CALL_FAILED: return "a call failed";
	case MAPPINGS_LEAKED: return "mappings leaked";
	case KEY_CREATE_FAILED: return "pthread_key_create failed";
	default: return NULL;
	}
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
	void *probe = dlopen(TEST_LIBVDSOKIT_SO, RTLD_NOW | RTLD_LOCAL);
	if (!probe) {
		skip("%s cannot be loaded here: %s", TEST_LIBVDSOKIT_SO, dlerror());
		return done_testing();
	}
	dlclose(probe);
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
	return done_testing();
}
