// SPDX-License-Identifier: MIT
/* getrandom: the syscall (the vDSO path and its per-thread states follow). */
#include "internal.h"

static ssize_t sys_getrandom(void *buf, size_t len, unsigned flags)
{
	return sys3(__NR_getrandom, buf, len, flags);
}

VDSO_EXPORT ssize_t vdso_getrandom(void *buf, size_t len, unsigned flags)
{
	return sys_getrandom(buf, len, flags);
}

VDSO_EXPORT ssize_t vdso_getrandom_via(enum vdso_via via, void *buf, size_t len, unsigned flags)
{
	if (via == VDSO_VIA_VDSO)
		return -ENOSYS;
	return sys_getrandom(buf, len, flags);
}
