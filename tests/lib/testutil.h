/* SPDX-License-Identifier: MIT */
/*
 * What the C tests share beyond TAP (tests/tap.h): a scenario run in a
 * forked child, so that its crash or hang is a "not ok" and not the end of
 * the test; how a child ended, in words; the reference values the library
 * is compared with (getcpu(2) itself, a timespec in nanoseconds); and a
 * writable copy of the process's vDSO, an image to give vdsokit_use_image().
 * Header-only, like tap.h: every test is one translation unit.
 */
#ifndef VDSOKIT_TEST_TESTUTIL_H
#define VDSOKIT_TEST_TESTUTIL_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* run_in_child()'s answer when no wait status exists: fork() or waitpid() failed. */
#define CHILD_NO_STATUS (-1)

/*
 * Runs fn(arg) in a forked child that exits with fn's return value (0 for
 * "passed", by convention); with timeout_seconds > 0, a child still running
 * then is killed by SIGALRM.  Returns the child's wait status, or
 * CHILD_NO_STATUS.  stdout is flushed on both sides of the fork, so that no
 * buffered line is printed twice and none of the child's is lost.
 */
__attribute__((unused)) static int run_in_child(int (*fn)(void *), void *arg, unsigned timeout_seconds)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return CHILD_NO_STATUS;
	if (pid == 0) {
		alarm(timeout_seconds);
		int code = fn(arg);
		fflush(stdout);
		_exit(code);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return CHILD_NO_STATUS;
	return status;
}

/* The child exited 0. */
__attribute__((unused)) static int child_passed(int status)
{
	return status != CHILD_NO_STATUS && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The child exited (with any code): it neither crashed nor hung. */
__attribute__((unused)) static int child_exited(int status)
{
	return status != CHILD_NO_STATUS && WIFEXITED(status);
}

/*
 * The name of the signals a test's child may die of.  Not sigabbrev_np():
 * musl, which the tests are built with too, has none.
 */
__attribute__((unused)) static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGABRT: return "SIGABRT";
	case SIGALRM: return "SIGALRM";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGINT: return "SIGINT";
	case SIGKILL: return "SIGKILL";
	case SIGPIPE: return "SIGPIPE";
	case SIGQUIT: return "SIGQUIT";
	case SIGSEGV: return "SIGSEGV";
	case SIGSYS: return "SIGSYS";
	case SIGTERM: return "SIGTERM";
	case SIGTRAP: return "SIGTRAP";
	case SIGUSR1: return "SIGUSR1";
	case SIGUSR2: return "SIGUSR2";
	default: return NULL;
	}
}

/* Returned by value: wait_status_text(s).text lives to the end of the full expression. */
struct wait_status_text {
	char text[96];
};

/*
 * How a child ended, in words: "exited 0", "exited 3", "killed by SIGSEGV",
 * "killed by SIGALRM (still running at its timeout: a hang)", "killed by
 * signal 40", "no status (fork or waitpid failed)".
 */
__attribute__((unused)) static struct wait_status_text wait_status_text(int status)
{
	struct wait_status_text t;
	const char *name;
	if (status == CHILD_NO_STATUS)
		snprintf(t.text, sizeof(t.text), "no status (fork or waitpid failed)");
	else if (WIFEXITED(status))
		snprintf(t.text, sizeof(t.text), "exited %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(t.text, sizeof(t.text), "killed by SIGALRM (still running at its timeout: a hang)");
	else if (WIFSIGNALED(status) && (name = signal_name(WTERMSIG(status))) != NULL)
		snprintf(t.text, sizeof(t.text), "killed by %s", name);
	else if (WIFSIGNALED(status))
		snprintf(t.text, sizeof(t.text), "killed by signal %d", WTERMSIG(status));
	else
		snprintf(t.text, sizeof(t.text), "wait status %#x", (unsigned)status);
	return t;
}

/* getcpu(2) itself, what the library is compared with: 0 or -errno. */
__attribute__((unused)) static int sys_getcpu(unsigned *cpu, unsigned *node)
{
	return syscall(SYS_getcpu, cpu, node, NULL) ? -errno : 0;
}

/*
 * Why this C library's threads cannot wait here, or NULL when they can.
 * glibc's 32-bit ports (2.36; its master of January 2026 too) wait on and
 * wake futexes with the futex syscall that takes 32-bit time (SYS_futex
 * there; futex_time64 is another number), which a kernel built without
 * CONFIG_COMPAT_32BIT_TIME does not have: ENOSYS, and glibc ends the
 * process ("The futex facility returned an unexpected error code.") at
 * the first lock a thread has to wait for, or the first join of a thread
 * still running.  A FUTEX_WAKE (1) of a private (128) word nobody waits on
 * asks without blocking.  Where SYS_futex takes 64-bit time (64-bit ABIs,
 * x32) it is always there.
 */
__attribute__((unused)) static const char *threads_cannot_wait(void)
{
#ifdef SYS_futex
	unsigned word = 0;
	if (syscall(SYS_futex, &word, 1 | 128, 1, NULL, NULL, 0) < 0 && errno == ENOSYS)
		return "this kernel has no futex syscall with 32-bit time (CONFIG_COMPAT_32BIT_TIME off), "
		       "which this C library waits with: a waiting thread would abort the test "
		       "(docs/kernel-findings.md#futex-time32)";
#endif
	return NULL;
}

__attribute__((unused)) static long long ns_of(long long sec, long long nsec)
{
	return sec * 1000000000LL + nsec;
}

/* Any struct with tv_sec and tv_nsec (vdsokit_timespec, a 32-bit-time one) in nanoseconds. */
#define timespec_ns(ts) ns_of((ts).tv_sec, (ts).tv_nsec)

/*
 * A copy of this process's vDSO ([vdso] in /proc/self/maps) in writable
 * memory: NULL if there is none.  Its code cannot be called (it would read
 * the kernel's data at the wrong address), only parsed.
 */
__attribute__((unused)) static void *vdso_copy(size_t *size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[256];
	unsigned long lo = 0, hi = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	if (f)
		fclose(f);
	if (!lo || hi <= lo)
		return NULL;
	*size = hi - lo;
	void *copy = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return NULL;
	memcpy(copy, (void *)lo, *size);
	return copy;
}

#endif
