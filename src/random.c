// SPDX-License-Identifier: MIT
/*
 * getrandom through the vDSO (Linux 6.11+), else the syscall.
 *
 * The vDSO generates from an opaque per-thread state whose size, protection
 * and mapping flags the kernel gives.  The rules, glibc's:
 *   1. A thread reaches its one state through its own TLS (`mine`).
 *   2. A call marks it in use for its duration.  A call that finds it in use
 *      (a signal handler that interrupted a call) takes the syscall and
 *      claims nothing.
 *   3. A call left by siglongjmp leaves the mark: its thread takes the
 *      syscall from then on, and keeps its one state until it exits.
 *   4. States come from page-aligned blocks in which none crosses a page,
 *      through a free list: a thread's first call pops one, its exit pushes
 *      it back (a pthread key destructor).  Each is one compare-and-swap,
 *      whatever the number of threads; blocks are added, doubling, only
 *      when the list is empty and every block before is listed, each by the
 *      one thread whose compare-and-swap claims its slot, so memory is
 *      bounded by the most threads alive at once.
 *   5. A fork child's thread keeps its own state (its TLS is a copy; the
 *      kernel wipes the states' bytes, MAP_DROPPABLE), and fork() gives the
 *      states of the threads the child does not have back to its list.
 * The library is never unloaded (-z nodelete): states and exit hooks stay
 * valid for every thread, whatever dlclose() is called.
 */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "internal.h"

/* For the tests (tests/lib/random-*.c), declared there too: not exported. */
void *vdsokit_lib_random_thread_state(size_t *len);

#ifndef GRND_RANDOM
#define GRND_RANDOM 0x0002
#endif

static ssize_t sys_getrandom(void *buf, size_t len, unsigned flags)
{
	return sys3(__NR_getrandom, buf, len, flags);
}

#if defined(ARCH_HAS_MMAP) || defined(ARCH_HAS_SYSCALL6)
#define RANDOM_VDSO_POSSIBLE 1

/*
 * This thread's: its state, and what a seccomp filter refused it.  A filter
 * that refuses a syscall refuses it every time, to the threads it covers
 * (filters are per thread, inherited by the threads they create): such a
 * thread's calls go straight to the syscall instead of trying again (an
 * mmap and two sigprocmasks a call).
 */
enum { REFUSED_MMAP = 1, REFUSED_SIGNALS = 2 };
static __thread struct {
	uintptr_t state;       /* 0: none yet                                  */
	uintptr_t number;      /* its number on the free list                  */
	unsigned char hooked;  /* the exit hook is set for this thread         */
	unsigned char refused; /* REFUSED_*                                    */
} mine __attribute__((tls_model("initial-exec")));

/* NULL when refused (ENOMEM: for now; anything else: for good, REFUSED_MMAP). */
static void *sys_mmap(size_t len, unsigned prot, unsigned flags)
{
#if defined(__SANITIZE_THREAD__)
	/*
	 * ThreadSanitizer keeps its history by address: it must see mappings
	 * come and go (the libc's calls, which it intercepts), or a block one
	 * thread unmapped and another mapped again at that address is a race.
	 */
	void *p = mmap(NULL, len, (int)prot, (int)flags, -1, 0);
	long r = p == MAP_FAILED ? -(long)errno : (long)p;
#elif defined(ARCH_HAS_MMAP)
	long r = arch_mmap(NULL, len, prot, flags, -1, 0);
#elif defined(__NR_mmap2) && !ARCH_NATIVE_TIME64
	long r = arch_syscall6(__NR_mmap2, 0, (long)len, prot, flags, -1, 0);
#else
	long r = arch_syscall6(__NR_mmap, 0, (long)len, prot, flags, -1, 0);
#endif
	if ((unsigned long)r <= -4096UL)
		return (void *)r;
	if (r != -ENOMEM && r != -EAGAIN)
		mine.refused |= REFUSED_MMAP;
	return NULL;
}

static void sys_munmap(void *p, size_t len)
{
#if defined(__SANITIZE_THREAD__)
	munmap(p, len);
#else
	sys2(__NR_munmap, p, len);
#endif
}

