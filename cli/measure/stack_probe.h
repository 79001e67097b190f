/* SPDX-License-Identifier: MIT */
/*
 * How deep below the stack pointer one call reaches: the call runs on a
 * stack of its own (an mmap with a PROT_NONE guard page below it, entered
 * with makecontext/swapcontext), and what it touched is read back.
 *
 * Two methods, each in a fresh child process (so a first call stays a
 * first call, and a call that overruns the stack kills a child only):
 *   - paint: the whole stack is filled with a pattern (twice, with two
 *     patterns, so a byte written with the pattern's own value is still
 *     seen); the lowest byte that changed is the deepest write, exact;
 *   - residency: only the page holding the stack pointer is painted, the
 *     pages below are left unpopulated, and mincore(2) shows afterwards
 *     which of them the call faulted in.  It sees touches that change
 *     nothing, as a stack probe's `or $0,(%rsp)` does (the -fstack-check
 *     kernels of golang/go#20427), at a page's granularity only.
 * The depth is counted from the stack pointer the thunk marks with
 * STACK_PROBE_MARK() just before its call; on an ABI that pushes the
 * arguments (i386) it includes them.
 *
 * Shared by the CLI (cli/measure/stack_use.c: the vDSO's entries) and the
 * library's test (tests/lib/stack.c: every public call).
 */
#ifndef VDSOKIT_CLI_STACK_PROBE_H
#define VDSOKIT_CLI_STACK_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The stack the call runs on: far more than any call here should need. */
#define STACK_PROBE_BYTES (64 * 1024)

/* Each thread's own: stack_probe_threads marks several at once. */
extern __thread volatile uintptr_t stack_probe_sp;

/*
 * The stack pointer, read where it stands: one instruction per
 * architecture.  0 where this file knows no way (then nothing is measured).
 */
static inline __attribute__((always_inline)) uintptr_t stack_probe_current_sp(void)
{
	uintptr_t sp = 0;
#if defined(__x86_64__)
	/* A 64-bit operand: x32's uintptr_t is 32 bits, %rsp is not. */
	unsigned long long rsp;
	__asm__ volatile("mov %%rsp, %0" : "=r"(rsp));
	sp = (uintptr_t)rsp;
#elif defined(__i386__)
	__asm__ volatile("mov %%esp, %0" : "=r"(sp));
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ volatile("mov %0, sp" : "=r"(sp));
#elif defined(__riscv)
	__asm__ volatile("mv %0, sp" : "=r"(sp));
#elif defined(__powerpc__)
	__asm__ volatile("mr %0, 1" : "=r"(sp));
#elif defined(__s390x__)
	__asm__ volatile("lgr %0, %%r15" : "=r"(sp));
#elif defined(__mips__) || defined(__loongarch__)
	__asm__ volatile("move %0, $sp" : "=r"(sp));
#elif defined(__sparc__) && defined(__arch64__)
	/* %sp is biased by 2047 on sparc64: the frame is at %sp + 2047. */
	__asm__ volatile("mov %%sp, %0" : "=r"(sp));
	sp += 2047;
#elif defined(__sparc__)
	__asm__ volatile("mov %%sp, %0" : "=r"(sp));
#elif defined(__m68k__)
	__asm__ volatile("move.l %%sp, %0" : "=r"(sp));
#endif
	return sp;
}

/* In the thunk, immediately before the call to measure. */
#define STACK_PROBE_MARK() (stack_probe_sp = stack_probe_current_sp())

struct stack_probe_result {
	bool measured;
	size_t deepest;      /* bytes below the marked stack pointer           */
	/*
	 * The deepest touch was seen by residency only (nothing was written
	 * there): deepest is then the bottom of the page it fell in, an upper
	 * bound at most a page above the truth.
	 */
	bool page_granular;
	size_t written;      /* the deepest byte written (paint), exact        */
	bool residency_checked; /* mincore answered: untouched-but-read pages seen */
	long call_result;    /* what the thunk returned (from the first run)   */
	char why[200];       /* !measured: the reason                          */
};

/*
 * Runs prepare(arg) (may be NULL; on the process's own stack: warm-up
 * calls), then thunk(arg) on the probe stack, in each of three child
 * processes, and combines what they saw.  Returns r->measured.
 */
bool stack_probe(void (*prepare)(void *arg), long (*thunk)(void *arg), void *arg,
		 struct stack_probe_result *r);

/* The most calls stack_probe_threads runs at once. */
#define STACK_PROBE_MAX_THREADS 8

/*
 * The same for n calls at once (n <= STACK_PROBE_MAX_THREADS): in each
 * child, prepare(args[0]) on its own stack, then thunk(args[i]) in n
 * threads, each on a probe stack of its own; r[i] is what thread i's call
 * touched.  The thunks hold their calls back until all have started, if
 * they are to race.  Returns whether every call was measured (else the
 * r[i].why of those that were not says why).
 */
bool stack_probe_threads(void (*prepare)(void *arg), long (*thunk)(void *arg), void *const *args,
			 unsigned n, struct stack_probe_result *r);

#endif /* VDSOKIT_CLI_STACK_PROBE_H */
