// SPDX-License-Identifier: MIT
/*
 * The thread pointer: the ABI register where the architecture has one.
 * m68k has none: the vDSO's __vdso_get_thread_area (the m68k vDSO
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
static void *call_thread_area(unsigned long (*fn)(void))
{
#if ARCH_VDSO_CALL5
	return (void *)VCALL2_LONG(fn, 0, 0);
#else
	return (void *)fn();
#endif
}

VDSO_EXPORT void *vdsokit_thread_pointer(void)
{
#if ARCH_HAS_TP_REGISTER
	return arch_thread_pointer();
#else
	unsigned long (*fn)(void) = ROUTE(thread_area);
	if (unlikely(fn == NULL)) {
		vdsokit_lib_ensure_resolved();
		fn = ROUTE(thread_area);
	}
	if (likely(fn != NULL))
		return call_thread_area(fn);
	return sys_thread_pointer();
#endif
}

VDSO_EXPORT void *vdsokit_thread_pointer_via(enum vdsokit_route route)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_thread_pointer();
	if (route == VDSOKIT_ROUTE_VDSO) {
		const void *fn = vdsokit_lib_choose(vdsokit_lib_found(), VDSOKIT_FN_THREAD_POINTER).fn;
		return fn ? call_thread_area((unsigned long (*)(void))(uintptr_t)fn) : NULL;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return NULL;
	return vdsokit_thread_pointer();
}