static inline long call_getrandom(long (*fn)(void *, size_t, unsigned, void *, size_t), void *buf,
				  size_t len, unsigned flags, void *state, size_t state_len)
{
#if ARCH_VDSO_CALL5
	return VCALL5_LONG(fn, buf, len, flags, state, state_len);
#else
	return fn(buf, len, flags, state, state_len);
#endif
}

/* ---- what the vDSO asks for ------------------------------------------ */

/*
 * States start on a cache line of their own, so that two threads never
 * share one: 128 bytes covers the lines (and adjacent-line prefetch) of the
 * architectures with a vDSO getrandom, s390's 256-byte lines excepted.
 */
#if defined(__s390x__)
#define STATE_ALIGN 256
#else
#define STATE_ALIGN 128
#endif

/* The kernel's struct vgetrandom_opaque_params. */
struct opaque_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};

enum { PARAMS_UNKNOWN, PARAMS_READY, PARAMS_UNUSABLE };

/*
 * Any thread that finds the status UNKNOWN asks the vDSO and stores the
 * (same) answer, the status last: nobody waits for another's question.
 */
static struct {
	int status;      /* PARAMS_*                                        */
	uint32_t size;   /* exactly what the kernel asked for               */
	uint32_t prot, flags;
	uint32_t stride; /* size rounded up to STATE_ALIGN                  */
	uint32_t per_page;
	size_t page;
} params;

#define PARAM(field) __atomic_load_n(&params.field, __ATOMIC_RELAXED)

