// SPDX-License-Identifier: MIT
/* getcpu: the vDSO's (x86, riscv, powerpc, s390x, loongarch), else the syscall. */
#include "internal.h"

static int sys_getcpu(unsigned *cpu, unsigned *node)
{
	return (int)sys3(__NR_getcpu, cpu, node, 0);
}

/* The third argument (a cache, unused since 2.6.24) is always NULL. */
static inline int call_getcpu(const struct vdsokit_entry *e, unsigned *cpu, unsigned *node)
{
#if ARCH_VDSO_CALL5
	return VCALL3(int, e->fn, cpu, node, 0);
#else
	return ((vdsokit_getcpu_fn)e->fn)(cpu, node, NULL);
#endif
}

VDSO_EXPORT int vdsokit_getcpu(unsigned *cpu, unsigned *node)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (likely(s->getcpu.fn != NULL)) {
		int r = call_getcpu(&s->getcpu, cpu, node);
		if (likely(r != -ENOSYS))
			return r;
	}
	return sys_getcpu(cpu, node);
}

VDSO_EXPORT int vdsokit_getcpu_via(enum vdsokit_via via, unsigned *cpu, unsigned *node)
{
	if (via == VDSOKIT_VIA_SYSCALL)
		return sys_getcpu(cpu, node);
	if (via == VDSOKIT_VIA_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->getcpu.fn ? call_getcpu(&s->getcpu, cpu, node) : -ENOSYS;
	}
	return vdsokit_getcpu(cpu, node);
}
