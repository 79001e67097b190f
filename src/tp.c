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
#if defined(__m68k__) && defined(__NR_get_thread_area)
	return (void *)sys0(__NR_get_thread_area);
#elif defined(__x86_64__) && !defined(__ILP32__)
	/* arch_prctl(ARCH_GET_FS): the fs base, which %fs:0 points back to. */
	unsigned long fs = 0;
	return sys2(__NR_arch_prctl, 0x1003, &fs) == 0 ? (void *)fs : NULL;
#elif defined(__i386__)
	/* get_thread_area() on the GDT entry %gs selects: its base is the TCB. */
	struct { unsigned entry_number, base_addr, limit, flags; } desc = { 0, 0, 0, 0 };
	unsigned short gs;
	__asm__("movw %%gs, %0" : "=r"(gs));
	desc.entry_number = gs >> 3;
	return sys1(__NR_get_thread_area, &desc) == 0 ? (void *)desc.base_addr : NULL;
#elif defined(__arm__) && defined(__ARM_NR_get_tls)
	return (void *)sys0(__ARM_NR_get_tls);
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