/* 0 when states can be used. */
static int ask_params(long (*fn)(void *, size_t, unsigned, void *, size_t))
{
	int status = __atomic_load_n(&params.status, __ATOMIC_ACQUIRE);
	if (likely(status == PARAMS_READY))
		return 0;
	if (status == PARAMS_UNUSABLE)
		return -1;
	struct opaque_params p;
	memset(&p, 0, sizeof(p));
	long r = call_getrandom(fn, NULL, 0, 0, &p, ~(size_t)0);
	size_t page = vdsokit_lib_auxv(AT_PAGESZ);
	if (!page)
		page = 4096;
	size_t stride = ((size_t)p.size_of_opaque_state + STATE_ALIGN - 1) & ~(size_t)(STATE_ALIGN - 1);
	/* A state (on its own cache lines) larger than a page would cross one. */
	status = r == 0 && p.size_of_opaque_state > 0 && stride <= page ? PARAMS_READY : PARAMS_UNUSABLE;
	if (status == PARAMS_READY) {
		__atomic_store_n(&params.size, p.size_of_opaque_state, __ATOMIC_RELAXED);
		__atomic_store_n(&params.prot, p.mmap_prot, __ATOMIC_RELAXED);
		__atomic_store_n(&params.flags, p.mmap_flags, __ATOMIC_RELAXED);
		__atomic_store_n(&params.stride, (uint32_t)stride, __ATOMIC_RELAXED);
		__atomic_store_n(&params.per_page, (uint32_t)(page / stride), __ATOMIC_RELAXED);
		__atomic_store_n(&params.page, page, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&params.status, status, __ATOMIC_RELEASE);
	return status == PARAMS_READY ? 0 : -1;
}

/* ---- the free list ---------------------------------------------------- */

/*
 * States are numbered: block k holds per_page << k of them (2^k pages),
 * numbers from per_page * (2^k - 1) on.  The list's head is one word: a tag
 * in its upper half, counting every change, and the first free number in
 * its lower half (all ones: empty).  A pop that read the head before
 * another thread's change fails its compare-and-swap (the tag moved) unless
 * 2^16 changes came between (2^32 on 64-bit ABIs): a thread would have to
 * stall there while tens of thousands of others start and exit.
 */
#define INDEX_BITS (sizeof(uintptr_t) * 4)
#define INDEX_MASK (((uintptr_t)1 << INDEX_BITS) - 1)
#define INDEX_NONE INDEX_MASK
#define MAX_BLOCKS (INDEX_BITS - 1)

static uintptr_t head = INDEX_NONE;  /* atomic                                */
/*
 * Block k: the kernel's mapping of its states, and one of ours holding that
 * pointer, whether its numbers are listed, and each state's next free
 * number.  It is claimed by the compare-and-swap that stores ours, complete,
 * in its slot; its numbers but the claimer's first are listed once, by the
 * thread that wins the listing's compare-and-swap: the claimer, or one that
 * found the list empty and the block not listed (its claimer not there yet,
 * or cut short: a vfork child killed before it won that compare-and-swap;
 * one killed after it, before its push, leaves the numbers off the list for
 * good: memory, not answers).  A block is added only when the list is empty
 * and every block before it listed, so growth cannot run ahead of the
 * threads, and nothing waits.
 */
struct block {
	unsigned char *states;       /* the kernel's mapping: its prot and flags */
	uint32_t listed;             /* atomic: 1 once its numbers are listed    */
	uint32_t next[];             /* per state: the next free number        */
};
static struct block *blocks[MAX_BLOCKS]; /* atomic: each stored once        */

static unsigned block_of(uintptr_t n, uintptr_t *first)
{
	uintptr_t per_page = PARAM(per_page);
	uintptr_t q = n / per_page + 1;
	unsigned k = (unsigned)(sizeof(long) * 8 - 1) - (unsigned)__builtin_clzl((unsigned long)q);
	*first = per_page * (((uintptr_t)1 << k) - 1);
	return k;
}

static uint32_t *next_of(uintptr_t n)
{
	uintptr_t first;
	unsigned k = block_of(n, &first);
	return &__atomic_load_n(&blocks[k], __ATOMIC_RELAXED)->next[n - first];
}

static void *state_of(uintptr_t n)
{
	uintptr_t first, per_page = PARAM(per_page);
	unsigned k = block_of(n, &first);
	uintptr_t j = n - first;
	return __atomic_load_n(&blocks[k], __ATOMIC_RELAXED)->states + j / per_page * PARAM(page) +
	       j % per_page * PARAM(stride);
}

/* Puts the chain first .. last (already linked) at the head of the list. */
static void push_chain(uintptr_t first, uintptr_t last)
{
	uintptr_t h = __atomic_load_n(&head, __ATOMIC_RELAXED), next;
	do {
		__atomic_store_n(next_of(last), (uint32_t)(h & INDEX_MASK), __ATOMIC_RELAXED);
		next = ((h >> INDEX_BITS) + 1) << INDEX_BITS | first;
	} while (!__atomic_compare_exchange_n(&head, &h, next, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Whether a first call would have to map a block (no free state is listed). */
static int list_empty(void)
{
	return (__atomic_load_n(&head, __ATOMIC_ACQUIRE) & INDEX_MASK) == INDEX_NONE;
}

/* Lists block k's numbers but its first, unless a thread did. */
static void list_block(unsigned k, struct block *b)
{
	uintptr_t per_page = PARAM(per_page), count = per_page << k, first = per_page * (((uintptr_t)1 << k) - 1);
	uint32_t unlisted = 0;
	if (__atomic_compare_exchange_n(&b->listed, &unlisted, 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) && count > 1)
		push_chain(first + 1, first + count - 1); /* release: the block before its numbers */
}

/* Maps block k and claims its slot, keeping its first state: the number kept, or INDEX_NONE. */
static uintptr_t map_block(unsigned k)
{
	uintptr_t per_page = PARAM(per_page), page = PARAM(page);
	if (k >= MAX_BLOCKS || per_page << k >> k != per_page)
		return INDEX_NONE;
	uintptr_t count = per_page << k, first = per_page * (((uintptr_t)1 << k) - 1);
	if (first + count > INDEX_NONE || first + count < first)
		return INDEX_NONE;
	size_t meta_size = sizeof(struct block) + count * sizeof(uint32_t);
	unsigned char *states = sys_mmap(((uintptr_t)1 << k) * page, PARAM(prot), PARAM(flags));
	struct block *b = states ? sys_mmap(meta_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS) : NULL;
	if (b) {
		b->states = states;
		for (uintptr_t j = 1; j + 1 < count; j++)
			b->next[j] = (uint32_t)(first + j + 1);
	}
	/*
	 * The list still empty, now that the mapping is made: a thread that
	 * found it empty before its mmap (or before it was descheduled) and
	 * another's block listed since adds none.  What is left between this
	 * load and the claim is a few instructions.
	 */
	struct block *unclaimed = NULL;
	if (!b || !list_empty() ||
	    !__atomic_compare_exchange_n(&blocks[k], &unclaimed, b, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
		if (states)
			sys_munmap(states, ((uintptr_t)1 << k) * page);
		if (b)
			sys_munmap(b, meta_size);
		return INDEX_NONE;
	}
	list_block(k, b);
	return first;
}

/*
 * The list is empty: list a block whose claimer has not (then INDEX_NONE:
 * this call takes the syscall, a later one pops), or map the next one.
 */
static uintptr_t grow(void)
{
	if (!list_empty())
		return INDEX_NONE;
	unsigned k = 0;
	for (; k < MAX_BLOCKS; k++) {
		struct block *b = __atomic_load_n(&blocks[k], __ATOMIC_ACQUIRE);
		if (!b)
			break;
		if (!__atomic_load_n(&b->listed, __ATOMIC_RELAXED)) {
			list_block(k, b);
			return INDEX_NONE;
		}
	}
	return map_block(k);
}

/* A free state's number, or INDEX_NONE. */
static uintptr_t pop(void)
{
	uintptr_t h = __atomic_load_n(&head, __ATOMIC_ACQUIRE);
	for (;;) {
		uintptr_t n = h & INDEX_MASK;
		if (n == INDEX_NONE)
			return grow();
		/* Stale when another thread popped n meanwhile: then the tag moved and the CAS fails. */
		uintptr_t next = __atomic_load_n(next_of(n), __ATOMIC_RELAXED);
		uintptr_t popped = ((h >> INDEX_BITS) + 1) << INDEX_BITS | next;
		if (__atomic_compare_exchange_n(&head, &h, popped, 1, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			return n;
	}
}

/* ---- a thread's state ------------------------------------------------- */

/* The state's address, with IN_USE during a call (and for good once the thread exits). */
#define IN_USE ((uintptr_t)1)
_Static_assert(STATE_ALIGN > IN_USE, "a state's address has its low bit free");


static pthread_key_t exit_key;
static int exit_hook_usable; /* atomic: see random_create_exit_key */

/*
 * glibc's pthread_setspecific allocates, the first time in a thread, for a
 * key past its first 32 (PTHREAD_KEY_2NDLEVEL_SIZE): a first call in a
 * signal handler could then deadlock in calloc.  musl's never allocates.
 */
#ifdef __GLIBC__
#define KEY_NEVER_ALLOCATES(key) ((key) < 32)
#else
#define KEY_NEVER_ALLOCATES(key) 1
#endif

static void on_thread_exit(void *unused)
{
	(void)unused; /* the key's value only makes the hook run */
	uintptr_t v = mine.state;
	/*
	 * In use until given back: a call from a later destructor takes the
	 * syscall, and a fork from a handler here leaves the state to this
	 * thread in the child (which gives it back below), not on its list too.
	 */
	mine.state = v | IN_USE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (v & ~IN_USE) {
		/* A call left by siglongjmp may have left the vDSO's own in-use mark: wipe it. */
		if (v & IN_USE)
			memset((void *)(v & ~IN_USE), 0, PARAM(size));
		push_chain(mine.number, mine.number);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	mine.state = IN_USE;
}

/* All signals blocked (1) or the old mask back (0): the kernel's sigset, raw, async-signal-safe. */
#define KERNEL_SIGSET_BYTES ((_NSIG - 1) / 8)
static int mask_signals(int block, unsigned long *old)
{
	unsigned long all[KERNEL_SIGSET_BYTES / sizeof(unsigned long)];
	memset(all, 0xff, sizeof(all));
	if (block)
		return arch_syscall4(__NR_rt_sigprocmask, SIG_SETMASK, (long)all, (long)old, KERNEL_SIGSET_BYTES) ? -1 : 0;
	return (int)arch_syscall4(__NR_rt_sigprocmask, SIG_SETMASK, (long)old, 0, KERNEL_SIGSET_BYTES);
}

/*
 * In a fork() child, which has one thread: every state but this thread's
 * goes back on the list, in a chain built anew (the kernel wiped their
 * bytes).  A child made otherwise (_Fork, vfork, clone) runs no fork
 * handler: the other threads' states stay reserved there, memory and not
 * answers.
 */
static void reclaim_in_child(void)
{
	/* No handler may pop from the parent's list while it is rebuilt. */
	unsigned long old[KERNEL_SIGSET_BYTES / sizeof(unsigned long)];
	int masked = mask_signals(1, old) == 0;
	uintptr_t kept = (mine.state & ~IN_USE) ? mine.number : INDEX_NONE, first_free = INDEX_NONE, last = INDEX_NONE;
	uintptr_t per_page = PARAM(per_page);
	for (unsigned k = 0; per_page && k < MAX_BLOCKS; k++) {
		if (!blocks[k])
			continue;
		blocks[k]->listed = 1; /* by the chain below: no other thread is here to */
		uintptr_t first = per_page * (((uintptr_t)1 << k) - 1), count = per_page << k;
		for (uintptr_t n = first; n < first + count; n++) {
			if (n == kept)
				continue;
			if (last == INDEX_NONE)
				first_free = n;
			else
				*next_of(last) = (uint32_t)n;
			last = n;
		}
	}
	if (last != INDEX_NONE)
		*next_of(last) = (uint32_t)INDEX_NONE;
	head = (((head >> INDEX_BITS) + 1) << INDEX_BITS) | first_free;
	if (masked)
		mask_signals(0, old);
}

/*
 * At load, so that the key is among the process's first and its use
 * allocates nothing; and the fork handler.
 */
__attribute__((constructor)) static void random_create_exit_key(void)
{
	if (pthread_key_create(&exit_key, on_thread_exit) == 0 && KEY_NEVER_ALLOCATES(exit_key))
		__atomic_store_n(&exit_hook_usable, 1, __ATOMIC_RELEASE);
	pthread_atfork(NULL, NULL, reclaim_in_child);
}


/*
 * This thread's first state, with signals blocked: no handler can run (and
 * leave by siglongjmp) between taking it off the list and recording it.
 * 0: none could be had (this call takes the syscall; a later one tries again).
 */
static __attribute__((noinline)) uintptr_t claim(void)
{
	unsigned long old[KERNEL_SIGSET_BYTES / sizeof(unsigned long)];
	uintptr_t v = 0;
	if (mask_signals(1, old) != 0) {
		mine.refused |= REFUSED_SIGNALS; /* by a seccomp filter: every time */
		return 0;
	}
	if (!mine.hooked && LOADER_BOUND(pthread_setspecific)(exit_key, &mine) == 0)
		mine.hooked = 1;
	if (mine.hooked) {
		uintptr_t n = pop();
		if (n != INDEX_NONE) {
			v = (uintptr_t)state_of(n);
			mine.number = n;
			mine.state = v | IN_USE;
		}
	}
	mask_signals(0, old);
	return v;
}

/*
 * A thread's first call through the vDSO, its state still 0: the state
 * claimed for it, or 0 (this call takes the syscall).  Never inlined: its
 * acquire load (a barrier on arm64, powerpc, riscv…) and the claim's
 * atomics stay off the path of every later call, which is glibc's
 * (tests/hot-path.t stops at this function, by name).
 */
static __attribute__((noinline)) uintptr_t first_state(long (*fn)(void *, size_t, unsigned, void *, size_t))
{
	if (!__atomic_load_n(&exit_hook_usable, __ATOMIC_ACQUIRE) || ask_params(fn) != 0 ||
	    (mine.refused & REFUSED_SIGNALS) || ((mine.refused & REFUSED_MMAP) && list_empty()))
		return 0;
	return claim();
}

/* -ENOSYS: this call takes the syscall. */
static ssize_t random_via_vdso(long (*fn)(void *, size_t, unsigned, void *, size_t), void *buf, size_t len,
			       unsigned flags)
{
	uintptr_t v = mine.state;
	if (unlikely(v & IN_USE))
		return -ENOSYS; /* a call of this thread is under way, was abandoned, or it exited */
	mine.state = v | IN_USE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(v == 0) && (v = first_state(fn)) == 0) {
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		mine.state = 0;
		return -ENOSYS;
	}
	ssize_t r = call_getrandom(fn, buf, len, flags, (void *)v, PARAM(size));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	mine.state = v;
	return r;
}

enum vdsokit_reason vdsokit_lib_random_reason(const struct found *f)
{
	long (*fn)(void *, size_t, unsigned, void *, size_t) = ROUTE(getrandom);
	if (!fn || !vdsokit_lib_choose(f, VDSOKIT_FN_GETRANDOM).fn)
		return VDSOKIT_REASON_OK; /* no entry: route_of says why */
	if (!__atomic_load_n(&exit_hook_usable, __ATOMIC_ACQUIRE))
		return VDSOKIT_REASON_NO_EXIT_HOOK;
	if (ask_params(fn) != 0)
		return VDSOKIT_REASON_NO_STATE;
	/*
	 * This thread's state in use: a call left by siglongjmp (its calls take
	 * the syscall from then on), or one a signal handler asking here
	 * interrupted (that handler's calls take the syscall).
	 */
	if (mine.state & IN_USE)
		return VDSOKIT_REASON_NO_STATE;
	if (mine.state)
		return VDSOKIT_REASON_OK;
	/*
	 * What this thread's first call needs and a filter may refuse, tried
	 * now if no call has, as that call would: blocking signals, and mapping
	 * only when no free state is listed.
	 */
	if (!(mine.refused & REFUSED_SIGNALS)) {
		unsigned long old[KERNEL_SIGSET_BYTES / sizeof(unsigned long)];
		if (mask_signals(1, old) == 0)
			mask_signals(0, old);
		else
			mine.refused |= REFUSED_SIGNALS;
	}
	if (mine.refused & REFUSED_SIGNALS)
		return VDSOKIT_REASON_NO_STATE;
	if (!list_empty())
		return VDSOKIT_REASON_OK;
	if (!(mine.refused & REFUSED_MMAP)) {
		void *probe = sys_mmap(PARAM(page), PARAM(prot), PARAM(flags));
		if (probe)
			sys_munmap(probe, PARAM(page));
	}
	return mine.refused & REFUSED_MMAP ? VDSOKIT_REASON_NO_STATE_MEMORY : VDSOKIT_REASON_OK;
}

void *vdsokit_lib_random_thread_state(size_t *len)
{
	if (len)
		*len = PARAM(size);
	return (void *)(mine.state & ~IN_USE);
}
#else
#define RANDOM_VDSO_POSSIBLE 0
static ssize_t random_via_vdso(long (*fn)(void *, size_t, unsigned, void *, size_t), void *buf, size_t len,
			       unsigned flags)
{
	(void)fn, (void)buf, (void)len, (void)flags;
	return -ENOSYS;
}

enum vdsokit_reason vdsokit_lib_random_reason(const struct found *f)
{
	return vdsokit_lib_choose(f, VDSOKIT_FN_GETRANDOM).fn ? VDSOKIT_REASON_NO_STATE : VDSOKIT_REASON_OK;
}

void *vdsokit_lib_random_thread_state(size_t *len)
{
	if (len)
		*len = 0;
	return NULL;
}
#endif

/* ---- public ---------------------------------------------------------- */

VDSO_EXPORT ssize_t vdsokit_getrandom(void *buf, size_t len, unsigned flags)
{
	long (*fn)(void *, size_t, unsigned, void *, size_t) = ROUTE(getrandom);
	if (unlikely(fn == NULL)) {
		vdsokit_lib_ensure_resolved();
		fn = ROUTE(getrandom);
	}
	/* GRND_RANDOM reads the blocking pool, which only the syscall serves. */
	if (likely(fn != NULL) && !(flags & GRND_RANDOM)) {
		ssize_t r = random_via_vdso(fn, buf, len, flags);
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
		const void *fn = vdsokit_lib_choose(vdsokit_lib_found(), VDSOKIT_FN_GETRANDOM).fn;
		return fn ? random_via_vdso((long (*)(void *, size_t, unsigned, void *, size_t))(uintptr_t)fn, buf,
					    len, flags)
			  : -ENOSYS;
	}
	if (route != VDSOKIT_ROUTE_AUTO)
		return -EINVAL;
	return vdsokit_getrandom(buf, len, flags);
}
