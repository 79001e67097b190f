// SPDX-License-Identifier: MIT
/*
 * getcpu: the rseq area the libc registered for the thread, where there is
 * one (glibc >= 2.35 registers one in every thread and exports where it
 * is); else the vDSO's (x86, powerpc, s390x, loongarch); else the syscall.
 */
#include <stddef.h>
#include <sys/auxv.h>

#include "internal.h"

/*
 * glibc's description of its rseq registration: the area's offset from the
 * thread pointer and its registered size (0: none).  Weak, so the library
 * links and runs with musl and older glibc, where both are absent.
 */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27 /* Linux 6.3+: how much of struct rseq the kernel fills */
#endif

/*
 * The kernel's struct rseq as 32-bit words (the layout is ABI):
 * cpu_id_start, cpu_id, rseq_cs (a u64: words 2-3), flags, node_id and
 * mm_cid (both Linux 6.3+).  cpu_id is word 1; node_id word 5, so the area
 * must reach byte 24.  (Word 6, mm_cid, numbers the threads of the process
 * running at once: it is no node.)
 */
#define RSEQ_WORD_CPU_ID 1
#define RSEQ_WORD_NODE_ID 5
#define RSEQ_END_OF_CPU_ID ((RSEQ_WORD_CPU_ID + 1) * 4)
#define RSEQ_END_OF_NODE_ID ((RSEQ_WORD_NODE_ID + 1) * 4)
/* The kernel refuses a registration shorter than the original struct rseq. */
#define RSEQ_SHORTEST_REGISTRATION 32

intptr_t vdsokit_lib_rseq_cpu(void)
{
#if ARCH_HAS_TP_REGISTER
	/* The area is found from the ABI thread pointer, read from its register. */
	if (!&__rseq_size || !&__rseq_offset || __rseq_size < RSEQ_END_OF_CPU_ID)
		return 0;
	intptr_t cpu_id = (intptr_t)__rseq_offset + RSEQ_WORD_CPU_ID * 4;
	_Static_assert((RSEQ_WORD_NODE_ID - RSEQ_WORD_CPU_ID) * 4 == VDSOKIT__RSEQ_NODE_AFTER_CPU,
		       "the header reads node_id there");
	/* The libc aligns the area (32 bytes): the offset's low bits are free for the flags. */
	if (cpu_id & 3)
		return 0;
	/*
	 * node_id is the kernel's to write wherever an area is registered at
	 * all: no registration is shorter than 32 bytes (the kernel says
	 * -EINVAL), node_id ends at byte 24, and a kernel whose feature size
	 * reaches it (6.3+) writes it beside cpu_id into every registration,
	 * 32-byte ones too.  __rseq_size says which fields the libc declares,
	 * not what it registered: 32 from glibc 2.35-2.39, 20 from 2.40 and its
	 * backports (Debian 12's 2.36), both over a 32-byte registration, the
	 * feature size from 2.41.  So it only says whether there is an area.
	 */
	_Static_assert(RSEQ_END_OF_NODE_ID <= RSEQ_SHORTEST_REGISTRATION, "node_id in every registration");
	if (vdsokit_lib_auxv(AT_RSEQ_FEATURE_SIZE) >= RSEQ_END_OF_NODE_ID)
		return cpu_id | VDSOKIT__RSEQ_CPU | VDSOKIT__RSEQ_NODE;
	return cpu_id | VDSOKIT__RSEQ_CPU;
#else
	return 0;
#endif
}

static int sys_getcpu(unsigned *cpu, unsigned *node)
{
	return (int)sys3(__NR_getcpu, cpu, node, 0);
}

/* The third argument (a cache, unused since 2.6.24) is always NULL. */
static inline int call_getcpu(int (*fn)(unsigned *, unsigned *, void *), unsigned *cpu, unsigned *node)
{
#if ARCH_VDSO_CALL5
	return VCALL3_INT(fn, cpu, node, 0);
#else
	return fn(cpu, node, NULL);
#endif
}

/*
 * From this thread's rseq area (rseq_cpu: the route's word): 0, or -1 when
 * the area cannot answer (none, no node_id, not registered in this thread:
 * the libc's registration failed), for the other routes to.
 */
static inline int rseq_getcpu(intptr_t rseq_cpu, unsigned *cpu, unsigned *node)
{
#if ARCH_HAS_TP_REGISTER
	unsigned need = node ? VDSOKIT__RSEQ_CPU | VDSOKIT__RSEQ_NODE : VDSOKIT__RSEQ_CPU;
	if ((rseq_cpu & need) != need || (!cpu && !node))
		return -1;
	/* Through void *: the libc aligned the area (32 bytes), char * cannot say so. */
	const volatile void *area = (char *)arch_thread_pointer() + (rseq_cpu & ~(intptr_t)3);
	const volatile uint32_t *cpu_id = area;
	const volatile uint32_t *node_id = cpu_id + VDSOKIT__RSEQ_NODE_AFTER_CPU / 4;
	for (;;) {
		int32_t id = (int32_t)*cpu_id;
		if (unlikely(id < 0))
			return -1;
		if (!node) {
			*cpu = (unsigned)id;
			return 0;
		}
		/* The kernel rewrites both on migration: a pair read on one CPU. */
		uint32_t nid = *node_id;
		// cppcheck-suppress knownConditionTrueFalse ; volatile: read again, may differ
		if (likely((int32_t)*cpu_id == id)) {
			if (cpu)
				*cpu = (unsigned)id;
			*node = nid;
			return 0;
		}
	}
#else
	(void)rseq_cpu, (void)cpu, (void)node;
	return -1;
#endif
}

VDSO_EXPORT int vdsokit_getcpu(unsigned *cpu, unsigned *node)
{
	intptr_t rseq_cpu = ROUTE(rseq_cpu);
	int (*fn)(unsigned *, unsigned *, void *) = ROUTE(getcpu);
	if (unlikely(rseq_cpu == 0 && fn == NULL)) {
		vdsokit_lib_ensure_resolved();
		rseq_cpu = ROUTE(rseq_cpu);
		fn = ROUTE(getcpu);
	}
	if (likely(rseq_getcpu(rseq_cpu, cpu, node) == 0))
		return 0;
	if (likely(fn != NULL)) {
		int r = call_getcpu(fn, cpu, node);
		if (likely(!vdso_declined(r)))
			return r;
	}
	return sys_getcpu(cpu, node);
}

VDSO_EXPORT int vdsokit_getcpu_via(enum vdsokit_route route, unsigned *cpu, unsigned *node)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_getcpu(cpu, node);
	if (route == VDSOKIT_ROUTE_VDSO) {
		const void *fn = vdsokit_lib_choose(vdsokit_lib_found(), VDSOKIT_FN_GETCPU).fn;
		return fn ? call_getcpu((int (*)(unsigned *, unsigned *, void *))(uintptr_t)fn, cpu, node)
			  : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_getcpu(cpu, node);
}
