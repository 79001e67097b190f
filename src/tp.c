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
	uintptr_t tp = (uintptr_t)arch_syscall_thread_pointer();
	/*
	 * A value in the errno range is the syscall's refusal, not a thread
	 * pointer: arm64's 32-bit compat layer has no get_tls and answers
	 * -ENOSYS.  No user-space TLS block lives in the last page.
	 */
	if (tp >= (uintptr_t)-4095)
		return NULL;
	return (void *)tp;
#else
	return NULL;
#endif
}

/*
 * m68k's __vdso_get_thread_area returns an unsigned long, in %d0.  Called
 * through a pointer-returning type, gcc would read %a0 (m68k returns
 * pointers there), which holds whatever the vDSO left in it.
 */
typedef unsigned long (*vdso_get_thread_area_fn)(void);

static void *vdsokit_tp(const struct vdsokit_state *s)
{
#if ARCH_VDSO_CALL5
	return VCALL0(void *, s->thread_area.fn);
#else
	return (void *)((vdso_get_thread_area_fn)s->thread_area.fn)();
#endif
}

VDSO_EXPORT void *vdsokit_thread_pointer(void)
{
#if ARCH_HAS_TP_REGISTER
	return arch_thread_pointer();
#else
	const struct vdsokit_state *s = vdsokit_state();
	if (s->thread_area.fn)
		return vdsokit_tp(s);
	return sys_thread_pointer();
#endif
}

VDSO_EXPORT void *vdsokit_thread_pointer_via(enum vdsokit_route route)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_thread_pointer();
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->thread_area.fn ? vdsokit_tp(s) : NULL;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return NULL;
	return vdsokit_thread_pointer();
}
