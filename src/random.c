// SPDX-License-Identifier: MIT
/*
 * getrandom through the vDSO (Linux 6.11+), else the syscall.
 *
 * The vDSO generates from a per-thread opaque state that the kernel sizes
 * and wipes: the library asks for the state's size, protection and mmap
 * flags once, maps states in pages shared by many threads (never one
 * across a page boundary, each on its own cache line), gives each thread
 * one on its first call, and takes back the states of exited threads when
 * it runs out.  The kernel's mmap flags (MAP_DROPPABLE) make a forked child
 * see its states wiped, so parent and child never repeat each other's output.
 *
 * Nothing here blocks, allocates or takes a lock, so the first call may be
 * in a signal handler: when the state cannot be had — another thread adding
 * states, mapping failed, or a signal handler interrupting this thread's
 * own call — that call takes the syscall.
 */
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "internal.h"

/* For the tests (tests/lib/random-*.c), declared there too: not public. */
void *vdsokit__random_thread_state(size_t *len);

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

/*
 * States start on their own cache line so that two threads never share one;
 * 128 bytes covers the 128-byte lines (and adjacent-line prefetch) of the
 * architectures the kernel gives a vDSO getrandom, s390's 256 excepted.
 */
#if defined(__s390x__)
#define STATE_ALIGN 256
#else
#define STATE_ALIGN 128
#endif

enum { PARAMS_UNKNOWN, PARAMS_QUERYING, PARAMS_READY, PARAMS_UNAVAILABLE };

static struct {
	int status;            /* atomic: PARAMS_*                               */
	size_t state_size;     /* exactly what the kernel asked for              */
	size_t stride;         /* state_size rounded up to STATE_ALIGN           */
	unsigned prot, flags;
} params;

/*
 * The registry of states: chunks, each one mapping of states (the kernel's
 * flags: it may wipe them) and, in ordinary memory, the owner of each — the
 * kernel thread id of the thread using it, 0 when free.  Chunks are only
 * ever added (at the head, published with release), so a thread claims a
 * free state with one compare-and-swap and no lock.
 *
 * No thread-exit hook gives a state back (a pthread key destructor would
 * outlive a dlclose, and setting one from a signal handler allocates):
 * when no state is free, a thread first takes back those whose owner no
 * longer exists (tgkill(pid, tid, 0) == -ESRCH), and only then maps more.
 * A thread id reused by a new thread only delays that state's return: only
 * the thread with that id ever writes it into an owner word, and it never
 * takes a state back from a live owner — itself included.
 */
struct chunk {
	struct chunk *next;
	unsigned char *states;
	size_t states_len, count;
	int *owner;            /* atomic; kernel thread id, 0 free, -1 sealed   */
};

/*
 * The first chunk's header is static, so that a library loaded and unloaded
 * again and again maps nothing but its states, which unloading unmaps.
 * Later headers are never unmapped: a thread may be scanning one at exit.
 */
#define FIRST_CHUNK_MAX 64
static struct chunk first_chunk;
static int first_chunk_owner[FIRST_CHUNK_MAX];

static struct chunk *chunks;   /* atomic: the newest chunk                  */
static int growing;            /* atomic try-lock on adding a chunk         */
static size_t state_total;     /* states in every chunk; under `growing`    */

static __thread void *thread_state __attribute__((tls_model("initial-exec")));
static __thread int *thread_owner __attribute__((tls_model("initial-exec")));
static __thread int thread_tid __attribute__((tls_model("initial-exec")));
static __thread int thread_state_in_use __attribute__((tls_model("initial-exec")));

static int my_tid(void)
{
	if (unlikely(thread_tid == 0))
		thread_tid = (int)sys0(__NR_gettid);
	return thread_tid;
}

static int owner_exited(int pid, int tid)
{
	return sys3(__NR_tgkill, pid, tid, 0) == -ESRCH;
}

/* A free state now owned by `tid`, or NULL. */
static void *claim_free(int tid)
{
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next)
		for (size_t i = 0; i < c->count; i++) {
			int expected = 0;
			if (__atomic_load_n(&c->owner[i], __ATOMIC_RELAXED) == 0 &&
			    __atomic_compare_exchange_n(&c->owner[i], &expected, tid, 0,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				thread_owner = &c->owner[i];
				return c->states + i * params.stride;
			}
		}
	return NULL;
}

/* Frees every state whose owner thread has exited; how many it freed. */
static size_t reclaim_exited(void)
{
	int pid = (int)sys0(__NR_getpid);
	size_t freed = 0;
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next)
		for (size_t i = 0; i < c->count; i++) {
			int owner = __atomic_load_n(&c->owner[i], __ATOMIC_RELAXED);
			if (owner > 0 && owner_exited(pid, owner) &&
			    __atomic_compare_exchange_n(&c->owner[i], &owner, 0, 0, __ATOMIC_RELEASE,
							__ATOMIC_RELAXED))
				freed++;
		}
	return freed;
}

/*
 * Adds a chunk as large as all the others together (16 states at least),
 * so that the reclaim scans before each growth cost O(1) per thread.
 * Never waits: a thread that finds another growing takes the syscall.
 */
