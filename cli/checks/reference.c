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
#include <sys/wait.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "checks/reference.h"

bool reference_refused(long result)
{
	return result == -EPERM || result == -EACCES || result == -ENOSYS;
}

bool reference_answered(long result, long *first)
{
	if (result >= 0)
		return true;
	if (!*first)
		*first = result;
	return false;
}

bool reference_child_refused(int wait_status)
{
	return WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGSYS;
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
