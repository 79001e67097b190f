/* SPDX-License-Identifier: MIT */
/*
 * See syscall_killed.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vdsokit.h"
#include "host/child.h"
#include "host/syscall_killed.h"

/* The syscalls probed, in the order the probe child makes them. */
static const enum vdsokit_func probed[] = {
	VDSOKIT_FN_CLOCK_GETTIME, VDSOKIT_FN_CLOCK_GETRES, VDSOKIT_FN_GETTIMEOFDAY,
	VDSOKIT_FN_TIME, VDSOKIT_FN_GETCPU, VDSOKIT_FN_GETRANDOM,
};
#define PROBED (sizeof(probed) / sizeof(probed[0]))

static void probe_call(enum vdsokit_func fn)
{
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	unsigned cpu, node;
	unsigned char buf[16];
	switch (fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &ts);
		break;
	case VDSOKIT_FN_CLOCK_GETRES:
		vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_REALTIME, &ts);
		break;
	case VDSOKIT_FN_GETTIMEOFDAY: vdsokit_gettimeofday_via(VDSOKIT_ROUTE_SYSCALL, &tv, NULL); break;
	case VDSOKIT_FN_TIME: vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, &t); break;
	case VDSOKIT_FN_GETCPU: vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, &cpu, &node); break;
	case VDSOKIT_FN_GETRANDOM:
		vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, buf, sizeof(buf), 0);
		break;
	default:
		break;
	}
}

/*
 * A child makes the syscalls from probed[first] on, writing each one's
 * index before the call: killed by SIGSYS, the last index read is the
 * killed one, and the next child goes on after it.  A plain fork: the child
 * lives for a few syscalls, and child_start's own setup (prctl) may be what
 * a filter kills.  A probe that cannot run says nothing is killed: the
 * calls are then made, as before there was a probe.
 */
static void probe_all(bool killed[VDSOKIT_FN_COUNT])
{
	unsigned first = 0;
	while (first < PROBED) {
		int fd[2];
		if (pipe2(fd, O_CLOEXEC) != 0)
			return;
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			close(fd[0]);
			close(fd[1]);
			return;
		}
		if (pid == 0) {
			close(fd[0]);
			for (unsigned char i = (unsigned char)first; i < PROBED; i++) {
				if (write(fd[1], &i, 1) != 1)
					_exit(1);
				probe_call(probed[i]);
			}
			_exit(0);
		}
		close(fd[1]);
		unsigned char step, last = 0xff;
		ssize_t n;
		while ((n = read(fd[0], &step, 1)) == 1 || (n < 0 && errno == EINTR))
			if (n == 1)
				last = step;
		close(fd[0]);
		int status;
		if (child_wait(pid, &status) != 0 || !WIFSIGNALED(status) ||
		    WTERMSIG(status) != SIGSYS || last >= PROBED)
			return;
		killed[probed[last]] = true;
		first = last + 1u;
	}
}

bool syscall_killed(enum vdsokit_func fn)
{
	static bool killed[VDSOKIT_FN_COUNT];
	static int state;   /* 0: not probed, 1: probing, 2: probed */
	/*
	 * verify's threads may make the first reference call.  No
	 * pthread_once: its wait is a futex, which a sandbox may refuse (and
	 * glibc aborts then); the others yield until the probe is done.
	 */
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2) {
		int expected = 0;
		if (__atomic_compare_exchange_n(&state, &expected, 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			probe_all(killed);
			__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
		} else {
			while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
				sched_yield();
		}
	}
	return (unsigned)fn < VDSOKIT_FN_COUNT && killed[fn];
}
