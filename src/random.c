// SPDX-License-Identifier: MIT
/*
 * getrandom through the vDSO (Linux 6.11+), else the syscall.
 *
 * The vDSO generates from a per-thread opaque state that the kernel sizes
 * and wipes: the library asks for the state's size, protection and mmap
 * flags once, maps states in pages shared by many threads (never one
 * across a page boundary), gives each thread one on its first call, and
 * takes it back when the thread exits, for the next thread.  The kernel's
 * mmap flags (MAP_DROPPABLE) make a forked child see its states wiped, so
 * parent and child never repeat each other's output.
 *
 * Nothing here blocks: when the state cannot be had — pool busy in another
 * thread, allocation failed, or a signal handler interrupting this thread's
 * own call — that call takes the syscall.
 */
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "internal.h"

#ifndef GRND_RANDOM
#define GRND_RANDOM 0x0002
#endif

static ssize_t sys_getrandom(void *buf, size_t len, unsigned flags)
{
	return sys3(__NR_getrandom, buf, len, flags);
}

/* ---- the vDSO path --------------------------------------------------- */

#if defined(ARCH_HAS_MMAP) || defined(ARCH_HAS_SYSCALL6)
#define RANDOM_VDSO_POSSIBLE 1

/* The kernel's struct vgetrandom_opaque_params. */
struct opaque_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};

static void *sys_mmap(size_t len, unsigned prot, unsigned flags)
{
#if defined(ARCH_HAS_MMAP)
	long r = arch_mmap(NULL, len, prot, flags, -1, 0);
#elif defined(__NR_mmap2) && !ARCH_NATIVE_TIME64
	long r = arch_syscall6(__NR_mmap2, 0, (long)len, prot, flags, -1, 0);
#else
	long r = arch_syscall6(__NR_mmap, 0, (long)len, prot, flags, -1, 0);
#endif
	return (unsigned long)r > -4096UL ? NULL : (void *)r;
}

enum { PARAMS_UNKNOWN, PARAMS_QUERYING, PARAMS_READY, PARAMS_UNAVAILABLE };

static struct {
	int status;            /* atomic: PARAMS_*                           */
	size_t state_size;
	unsigned prot, flags;
	pthread_key_t exit_key; /* gives a thread's state back when it exits */
} params;

/*
 * The pool of free states: a stack of pointers in its own (ordinary)
 * mapping, grown by doubling.  The states themselves may be wiped by the
 * kernel at any time, so no link is ever kept inside one.
 */
static struct {
	int busy;              /* atomic try-lock: never waited on in a call */
	void **free;
	size_t count, capacity;
} pool;

static __thread void *thread_state __attribute__((tls_model("initial-exec")));
static __thread int thread_state_in_use __attribute__((tls_model("initial-exec")));

static int pool_trylock(void)
{
	return !__atomic_exchange_n(&pool.busy, 1, __ATOMIC_ACQUIRE);
}

static void pool_unlock(void)
{
	__atomic_store_n(&pool.busy, 0, __ATOMIC_RELEASE);
}

static int pool_reserve(size_t want)
{
	if (want <= pool.capacity)
		return 0;
	size_t cap = pool.capacity ? pool.capacity * 2 : 512;
	while (cap < want)
		cap *= 2;
	void **bigger = sys_mmap(cap * sizeof(void *), PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS);
	if (!bigger)
		return -1;
	if (pool.count)
		memcpy(bigger, pool.free, pool.count * sizeof(void *));
	if (pool.free)
		sys2(__NR_munmap, pool.free, pool.capacity * sizeof(void *));
	pool.free = bigger;
	pool.capacity = cap;
	return 0;
}

/* Maps a block of states, every one inside a single page; pool locked. */
static int pool_grow(void)
{
	size_t page = getauxval(AT_PAGESZ);
	if (!page)
		page = 4096;
	size_t per_page = page / params.state_size;
	if (per_page == 0)
		return -1; /* a state larger than a page cannot avoid crossing one */
	/* At least 16 states per mapping: one mmap serves 16 threads or more. */
	size_t pages = per_page >= 16 ? 1 : (16 + per_page - 1) / per_page;
	if (pool_reserve(pool.count + per_page * pages))
		return -1;
	unsigned char *block = sys_mmap(pages * page, params.prot, params.flags);
	if (!block)
		return -1;
	for (size_t p = 0; p < pages; p++)
		for (size_t i = 0; i < per_page; i++)
			pool.free[pool.count++] = block + p * page + i * params.state_size;
	return 0;
}

static void give_back_state(void *state)
{
	/* Thread exit, not a signal handler: waiting for the pool is fine. */
	while (!pool_trylock())
		sys0(__NR_sched_yield);
	if (pool_reserve(pool.count + 1) == 0)
		pool.free[pool.count++] = state;
	pool_unlock();
}

