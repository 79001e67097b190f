// SPDX-License-Identifier: MIT
/*
 * getrandom's per-thread states: the vDSO is given exactly the state size
 * the kernel asked for (any other length makes the kernel's vDSO take the
 * syscall, silently), and no two live threads' states share a cache line
 * (128 bytes: the longest line, or line pair, of the architectures with a
 * vDSO getrandom; s390's 256).  Reads the library's states through its test
 * hook vdsokit__random_thread_state.  A thread that finds another one
 * mapping more states takes the syscall for that call (nothing waits): each
 * thread calls until it holds one.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vdsokit.h"
#include "../tap.h"

/* libvdsokit's test hook (src/random.c): not public. */
void *vdsokit__random_thread_state(size_t *len);

#if defined(__s390x__)
#define LINE 256
#else
#define LINE 128
#endif
#define THREADS 48
#define TRIES 1000

/* The kernel's struct vgetrandom_opaque_params. */
struct opaque_params {
	uint32_t size_of_opaque_state, mmap_prot, mmap_flags, reserved[13];
};

static pthread_barrier_t all_have_one;
static uintptr_t states[THREADS];

static void *take_state(void *arg)
{
	unsigned char buf[16];
	for (int i = 0; i < TRIES && !vdsokit__random_thread_state(NULL); i++) {
		if (i)
			sched_yield();
		vdsokit_getrandom(buf, sizeof(buf), 0);
	}
	states[(size_t)arg] = (uintptr_t)vdsokit__random_thread_state(NULL);
	pthread_barrier_wait(&all_have_one); /* alive until every thread holds one */
	return NULL;
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
	return x < y ? -1 : x > y;
}

/* The size the kernel asks for, straight from the vDSO; 0 when not callable here. */
static size_t kernel_state_size(const struct vdsokit_route_info *p)
{
#if defined(__powerpc__) || defined(__powerpc64__)
	(void)p;
	return 0; /* the vDSO's calling convention there needs the library's asm */
#else
	typedef long (*getrandom_fn)(void *, size_t, unsigned, void *, size_t);
	struct opaque_params params;
	memset(&params, 0, sizeof(params));
	if (!p->address || ((getrandom_fn)p->address)(NULL, 0, 0, &params, ~(size_t)0) != 0)
		return 0;
	return params.size_of_opaque_state;
#endif
}

int main(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p);
	if (p.route != VDSOKIT_ROUTE_VDSO) {
		skip("getrandom is not served by the vDSO here (%s): no states",
		     vdsokit_reason_text(p.reason));
		return done_testing();
	}
	unsigned char buf[16];
	vdsokit_getrandom(buf, sizeof(buf), 0);
	size_t len = 0;
	void *mine = vdsokit__random_thread_state(&len);
	size_t want = kernel_state_size(&p);
	if (want)
		ok(mine && len == want, "the vDSO is given the kernel's state size: %zu (kernel %zu)", len,
		   want);
	else
		skip("the vDSO's getrandom cannot be called directly here: state size %zu unchecked", len);

	pthread_barrier_init(&all_have_one, NULL, THREADS);
	pthread_t th[THREADS];
	for (size_t i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, take_state, (void *)i);
	for (size_t i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	qsort(states, THREADS, sizeof(states[0]), cmp_addr);
	int missing = 0, shared = 0;
	for (size_t i = 0; i < THREADS; i++) {
		missing += states[i] == 0;
		if (i && states[i - 1] && (states[i - 1] + len - 1) / LINE >= states[i] / LINE) {
			if (!shared++)
				diag("states %#lx and %#lx (%zu bytes) share a %d-byte line",
				     (unsigned long)states[i - 1], (unsigned long)states[i], len, LINE);
		}
	}
	ok(missing == 0 && shared == 0,
	   "%d live threads' states: %d without one, %d pairs sharing a %d-byte line", THREADS,
	   missing, shared, LINE);
	return done_testing();
}
