// SPDX-License-Identifier: MIT
/*
 * getrandom through the vDSO (Linux 6.11+), else the syscall.
 *
 * The vDSO generates from a per-thread opaque state that the kernel sizes
 * and wipes: the library asks for the state's size, protection and mmap
 * flags, maps states in pages shared by many threads (never one across a
 * page boundary, each on its own cache line), and gives each thread one on
 * its first call.  The kernel's mmap flags (MAP_DROPPABLE) wipe the states
 * in a forked child, so parent and child never repeat each other's output.
 *
 * Who holds a state is a fact, not an inference from thread ids:
 *   - a state's owner word holds the address of its thread's record (a
 *     thread-local variable), written only by a compare-and-swap from 0 —
 *     no two live threads have one address, and nobody but the owner (or
 *     its own exit hook) ever clears it;
 *   - a thread gives its states back at exit, from a pthread key destructor;
 *     threads that never exit in this process (a fork child's missing
 *     threads) keep theirs, which bounds the loss by the parent's threads;
 *   - fork, _Fork, syscall(SYS_fork), clone without CLONE_VM: the child's
 *     only thread keeps its state (its record's address is the same, the
 *     kernel wiped the bytes), and nothing in the registry waits on a
 *     thread that the child does not have: there is no lock to inherit;
 *   - vfork: the child runs on its parent's thread record, so a state it
 *     claims is its parent thread's, given back at that thread's exit.
 * A call takes its thread's state out of the record for its duration: a
 * signal handler that interrupts it finds none and claims another (two
 * states never serve one call at once); the interrupted call, back, keeps
 * one of the two.  A handler that leaves by siglongjmp abandons a state
 * still owned by the thread: the next call claims a new one, and the
 * thread's exit hook takes back (and wipes) every state it still owns.
 *
 * Nothing here blocks or takes a lock, so a first call may be in a signal
 * handler: when no state can be had (mapping failed, the thread is
 * exiting) that call takes the syscall.  The first call of a thread maps
 * states when none is free (mmap) and registers its exit hook
 * (pthread_setspecific, which allocates nothing for the key the library
 * created at load time among the process's first 32).
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

enum { PARAMS_UNKNOWN, PARAMS_READY, PARAMS_UNAVAILABLE };

/*
 * What the vDSO said about its states.  Any thread that finds the status
 * UNKNOWN asks the vDSO and stores the (same) answer: nobody waits for
 * another thread's question, which a fork or a signal could leave
 * unanswered.  Fields are atomics: several threads may store them.
 */
static struct {
	int status;            /* PARAMS_*; leaves UNKNOWN once, by CAS          */
	size_t state_size;     /* exactly what the kernel asked for              */
	size_t stride;         /* state_size rounded up to STATE_ALIGN           */
	unsigned prot, flags;
} params;

static size_t state_size(void) { return __atomic_load_n(&params.state_size, __ATOMIC_RELAXED); }
static size_t stride(void) { return __atomic_load_n(&params.stride, __ATOMIC_RELAXED); }

/*
 * The registry of states: chunks, each one mapping of states (the kernel's
 * flags: it may wipe them) and, in ordinary memory, each state's owner word.
 * Chunks are only ever added, pushed at the head with a compare-and-swap:
 * two threads that find the registry full at once both add one, which
 * costs memory only until they are used, and no lock is ever held.
 */
#define OWNER_FREE ((uintptr_t)0)
#define OWNER_SEALED ((uintptr_t)1) /* unloading: never to be claimed again */

struct chunk {
	struct chunk *next;
	unsigned char *states;
	size_t states_len, count;
	size_t hint;           /* atomic: where the next claim starts looking   */
	uintptr_t *owner;      /* atomic: OWNER_*, or the owning thread record  */
};

/*
 * The first chunk's header is static, so that a library loaded and unloaded
 * again and again maps nothing but its states, which unloading unmaps.
 * Later headers are never unmapped: a thread may be scanning one at exit.
 */
#define FIRST_CHUNK_MAX 64
static struct chunk first_chunk;
static uintptr_t first_chunk_owner[FIRST_CHUNK_MAX];
static int first_chunk_taken;  /* atomic: a grower has the static header   */

static struct chunk *chunks;   /* atomic: the newest chunk                  */
static size_t state_total;     /* atomic: states in every chunk             */

/* A thread's part: its identity is this record's address. */
struct thread_random {
	void *state;           /* its state; NULL: none yet, or a call has it   */
	unsigned held;         /* atomic: registry states owned by this record  */
	unsigned char registered; /* its exit hook is set                        */
	unsigned char exiting;    /* its exit hook ran: the syscall from now on  */
};
static __thread struct thread_random this_thread __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static int exit_key_ready;

static uintptr_t my_token(void)
{
	return (uintptr_t)&this_thread;
}

static struct chunk *chunk_of(const void *state)
{
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next)
		if ((const unsigned char *)state >= c->states &&
		    (const unsigned char *)state < c->states + c->count * stride())
			return c;
	return NULL;
}

