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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "checks/reference.h"
#include "host/syscall_killed.h"

int reference_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts)
{
	return syscall_killed(VDSOKIT_FN_CLOCK_GETTIME) ? REFERENCE_KILLED :
	       vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, clock, ts);
}

int reference_clock_getres(clockid_t clock, struct vdsokit_timespec *res)
{
	return syscall_killed(VDSOKIT_FN_CLOCK_GETRES) ? REFERENCE_KILLED :
	       vdsokit_clock_getres_via(VDSOKIT_ROUTE_SYSCALL, clock, res);
}

int reference_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz)
{
	return syscall_killed(VDSOKIT_FN_GETTIMEOFDAY) ? REFERENCE_KILLED :
	       vdsokit_gettimeofday_via(VDSOKIT_ROUTE_SYSCALL, tv, tz);
}

int reference_time(int64_t *t)
{
	return syscall_killed(VDSOKIT_FN_TIME) ? REFERENCE_KILLED :
	       vdsokit_time_via(VDSOKIT_ROUTE_SYSCALL, t);
}

int reference_getcpu(unsigned *cpu, unsigned *node)
{
	return syscall_killed(VDSOKIT_FN_GETCPU) ? REFERENCE_KILLED :
	       vdsokit_getcpu_via(VDSOKIT_ROUTE_SYSCALL, cpu, node);
}

ssize_t reference_getrandom(void *buf, size_t len, unsigned flags)
{
	return syscall_killed(VDSOKIT_FN_GETRANDOM) ? REFERENCE_KILLED :
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
