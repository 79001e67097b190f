/* SPDX-License-Identifier: MIT */
/*
 * Running checks in a time namespace with offsets, entered after the library
 * was initialised: unshare(CLONE_NEWTIME) gives the namespace to children
 * only, so the offsets are written and the checks run in a forked child,
 * whose TAP lines continue the parent's numbering (the child hands its
 * totals back through a pipe).  Needs root; anything missing is a SKIP
 * with the reason.
 */
#ifndef VDSOKIT_TEST_TIMENS_H
#define VDSOKIT_TEST_TIMENS_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define TIMENS_MONOTONIC_OFFSET 864000 /* 10 days: unmistakable, far from any limit */
#define TIMENS_BOOTTIME_OFFSET (2 * TIMENS_MONOTONIC_OFFSET)

/* Runs checks() in a child inside a new time namespace; 0, or -1 after a SKIP. */
static int timens_run(void (*checks)(void))
{
	if (geteuid() != 0) {
		skip("time namespace: needs root (unshare(CLONE_NEWTIME))");
		return -1;
	}
	if (unshare(CLONE_NEWTIME) != 0) {
		skip("time namespace: unshare(CLONE_NEWTIME) failed: %s", strerror(errno));
		return -1;
	}
	char offsets[128];
	snprintf(offsets, sizeof(offsets), "monotonic %d 0\nboottime %d 0\n",
		 TIMENS_MONOTONIC_OFFSET, TIMENS_BOOTTIME_OFFSET);
	int fd = open("/proc/self/timens_offsets", O_WRONLY);
	ssize_t written = fd < 0 ? -1 : write(fd, offsets, strlen(offsets));
	int saved = errno;
	if (fd >= 0)
		close(fd);
	if (written != (ssize_t)strlen(offsets)) {
		skip("time namespace: writing /proc/self/timens_offsets failed: %s", strerror(saved));
		return -1;
	}
	int pipefd[2], tally[2] = { 0, 0 };
	if (pipe(pipefd)) {
		skip("time namespace: pipe failed");
		return -1;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		checks();
		int totals[2] = { tap_count, tap_failed };
		fflush(stdout);
		_exit(write(pipefd[1], totals, sizeof(totals)) == (ssize_t)sizeof(totals) ? 0 : 1);
	}
	close(pipefd[1]);
	ssize_t got = read(pipefd[0], tally, sizeof(tally));
	close(pipefd[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	if (got == (ssize_t)sizeof(tally)) {
		tap_count = tally[0];
		tap_failed = tally[1];
	} else {
		ok(0, "time namespace: the child died (%s %d)", WIFSIGNALED(status) ? "signal" : "exit",
		   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	return 0;
}

#endif