/*
 * A free state now owned by `token`, or NULL.  Each chunk is searched from
 * its hint, the slot after the last claim or the last one given back, so
 * that a claim after a thread's exit finds that thread's state at once and
 * a full registry is searched only before it grows (doubling): O(1)
 * amortised, whatever the number of live threads.
 */
static void *claim_free(uintptr_t token)
{
	size_t step = stride();
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next) {
		size_t n = c->count;
		size_t i = __atomic_load_n(&c->hint, __ATOMIC_RELAXED);
		for (size_t k = 0; k < n; k++, i++) {
			if (i >= n)
				i = 0;
			uintptr_t expected = OWNER_FREE;
			if (__atomic_load_n(&c->owner[i], __ATOMIC_RELAXED) == OWNER_FREE &&
			    __atomic_compare_exchange_n(&c->owner[i], &expected, token, 0,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				__atomic_store_n(&c->hint, i + 1, __ATOMIC_RELAXED);
				return c->states + i * step;
			}
		}
	}
	return NULL;
}

/* Gives a state of this thread's back to the registry. */
static void release_state(void *state)
{
	struct chunk *c = chunk_of(state);
	if (!c)
		return;
	size_t i = (size_t)((unsigned char *)state - c->states) / stride();
	__atomic_store_n(&c->owner[i], OWNER_FREE, __ATOMIC_RELEASE);
	__atomic_store_n(&c->hint, i, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&this_thread.held, 1, __ATOMIC_RELAXED);
}

/*
 * Adds a chunk as large as all the others together (16 states at least),
 * so that the searches before each growth cost O(1) per thread.
 */