static void thread_exit(void *state)
{
	thread_state = NULL;
	if (state)
		give_back_state(state);
}

static inline long call_getrandom(const void *fn, void *buf, size_t len, unsigned flags,
				  void *state, size_t state_len)
{
#if ARCH_VDSO_CALL5
	return VCALL5(long, fn, buf, len, flags, state, state_len);
#else
	return ((vdsokit_getrandom_fn)fn)(buf, len, flags, state, state_len);
#endif
}

/* Asks the vDSO for the state parameters, once; 0 when states can be used. */
static int query_params(const struct vdsokit_state *s)
{
	int st = __atomic_load_n(&params.status, __ATOMIC_ACQUIRE);
	if (likely(st == PARAMS_READY))
		return 0;
	if (st != PARAMS_UNKNOWN)
		return -1; /* unavailable, or another thread is asking right now */
	if (!__atomic_compare_exchange_n(&params.status, &st, PARAMS_QUERYING, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_ACQUIRE))
		return -1;
	struct opaque_params p;
	memset(&p, 0, sizeof(p));
	long r = call_getrandom(s->getrandom.fn, NULL, 0, 0, &p, ~(size_t)0);
	int ok = r == 0 && p.size_of_opaque_state > 0 && p.size_of_opaque_state <= 4096 &&
		 pthread_key_create(&params.exit_key, thread_exit) == 0;
	if (ok) {
		/* Keep states aligned as the kernel lays out its own: to 8 bytes at least. */
		params.state_size = (p.size_of_opaque_state + 7) & ~(size_t)7;
		params.prot = p.mmap_prot;
		params.flags = p.mmap_flags;
	}
	__atomic_store_n(&params.status, ok ? PARAMS_READY : PARAMS_UNAVAILABLE, __ATOMIC_RELEASE);
	return ok ? 0 : -1;
}

/* This thread's state, taking one from the pool on its first call; NULL: use the syscall. */
static void *my_state(const struct vdsokit_state *s)
{
	if (likely(thread_state != NULL))
		return thread_state;
	if (query_params(s) || !pool_trylock())
		return NULL;
	void *state = NULL;
	if (pool.count || pool_grow() == 0)
		state = pool.free[--pool.count];
	pool_unlock();
	if (state) {
		thread_state = state;
		pthread_setspecific(params.exit_key, state);
	}
	return state;
}

/* -ENOSYS: no state for this call (or the vDSO refuses): take the syscall. */
static ssize_t random_via_vdso(const struct vdsokit_state *s, void *buf, size_t len, unsigned flags)
{
	if (thread_state_in_use)
		return -ENOSYS; /* a signal handler inside this thread's own call */
	thread_state_in_use = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	void *state = my_state(s);
	ssize_t r = state ? call_getrandom(s->getrandom.fn, buf, len, flags, state,
					   params.state_size)
			  : -ENOSYS;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	thread_state_in_use = 0;
	return r;
}
#else
#define RANDOM_VDSO_POSSIBLE 0
static ssize_t random_via_vdso(const struct vdsokit_state *s, void *buf, size_t len, unsigned flags)
{
	(void)s, (void)buf, (void)len, (void)flags;
	return -ENOSYS;
}
#endif

/* ---- public ---------------------------------------------------------- */

VDSO_EXPORT ssize_t vdsokit_getrandom(void *buf, size_t len, unsigned flags)
{
	const struct vdsokit_state *s = vdsokit_state();
	/* GRND_RANDOM reads the blocking pool, which only the syscall serves. */
	if (RANDOM_VDSO_POSSIBLE && s->getrandom.fn && !(flags & GRND_RANDOM)) {
		ssize_t r = random_via_vdso(s, buf, len, flags);
		if (likely(r != -ENOSYS))
			return r;
	}
	return sys_getrandom(buf, len, flags);
}

VDSO_EXPORT ssize_t vdsokit_getrandom_via(enum vdsokit_via via, void *buf, size_t len, unsigned flags)
{
	if (via == VDSOKIT_VIA_SYSCALL)
		return sys_getrandom(buf, len, flags);
	if (via == VDSOKIT_VIA_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return RANDOM_VDSO_POSSIBLE && s->getrandom.fn ? random_via_vdso(s, buf, len, flags)
							       : -ENOSYS;
	}
	return vdsokit_getrandom(buf, len, flags);
}

int vdsokit__random_vdso_usable(void)
{
#if RANDOM_VDSO_POSSIBLE
	const struct vdsokit_state *s = vdsokit_state();
	if (!s->getrandom.fn)
		return 0;
	query_params(s);
	/* While another thread is asking, the answer is not "no". */
	return __atomic_load_n(&params.status, __ATOMIC_ACQUIRE) != PARAMS_UNAVAILABLE;
#else
	return 0;
#endif
}
