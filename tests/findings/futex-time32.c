/* SPDX-License-Identifier: MIT */
/*
 * futex-time32: a standalone reproducer for
 * docs/kernel-findings.md#futex-time32.
 *
 * On a kernel built without CONFIG_COMPAT_32BIT_TIME, the syscalls that take
 * a 32-bit time_t answer ENOSYS to 32-bit programs: futex among them (its
 * fourth argument is a timespec).  glibc 2.36's 32-bit ports wait on and
 * wake futexes with that syscall whenever no timeout, or one that fits in
 * 32 bits, is given, so the first lock a thread has to wait for, or a
 * pthread_join of a running thread, ends the process with "The futex
 * facility returned an unexpected error code."
 *
 * It prints, for this process: the kernel, the ABI and the C library; what
 * the futex syscall the C library uses (SYS_futex) and its 64-bit-time
 * sibling (SYS_futex_time64, where the ABI has one) answer to a FUTEX_WAKE
 * nobody waits for; what 32-bit-time clock_gettime and clock_nanosleep
 * answer; how long the C library's nanosleep(10 ms) took; and how a child
 * that runs four threads on one mutex ended.  Then one "result:" line.
 *
 * It documents; it does not judge: the exit status is 0 whatever it finds
 * (2 for a bad argument).  Needs nothing but a C library with threads:
 *   cc -O2 -pthread -o futex-time32 futex-time32.c && ./futex-time32
 * For the 32-bit case on an x86_64 machine:
 *   i686-linux-gnu-gcc-12 -static -O2 -o futex-time32 futex-time32.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

/* linux/futex.h's, here so that a C library without kernel headers builds it. */
#define FUTEX_WAKE_PRIVATE (1 | 128)

#define THREADS 4
#define ROUNDS 2000

/* What a raw syscall answered: "0", or the errno's name for the ones that matter here. */
static const char *answer(long r, int err)
{
	static char buf[32];
	if (r >= 0) {
		snprintf(buf, sizeof(buf), "%ld", r);
		return buf;
	}
	switch (err) {
	case ENOSYS: return "-1 ENOSYS (no such syscall here)";
	case EINVAL: return "-1 EINVAL";
	case EFAULT: return "-1 EFAULT";
	case EPERM: return "-1 EPERM";
	default:
		snprintf(buf, sizeof(buf), "-1 errno %d", err);
		return buf;
	}
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long counter;

static void *contend(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		/* Give the lock's waiters time to pile up. */
		if (i % 16 == 0)
			sched_yield();
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* The child: four threads on one mutex, then joined; 0 when the count is right. */
static int contended_mutex(void)
{
	pthread_t t[THREADS];
	alarm(60);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, contend, NULL) != 0)
			return 3;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return counter == (unsigned long)THREADS * ROUNDS ? 0 : 4;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: futex-time32 (no arguments)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct utsname u;
	if (uname(&u) == 0)
		printf("kernel: Linux %s %s\n", u.release, u.machine);
	printf("abi: %zu-bit pointers, %zu-bit time_t, %zu-bit long\n", sizeof(void *) * 8,
	       sizeof(time_t) * 8, sizeof(long) * 8);
#if defined(__GLIBC__)
	printf("C library: glibc %s\n", gnu_get_libc_version());
#else
	printf("C library: not glibc (musl, or another)\n");
#endif

	/* A FUTEX_WAKE of a word nobody waits on: 0 woken, or why not. */
	uint32_t word = 0;
	int futex_enosys = 0;
#ifdef SYS_futex
	errno = 0;
	long r = syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	futex_enosys = r < 0 && errno == ENOSYS;
#ifdef SYS_futex_time64
	printf("futex (%d, 32-bit time: the one glibc and musl wait with): FUTEX_WAKE -> %s\n",
	       (int)SYS_futex, answer(r, errno));
#else
	/* 64-bit ABIs and x32: the one futex syscall takes 64-bit time. */
	printf("futex (%d, 64-bit time: this ABI's only one): FUTEX_WAKE -> %s\n", (int)SYS_futex,
	       answer(r, errno));
#endif
#endif
#ifdef SYS_futex_time64
	errno = 0;
	r = syscall(SYS_futex_time64, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	printf("futex_time64 (%d): FUTEX_WAKE -> %s\n", (int)SYS_futex_time64, answer(r, errno));
#endif
#if defined(SYS_clock_gettime64) && defined(SYS_clock_gettime)
	/* The two time32 syscalls a program meets most: its clocks and its sleeps. */
	int32_t ts32[2] = { 0, 0 };
	errno = 0;
	r = syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ts32);
	printf("clock_gettime (%d, 32-bit time): -> %s\n", (int)SYS_clock_gettime, answer(r, errno));
#ifdef SYS_clock_nanosleep
	int32_t req32[2] = { 0, 1000000 };
	errno = 0;
	r = syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, req32, NULL);
	printf("clock_nanosleep (%d, 32-bit time), 1 ms: -> %s\n", (int)SYS_clock_nanosleep, answer(r, errno));
#endif
#endif

	/* The C library's own sleep: does it sleep? */
	struct timespec t0, ten_ms = { 0, 10 * 1000 * 1000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	int sr = nanosleep(&ten_ms, NULL);
	int serr = errno;
	printf("nanosleep(10 ms) through the C library: returned %d%s%s after %.1f ms\n", sr,
	       sr ? ", " : "", sr ? (serr == ENOSYS ? "ENOSYS" : strerror(serr)) : "", ms_since(&t0));

	/* Four threads on one mutex, in a child: its end is the answer. */
	printf("contended mutex: %d threads x %d lock/unlock, then joined, in a child process\n", THREADS,
	       ROUNDS);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0)
		_exit(contended_mutex());
	int status = 0;
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	double took = ms_since(&t0);
	const char *ended;
	char how[64];
	if (pid < 0) {
		ended = "not run (fork failed)";
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		snprintf(how, sizeof(how), "finished, count right, in %.0f ms", took);
		ended = how;
	} else if (WIFEXITED(status)) {
		snprintf(how, sizeof(how), "exited %d after %.0f ms", WEXITSTATUS(status), took);
		ended = how;
	} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) {
		snprintf(how, sizeof(how), "killed by SIGABRT after %.0f ms", took);
		ended = how;
	} else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		ended = "still running after 60 s (killed by SIGALRM)";
	} else {
		snprintf(how, sizeof(how), "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : -1);
		ended = how;
	}
	printf("contended mutex: %s\n", ended);

	int died = pid > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (futex_enosys && died)
		printf("result: the futex syscall this C library waits with is missing (ENOSYS): "
		       "threads that wait die (%s)\n", ended);
	else if (futex_enosys)
		printf("result: the futex syscall this C library waits with is missing (ENOSYS), "
		       "yet the threads finished (a C library that spins instead of waiting)\n");
	else if (died)
		printf("result: the futex syscall works here, but the threads did not finish (%s)\n", ended);
	else
		printf("result: the futex syscall this C library waits with works here\n");
	return 0;
}
