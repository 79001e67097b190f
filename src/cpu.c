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

void vdsokit__cpu_resolve(struct vdsokit_state *s)
{
	s->rseq_covers = 0;
#if ARCH_HAS_TP_REGISTER
	/* The area is found from the ABI thread pointer, read from its register. */
	if (!&__rseq_size || !&__rseq_offset || __rseq_size < RSEQ_END_OF_CPU_ID)
		return;
	s->rseq_offset = __rseq_offset;
	s->rseq_covers = RSEQ_COVERS_CPU;
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
	if (vdsokit__auxv(AT_RSEQ_FEATURE_SIZE) >= RSEQ_END_OF_NODE_ID)
		s->rseq_covers |= RSEQ_COVERS_NODE;
#endif
}

VDSO_EXPORT int (*vdsokit__getcpu_vdso)(unsigned *, unsigned *, void *);

/*
 * What the header's inline getcpu reads: the rseq area's offset first, then
 * what it answers (release: the offset is seen with it); the vDSO entry
 * where it is a plain C function (not powerpc's).  Each alone may send a
 * call to the library, never somewhere wrong.
 */
void vdsokit__cpu_publish_fast_path(const struct vdsokit_state *s)
{
	_Static_assert((RSEQ_WORD_NODE_ID - RSEQ_WORD_CPU_ID) * 4 == VDSOKIT__RSEQ_NODE_AFTER_CPU,
		       "the header reads node_id there");
	if (s->rseq_covers & RSEQ_COVERS_CPU) {
		vdsokit__fast_v1.rseq_cpu_offset = s->rseq_offset + RSEQ_WORD_CPU_ID * 4;
		__atomic_store_n(&vdsokit__fast_v1.rseq_cpu,
				 VDSOKIT__RSEQ_CPU | (s->rseq_covers & RSEQ_COVERS_NODE ? VDSOKIT__RSEQ_NODE : 0),
				 __ATOMIC_RELEASE);
	}
#if !ARCH_VDSO_CALL5
	__atomic_store_n(&vdsokit__getcpu_vdso, (vdsokit_getcpu_fn)(uintptr_t)s->getcpu.fn, __ATOMIC_RELAXED);
#endif
}

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

/*
 * From this thread's rseq area: 0, or -1 when it is not registered in this
 * thread (the libc's registration failed), for the other routes to answer.
 */
static inline int rseq_getcpu(const struct vdsokit_state *s, unsigned *cpu, unsigned *node)
{
#if ARCH_HAS_TP_REGISTER
	/* Through void *: the libc aligned the area (32 bytes), char * cannot say so. */
	const volatile void *area = (char *)arch_thread_pointer() + s->rseq_offset;
	const volatile uint32_t *word = area;
	for (;;) {
		int32_t id = (int32_t)word[RSEQ_WORD_CPU_ID];
		if (unlikely(id < 0))
			return -1;
		if (!node) {
			*cpu = (unsigned)id;
			return 0;
		}
		/* The kernel rewrites both on migration: a pair read on one CPU. */
		uint32_t nid = word[RSEQ_WORD_NODE_ID];
		// cppcheck-suppress knownConditionTrueFalse ; volatile: read again, may differ
		if (likely((int32_t)word[RSEQ_WORD_CPU_ID] == id)) {
			if (cpu)
				*cpu = (unsigned)id;
			*node = nid;
			return 0;
		}
	}
#else
	(void)s, (void)cpu, (void)node;
	return -1;
#endif
}

/* Whether rseq answers a call that wants node (or not). */
static inline int rseq_serves(const struct vdsokit_state *s, const unsigned *cpu, const unsigned *node)
{
	unsigned need = node ? RSEQ_COVERS_CPU | RSEQ_COVERS_NODE : RSEQ_COVERS_CPU;
	return (s->rseq_covers & need) == need && (cpu || node);
}

VDSO_EXPORT int vdsokit_getcpu(unsigned *cpu, unsigned *node)
{
	const struct vdsokit_state *s = vdsokit_state();
	if (likely(rseq_serves(s, cpu, node)) && likely(rseq_getcpu(s, cpu, node) == 0))
		return 0;
	if (likely(s->getcpu.fn != NULL)) {
		int r = call_getcpu(&s->getcpu, cpu, node);
		if (likely(r != -ENOSYS))
			return r;
	}
	return sys_getcpu(cpu, node);
}

VDSO_EXPORT int vdsokit_getcpu_via(enum vdsokit_route route, unsigned *cpu, unsigned *node)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_getcpu(cpu, node);
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return s->getcpu.fn ? call_getcpu(&s->getcpu, cpu, node) : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_getcpu(cpu, node);
}
