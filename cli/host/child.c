/* SPDX-License-Identifier: MIT */
/*
 * Children that die with the tool: see child.h.  Killed by SIGTERM or
 * Ctrl-C, the tool takes its children (abi's sleeper, verify's time
 * namespace helper and the child inside the namespace, the probes) with
 * it through PR_SET_PDEATHSIG; none runs on for seconds unwatched.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"   /* beside it: also built without -Icli (tests/tests.mk) */

pid_t child_start(void)
{
	pid_t parent = getpid();
	fflush(NULL);   /* the child must not write our buffered output again */
	pid_t pid = fork();
	if (pid == 0) {
		/* Refused (a seccomp filter): the child still ends by itself, just not with us. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		/* The parent died before the signal was armed. */
		if (getppid() != parent)
			_exit(127);
	}
	return pid;
}

int child_wait(pid_t pid, int *status)
{
	int ignored;
	while (waitpid(pid, status ? status : &ignored, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
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
