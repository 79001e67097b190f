// SPDX-License-Identifier: MIT
/*
 * The thread pointer: the ABI register where the architecture has one.
 * m68k has none: the vDSO's __vdso_get_thread_area (the m68k seed's
 * series) when present, else the get_thread_area syscall.
 */
#include "internal.h"

/*
 * The kernel's own record of the thread pointer, where a syscall returns
 * it; NULL where none does (the register is then the only source).
 */
static void *sys_thread_pointer(void)
{
#if ARCH_HAS_SYSCALL_TP
	return arch_syscall_thread_pointer();
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