static int grow(void)
{
	if (__atomic_exchange_n(&growing, 1, __ATOMIC_ACQUIRE))
		return -1;
	int ret = -1;
	size_t page = getauxval(AT_PAGESZ);
	if (!page)
		page = 4096;
	size_t per_page = page / params.stride;
	size_t want = state_total > 16 ? state_total : 16;
	size_t pages = (want + per_page - 1) / per_page;
	size_t count = pages * per_page;
	struct chunk *c = &first_chunk;
	size_t header_len = 0;
	if (__atomic_load_n(&chunks, __ATOMIC_RELAXED) == NULL) {
		count = count < FIRST_CHUNK_MAX ? count : FIRST_CHUNK_MAX;
		c->owner = first_chunk_owner;
	} else {
		header_len = sizeof(struct chunk) + count * sizeof(int);
		c = sys_mmap(header_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
		if (c)
			c->owner = (int *)(c + 1);
	}
	unsigned char *states = c ? sys_mmap(pages * page, params.prot, params.flags) : NULL;
	if (states) {
		/* Zeroed (fresh mapping, or never used static): every owner is free. */
		c->states = states;
		c->states_len = pages * page;
		c->count = count;
		c->next = __atomic_load_n(&chunks, __ATOMIC_RELAXED);
		__atomic_store_n(&chunks, c, __ATOMIC_RELEASE);
		state_total += count;
		ret = 0;
	} else if (header_len) {
		sys2(__NR_munmap, c, header_len);
	}
	__atomic_store_n(&growing, 0, __ATOMIC_RELEASE);
	return ret;
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
	size_t page = getauxval(AT_PAGESZ);
	/* A state larger than a page could not avoid crossing one. */
	int ok = r == 0 && p.size_of_opaque_state > 0 &&
		 p.size_of_opaque_state <= (page ? page : 4096);
	if (ok) {
		/* The exact size: the kernel's vDSO takes the syscall on any other. */
		params.state_size = p.size_of_opaque_state;
		params.stride = (p.size_of_opaque_state + STATE_ALIGN - 1) & ~(size_t)(STATE_ALIGN - 1);
		params.prot = p.mmap_prot;
		params.flags = p.mmap_flags;
	}
	__atomic_store_n(&params.status, ok ? PARAMS_READY : PARAMS_UNAVAILABLE, __ATOMIC_RELEASE);
	return ok ? 0 : -1;
}

/* This thread's state, claiming one on its first call; NULL: use the syscall. */
static void *my_state(const struct vdsokit_state *s)
{
	if (likely(thread_state != NULL))
		return thread_state;
	if (query_params(s))
		return NULL;
	int tid = my_tid();
	void *state = claim_free(tid);
	if (!state && reclaim_exited())
		state = claim_free(tid);
	if (!state && grow() == 0)
		state = claim_free(tid);
	thread_state = state;
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

/*
 * In a forked child the forking thread is the only one, under a new thread
 * id: its state is stamped with that id (else the next claim would see the
 * parent's id gone and hand the state to a second thread), and a growth that
 * another thread of the parent was in the middle of is abandoned, its lock
 * released.  Every other thread's state is taken back on the next reclaim.
 */
static void after_fork_in_child(void)
{
	thread_tid = 0;
	if (thread_owner)
		__atomic_store_n(thread_owner, my_tid(), __ATOMIC_RELAXED);
	__atomic_store_n(&growing, 0, __ATOMIC_RELEASE);
}

/* Registered at load time: pthread_atfork allocates, so never on first use. */
__attribute__((constructor)) static void random_register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, after_fork_in_child);
}

/*
 * At unload (dlclose, or exit): unmap the states of every chunk in which
 * no other live thread holds one.  Each free (or exited owner's) slot is
 * sealed first with a compare-and-swap, so that no thread can claim it
 * after the check; a chunk with a live holder stays mapped, since at exit
 * that thread may be inside a call right now.  Later calls in this image
 * take the syscall.
 */
__attribute__((destructor)) static void random_unmap_states(void)
{
	if (__atomic_load_n(&params.status, __ATOMIC_ACQUIRE) != PARAMS_READY)
		return;
	__atomic_store_n(&params.status, PARAMS_UNAVAILABLE, __ATOMIC_RELEASE);
	int pid = (int)sys0(__NR_getpid), me = my_tid();
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next) {
		int held = 0;
		for (size_t i = 0; i < c->count && !held; i++) {
			int owner = __atomic_load_n(&c->owner[i], __ATOMIC_RELAXED);
			if (owner > 0 && owner != me && !owner_exited(pid, owner))
				held = 1;
			else if (!__atomic_compare_exchange_n(&c->owner[i], &owner, -1, 0,
							      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				held = 1; /* claimed just now */
		}
		if (!held)
			sys2(__NR_munmap, c->states, c->states_len);
	}
	thread_state = NULL;
	thread_owner = NULL;
}

/* For the tests: this thread's state (NULL before its first call) and its length. */
void *vdsokit__random_thread_state(size_t *len)
{
	if (len)
		*len = params.state_size;
	return thread_state;
}
#else
#define RANDOM_VDSO_POSSIBLE 0
static ssize_t random_via_vdso(const struct vdsokit_state *s, void *buf, size_t len, unsigned flags)
{
	(void)s, (void)buf, (void)len, (void)flags;
	return -ENOSYS;
}

void *vdsokit__random_thread_state(size_t *len)
{
	if (len)
		*len = 0;
	return NULL;
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
