// SPDX-License-Identifier: MIT
/*
 * The thread pointer: the ABI register where the architecture has one.
 * m68k has none: the vDSO's __vdso_get_thread_area (the m68k seed's
 * series) when present, else the get_thread_area syscall.
 */
#include "internal.h"

static void *sys_thread_pointer(void)
{
#if defined(__NR_get_thread_area) && defined(__m68k__)
	return (void *)sys0(__NR_get_thread_area);
#elif defined(__x86_64__) && !defined(__ILP32__)
	/* arch_prctl(ARCH_GET_FS): the kernel's copy of the register. */
	unsigned long fs = 0;
	return sys2(__NR_arch_prctl, 0x1003, &fs) == 0 ? (void *)fs : NULL;
#elif ARCH_HAS_TP_REGISTER
	return arch_thread_pointer(); /* no syscall returns it here */
#else
	return NULL;
#endif
}

static void *vdso_tp(const struct vdso_state *s)
{
#if ARCH_VDSO_CALL5
	return VCALL0(void *, s->thread_area.fn);
#else
	return ((vdso_tp_fn)s->thread_area.fn)();
#endif
}

VDSO_EXPORT void *vdso_thread_pointer(void)
{
#if ARCH_HAS_TP_REGISTER
	return arch_thread_pointer();
#else
	const struct vdso_state *s = vdso_state();
	if (s->thread_area.fn)
		return vdso_tp(s);
	return sys_thread_pointer();
#endif
}

VDSO_EXPORT void *vdso_thread_pointer_via(enum vdso_via via)
{
	if (via == VDSO_VIA_SYSCALL)
		return sys_thread_pointer();
	if (via == VDSO_VIA_VDSO) {
		const struct vdso_state *s = vdso_state();
		return s->thread_area.fn ? vdso_tp(s) : NULL;
	}
	return vdso_thread_pointer();
}
