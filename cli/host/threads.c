/* SPDX-License-Identifier: MIT */
/*
 * See threads.h.  A FUTEX_WAKE of a private word nobody waits on asks the
 * kernel without blocking; the syscall is the one the C library waits
 * with (SYS_futex: 32-bit time on 32-bit ABIs, tests/findings/futex-time32.c
 * reproduces the abort).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "host/threads.h"

#define FUTEX_WAKE_PRIVATE (1 | 128)

const char *threads_cannot_wait(void)
{
#ifdef SYS_futex
	static char why[400];
	unsigned word = 0;
	if (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) >= 0)
		return NULL;
	int e = errno;
	if (e != ENOSYS && e != EPERM && e != EACCES)
		return NULL;
	snprintf(why, sizeof(why), "the futex syscall the C library waits with fails here: %s "
		 "(%s): a waiting thread would abort the tool "
		 "(docs/kernel-findings.md#futex-time32)", errno_name(e),
		 e != ENOSYS ? "refused, e.g. by a seccomp filter" :
		 sizeof(long) == 4 ? "a kernel without 32-bit time syscalls, CONFIG_COMPAT_32BIT_TIME "
				     "off, or a seccomp filter" : "refused by a seccomp filter");
	return why;
#else
	return NULL;
#endif
}
