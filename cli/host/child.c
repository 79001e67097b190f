/* SPDX-License-Identifier: MIT */
/*
 * Children that die with the tool: see child.h.  Killed by SIGTERM or
 * Ctrl-C, the tool takes its children (abi's sleeper, verify's time
 * namespace helper and the child inside the namespace, the probes) with
 * it through PR_SET_PDEATHSIG.  Where a sandbox refuses that prctl (EPERM)
 * a child lives on after the tool only as long as its own work, which
 * its alarm() bounds where a call may hang (abi's cases, the probes; the
 * parent's own deadline, child_wait_within, holds while the parent
 * lives), and abi's sleeper, which would wait for ever, waits on a pipe
 * instead (see abi.c) that the tool's exit, any exit, closes.
 *
 * The child reports its setup through a pipe, one byte per step done, and
 * child_start returns only once the last byte is read: a child the caller
 * sees has finished its setup, so whatever ends it later ended it in the
 * caller's code.  A setup step killed by a seccomp filter (SIGSYS, no
 * handler can run) is child_start's failure, named by child_start_why.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"   /* beside it: also built without -Icli (tests/tests.mk) */

/* The setup's steps, in order: the byte the child writes once each is done. */
static const char *const setup_steps[] = {
	"prctl(PR_SET_PDEATHSIG)",
	"getppid",
};
#define SETUP_STEPS (sizeof(setup_steps) / sizeof(setup_steps[0]))

static char start_why[160];

const char *child_start_why(void)
{
	return start_why[0] ? start_why : "fork: no reason recorded";
}

static void setup_done(int fd, unsigned char step)
{
	/* A failed write only makes the parent think the setup died: it reports that. */
	if (write(fd, &step, 1) != 1)
		_exit(127);
}

/* Why a child that died in its setup died, after step `last` (0xff: none). */
static void setup_failed(unsigned char last, int status)
{
	unsigned next = last == 0xff ? 0 : last + 1u;
	const char *step = next < SETUP_STEPS ? setup_steps[next] : "its setup";
	char sig[24];
	if (WIFSIGNALED(status))
		snprintf(sig, sizeof(sig), "killed by %s", WTERMSIG(status) == SIGSYS ? "SIGSYS" :
			 strsignal(WTERMSIG(status)));
	else
		snprintf(sig, sizeof(sig), "exit %d", WEXITSTATUS(status));
	snprintf(start_why, sizeof(start_why), "the child process died in its setup, at %s: %s%s",
		 step, sig, WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS ?
		 " (a seccomp filter refuses the syscall)" : "");
}

pid_t child_start(void)
{
	pid_t parent = getpid();
	int fd[2];
	start_why[0] = '\0';
	if (pipe2(fd, O_CLOEXEC) != 0) {
		int e = errno;
		snprintf(start_why, sizeof(start_why), "pipe: %s", strerror(e));
		errno = e;
		return -1;
	}
	fflush(NULL);   /* the child must not write our buffered output again */
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		snprintf(start_why, sizeof(start_why), "fork: %s", strerror(e));
		close(fd[0]);
		close(fd[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		/* Refused (EPERM): the child does not die with us, see above. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		setup_done(fd[1], 0);
		/* The parent died before the signal was armed. */
		if (getppid() != parent)
			_exit(127);
		setup_done(fd[1], 1);
		close(fd[1]);
		return 0;
	}
	close(fd[1]);
	unsigned char step, last = 0xff;
	ssize_t n;
	while ((n = read(fd[0], &step, 1)) == 1 || (n < 0 && errno == EINTR))
		if (n == 1 && (last = step) == SETUP_STEPS - 1)
			break;
	close(fd[0]);
	if (last == SETUP_STEPS - 1)
		return pid;
	int status = 0;
	child_wait(pid, &status);
	setup_failed(last, status);
	errno = ECHILD;
	return -1;
}

int child_wait(pid_t pid, int *status)
{
	int ignored;
	while (waitpid(pid, status ? status : &ignored, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static double monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int child_wait_within(pid_t pid, int *status, double seconds)
{
	double deadline = monotonic_seconds() + seconds;
	long pause_ns = 20000;
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -errno;
		if (monotonic_seconds() >= deadline) {
			int e = child_stop(pid);
			return e ? e : -ETIMEDOUT;
		}
		/* Refused, the sleep returns at once: the loop spins, and still ends. */
		struct timespec nap = { 0, pause_ns };
		nanosleep(&nap, NULL);
		if (pause_ns < 10000000)
			pause_ns *= 2;
	}
}

int child_stop(pid_t pid)
{
	if (pid <= 0)
		return 0;
	if (kill(pid, SIGKILL) != 0) {
		int e = errno;
		/* Gone already, or refused: reap it if it has ended, never wait for it. */
		while (waitpid(pid, NULL, WNOHANG) < 0 && errno == EINTR)
			;
		return e == ESRCH ? 0 : -e;
	}
	return child_wait(pid, NULL);
}