static int grow(void)
{
	size_t page = vdsokit__auxv(AT_PAGESZ);
	if (!page)
		page = 4096;
	size_t per_page = page / stride(); /* >= 1: query_params refuses larger states */
	size_t total = __atomic_load_n(&state_total, __ATOMIC_RELAXED);
	size_t count = total > 16 ? total : 16;
	struct chunk *c;
	size_t header_len = 0;
	int no = 0;
	if (__atomic_compare_exchange_n(&first_chunk_taken, &no, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		c = &first_chunk;
		c->owner = first_chunk_owner;
		if (count > FIRST_CHUNK_MAX)
			count = FIRST_CHUNK_MAX;
	} else {
		header_len = sizeof(struct chunk) + count * sizeof(uintptr_t);
		c = sys_mmap(header_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
		if (!c)
			return -1;
		c->owner = (uintptr_t *)(c + 1);
	}
	size_t pages = (count + per_page - 1) / per_page;
	unsigned char *states = sys_mmap(pages * page, __atomic_load_n(&params.prot, __ATOMIC_RELAXED),
					 __atomic_load_n(&params.flags, __ATOMIC_RELAXED));
	if (!states) {
		if (header_len)
			sys2(__NR_munmap, c, header_len);
		else
			__atomic_store_n(&first_chunk_taken, 0, __ATOMIC_RELEASE);
		return -1;
	}
	/* Owners are zero (a fresh mapping, or the never used static array). */
	c->states = states;
	c->states_len = pages * page;
	c->count = count;
	c->hint = 0;
	c->next = __atomic_load_n(&chunks, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&chunks, &c->next, c, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&state_total, count, __ATOMIC_RELAXED);
	return 0;
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

/* Asks the vDSO for the state parameters; 0 when states can be used. */
static int query_params(const struct vdsokit_state *s)
{
	int st = __atomic_load_n(&params.status, __ATOMIC_ACQUIRE);
	if (likely(st == PARAMS_READY))
		return 0;
	if (st == PARAMS_UNAVAILABLE)
		return -1;
	struct opaque_params p;
	memset(&p, 0, sizeof(p));
	long r = call_getrandom(s->getrandom.fn, NULL, 0, 0, &p, ~(size_t)0);
	size_t page = vdsokit__auxv(AT_PAGESZ);
	size_t step = ((size_t)p.size_of_opaque_state + STATE_ALIGN - 1) & ~(size_t)(STATE_ALIGN - 1);
	/* A state (on its own cache lines) larger than a page could not avoid crossing one. */
	int ok = r == 0 && p.size_of_opaque_state > 0 && step <= (page ? page : 4096);
	if (ok) {
		/* The exact size: the kernel's vDSO takes the syscall on any other. */
		__atomic_store_n(&params.state_size, p.size_of_opaque_state, __ATOMIC_RELAXED);
		__atomic_store_n(&params.stride, step, __ATOMIC_RELAXED);
		__atomic_store_n(&params.prot, p.mmap_prot, __ATOMIC_RELAXED);
		__atomic_store_n(&params.flags, p.mmap_flags, __ATOMIC_RELAXED);
	}
	st = PARAMS_UNKNOWN;
	__atomic_compare_exchange_n(&params.status, &st, ok ? PARAMS_READY : PARAMS_UNAVAILABLE, 0,
				    __ATOMIC_RELEASE, __ATOMIC_ACQUIRE);
	return __atomic_load_n(&params.status, __ATOMIC_ACQUIRE) == PARAMS_READY ? 0 : -1;
}

/* A state for this thread's call, claimed now; NULL: use the syscall. */
static void *acquire_state(const struct vdsokit_state *s)
{
	/*
	 * Without the exit hook (a call from a constructor that ran before the
	 * library's, or no key left) a state could not be given back: this
	 * call takes the syscall, and later ones try again.
	 */
	if (this_thread.exiting || !__atomic_load_n(&exit_key_ready, __ATOMIC_ACQUIRE) ||
	    query_params(s))
		return NULL;
	if (!this_thread.registered) {
		/* The exit hook first: a state is never claimed that exit would not give back. */
		if (pthread_setspecific(exit_key, &this_thread))
			return NULL;
		this_thread.registered = 1;
	}
	uintptr_t token = my_token();
	void *state = claim_free(token);
	if (!state && grow() == 0)
		state = claim_free(token);
	if (state)
		__atomic_fetch_add(&this_thread.held, 1, __ATOMIC_RELAXED);
	return state;
}

/* -ENOSYS: no state for this call (or the vDSO refuses): take the syscall. */
static ssize_t random_via_vdso(const struct vdsokit_state *s, void *buf, size_t len, unsigned flags)
{
	/* Take the state out of the record: a signal handler now claims its own. */
	void *state = this_thread.state;
	this_thread.state = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(state == NULL)) {
		state = acquire_state(s);
		if (!state)
			return -ENOSYS;
	}
	ssize_t r = call_getrandom(s->getrandom.fn, buf, len, flags, state, state_size());
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (likely(this_thread.state == NULL))
		this_thread.state = state;
	else
		release_state(state); /* a handler left its own: one is enough */
	return r;
}

/*
 * Every state this thread owns, back to the registry.  One abandoned by a
 * siglongjmp out of a call may have been left marked in use by the vDSO:
 * those are wiped, as the kernel wipes states in a fork child.
 */
static void release_all_mine(void)
{
	void *state = this_thread.state;
	this_thread.state = NULL;
	if (state)
		release_state(state);
	if (__atomic_load_n(&this_thread.held, __ATOMIC_RELAXED) == 0)
		return;
	uintptr_t token = my_token();
	size_t step = stride();
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next)
		for (size_t i = 0; i < c->count; i++)
			if (__atomic_load_n(&c->owner[i], __ATOMIC_RELAXED) == token) {
				memset(c->states + i * step, 0, step);
				release_state(c->states + i * step);
			}
}

static void on_thread_exit(void *record)
{
	(void)record; /* &this_thread: the key's value only makes the hook run */
	this_thread.exiting = 1;
	release_all_mine();
}

/* At load time, so that the key is among the process's first and costs no allocation. */
__attribute__((constructor)) static void random_create_exit_key(void)
{
	if (pthread_key_create(&exit_key, on_thread_exit) == 0)
		__atomic_store_n(&exit_key_ready, 1, __ATOMIC_RELEASE);
}

/*
 * At unload (dlclose, or exit): no exit hook of this image may run any
 * more, and the states of every chunk in which no thread holds one are
 * unmapped.  Each free slot is sealed first with a compare-and-swap, so
 * that no thread can claim it after the check; a chunk with a holder stays
 * mapped, since at exit that thread may be inside a call right now.  Later
 * calls in this image take the syscall.
 */
__attribute__((destructor)) static void random_unload(void)
{
	if (__atomic_exchange_n(&exit_key_ready, 0, __ATOMIC_ACQ_REL))
		pthread_key_delete(exit_key);
	int ready = __atomic_exchange_n(&params.status, PARAMS_UNAVAILABLE, __ATOMIC_ACQ_REL);
	if (ready != PARAMS_READY)
		return;
	release_all_mine();
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next) {
		int held = 0;
		for (size_t i = 0; i < c->count && !held; i++) {
			uintptr_t expected = OWNER_FREE;
			if (!__atomic_compare_exchange_n(&c->owner[i], &expected, OWNER_SEALED, 0,
							 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				held = expected != OWNER_SEALED;
		}
		if (!held)
			sys2(__NR_munmap, c->states, c->states_len);
	}
}

/* For the tests: this thread's state (NULL before its first call) and its length. */
void *vdsokit__random_thread_state(size_t *len)
{
	if (len)
		*len = state_size();
	return this_thread.state;
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

VDSO_EXPORT ssize_t vdsokit_getrandom_via(enum vdsokit_route route, void *buf, size_t len, unsigned flags)
{
	if (route == VDSOKIT_ROUTE_SYSCALL)
		return sys_getrandom(buf, len, flags);
	if (route == VDSOKIT_ROUTE_VDSO) {
		const struct vdsokit_state *s = vdsokit_state();
		return RANDOM_VDSO_POSSIBLE && s->getrandom.fn ? random_via_vdso(s, buf, len, flags)
							       : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
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
