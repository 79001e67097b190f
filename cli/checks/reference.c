/* SPDX-License-Identifier: MIT */
/*
 * Refused or missing reference syscalls: see reference.h.
 *
 * ENOSYS is ambiguous: a seccomp filter that does not know a syscall
 * returns it, and so does a kernel built without the call (the 32-bit time
 * syscalls on a kernel without CONFIG_COMPAT_32BIT_TIME).  Both leave
 * nothing to compare with; the reason names the likelier one from the
 * process's seccomp mode, and says it cannot tell more.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "checks/reference.h"
#include "host/child.h"

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

bool reference_killed(enum vdsokit_func fn)
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

int reference_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
	return reference_killed(VDSOKIT_FN_CLOCK_GETTIME) ? REFERENCE_KILLED :
	       vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, clock, ts);
}

int reference_clock_getres(clockid_t clock, struct vdsokit_timespec *res)
{
	return reference_killed(VDSOKIT_FN_CLOCK_GETRES) ? REFERENCE_KILLED :
	       vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, clock, res);
}

int reference_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz)
{
	return reference_killed(VDSOKIT_FN_GETTIMEOFDAY) ? REFERENCE_KILLED :
	       vdsokit_gettimeofday_via(VDSOKIT_ROUTE_SYSCALL, tv, tz);
}

int reference_time(int64_t *t)
{
	return reference_killed(VDSOKIT_FN_TIME) ? REFERENCE_KILLED :
	       vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, t);
}

int reference_getcpu(unsigned *cpu, unsigned *node)
{
	return reference_killed(VDSOKIT_FN_GETCPU) ? REFERENCE_KILLED :
	       vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, cpu, node);
}

ssize_t reference_getrandom(void *buf, size_t len, unsigned flags)
{
	return reference_killed(VDSOKIT_FN_GETRANDOM) ? REFERENCE_KILLED :
	       vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, buf, len, flags);
}

bool reference_answered(long result, long *first)
{
	if (result >= 0)
		return true;
	if (!*first)
		*first = result;
	return false;
}

/* The Seccomp: line of /proc/self/status, or -1 when it cannot be read. */
static int seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return -1;
	char line[256];
	int mode = -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			mode = atoi(line + 8);
	fclose(f);
	return mode;
}

const char *reference_why(const char *syscall, long result, char *buf, size_t size)
{
	if (result == REFERENCE_KILLED)
		return reference_why_killed(syscall, buf, size);
	int e = (int)-result;
	if (e != ENOSYS) {
		snprintf(buf, size, "the %s syscall, the reference, is refused here: %s (e.g. by a "
			 "seccomp filter)", syscall, errno_name(e));
		return buf;
	}
	int mode = seccomp_mode();
	snprintf(buf, size, "the %s syscall, the reference, fails here: ENOSYS (%s)", syscall,
		 mode == 2 ? "refused by this process's seccomp filter, or not in this kernel" :
		 mode == 0 ? "not in this kernel: no seccomp filter here" :
		 "refused by a seccomp filter, or not in this kernel");
	return buf;
}

const char *reference_why_killed(const char *syscall, char *buf, size_t size)
{
	snprintf(buf, size, "the %s syscall, the reference, is refused here: the call was killed "
		 "by SIGSYS (a seccomp filter)", syscall);
	return buf;
}
