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
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"

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

/* In the child: 0 when all went well, else a code saying what did not. */
static int threads_outlive_library(void)
{
	void *h = open_library(&lib_getrandom);
	if (!lib_getrandom)
		return 2;
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
			return 3;
	return 0;
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

static int cycles_leave_nothing(void)
{
	long long before = 0;
	for (int i = 0; i < CYCLES; i++) {
		getrandom_fn fn;
		void *h = open_library(&fn);
		if (!fn)
			return 2;
		unsigned char buf[16];
		if (fn(buf, sizeof(buf), 0) != 16)
			return 3;
		dlclose(h);
		if (i == 9) /* after the loader's own first-time allocations */
			before = mapped_bytes();
	}
	long long after = mapped_bytes();
	printf("# %d cycles: %lld KiB mapped after 10, %lld KiB after all\n", CYCLES, before / 1024,
	       after / 1024);
	/*
	 * A page of states left per cycle would be 4 MiB or more by now.  Under
	 * ASan its own allocator grows by megabytes over these dlopens: only
	 * the pthread keys are checked there.
	 */
	if (!UNDER_ASAN && after - before > (long long)CYCLES * 4096 / 4)
		return 4;
	pthread_key_t key;
	if (pthread_key_create(&key, NULL) != 0)
		return 5;
	return 0;
}

static void run_in_child(int (*scenario)(void), const char *what)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		alarm(60);
		int code = scenario();
		fflush(stdout); /* its diagnostics */
		_exit(code);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	static const char *const why[] = { "", "", "the library did not load", "a call failed",
					   "mappings leaked", "pthread_key_create failed" };
	if (WIFSIGNALED(status))
		ok(0, "%s: killed by signal %d (%s)", what, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		ok(WEXITSTATUS(status) == 0, "%s%s%s", what, WEXITSTATUS(status) ? ": " : "",
		   WEXITSTATUS(status) < 6 ? why[WEXITSTATUS(status)] : "unknown failure");
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
	run_in_child(threads_outlive_library,
		     "4 threads call getrandom, dlclose, then they exit: no crash");
	run_in_child(cycles_leave_nothing,
		     "1100 dlopen/getrandom/dlclose cycles: no mapping leaked, pthread keys left");
	return done_testing();
}
