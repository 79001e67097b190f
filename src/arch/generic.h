/* SPDX-License-Identifier: MIT */
/*
 * Any other Linux architecture (alpha, csky, parisc, sh, …): no vDSO table,
 * so every call takes the syscall.  Without inline assembly for the
 * architecture the libc's syscall() is used, keeping errno unchanged.
 */
#include <errno.h>
#include <unistd.h>

#define ARCH_NAME "generic"
#define ARCH_ELF_MACHINE 0
#define ARCH_SYMBOLS { [SYM_CLOCK_GETTIME] = { 0, NULL, NULL } }

static inline long arch_syscall4(long n, long a, long b, long c, long d)
{
	int saved = errno;
	long r = syscall(n, a, b, c, d);
	if (r == -1) {
		r = -errno;
	}
	errno = saved;
	return r;
}
