/* SPDX-License-Identifier: MIT */
/*
 * The painted-stack probe (stack_probe.h): one call on a stack of its own,
 * in a child process per method.
 */
#include "stack_probe.h"
#include "host/child.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <ucontext.h>
#define HAVE_UCONTEXT 1
#endif

__thread volatile uintptr_t stack_probe_sp;

enum probe_method { PAINT_A, PAINT_B, RESIDENCY, PROBE_METHOD_COUNT };

/* What one child saw, in a shared page. */
struct child_report {
	int done;             /* the child got as far as reporting            */
	int ok;
	size_t depth;         /* paint: deepest changed byte below sp         */
	int residency_known;  /* residency: mincore answered                  */
	int resident_below;   /* residency: a page below sp's page was touched */
	size_t page_lower, page_upper; /* its depths: the touch is in [lower, upper] */
	long call_result;
	char why[200];
};

#ifdef HAVE_UCONTEXT
/* A pattern whose two forms differ in every byte: a write can match one only. */
static unsigned char pattern(enum probe_method w, size_t i)
{
	static const unsigned char a[8] = { 0xa5, 0x3c, 0x96, 0x5a, 0xc3, 0x69, 0x0f, 0xd2 };
	return w == PAINT_B ? (unsigned char)~a[i & 7] : a[i & 7];
}

/* Each thread's own: stack_probe_threads runs several probes at once. */
static __thread long (*child_thunk)(void *);
static __thread void *child_arg;
static __thread long child_result;
static __thread ucontext_t caller_context, probe_context;

static void probe_entry(void)
{
	child_result = child_thunk(child_arg);
}

static void child_run(enum probe_method w, void (*prepare)(void *), long (*thunk)(void *), void *arg,
		      struct child_report *rep)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = STACK_PROBE_BYTES;
	unsigned char *area = mmap(NULL, page + size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		snprintf(rep->why, sizeof(rep->why), "mmap of the probe stack: %s", strerror(errno));
		return;
	}
	unsigned char *base = area + page, *top = base + size;
	if (mprotect(base, size, PROT_READ | PROT_WRITE) != 0) {
		snprintf(rep->why, sizeof(rep->why), "mprotect of the probe stack: %s", strerror(errno));
		return;
	}
	if (prepare)
		prepare(arg);
	/* Residency paints the top page only: the pages below stay unpopulated. */
	unsigned char *paint_from = w == RESIDENCY ? top - page : base;
	for (unsigned char *p = paint_from; p < top; p++)
		*p = pattern(w, (size_t)(p - base));

	if (getcontext(&probe_context) != 0) {
		snprintf(rep->why, sizeof(rep->why), "getcontext: %s", strerror(errno));
		return;
	}
	probe_context.uc_stack.ss_sp = base;
	probe_context.uc_stack.ss_size = size;
	probe_context.uc_link = &caller_context;
	/* No signal frame may land on the painted stack. */
	sigfillset(&probe_context.uc_sigmask);
	makecontext(&probe_context, probe_entry, 0);
	child_thunk = thunk;
	child_arg = arg;
	stack_probe_sp = 0;
	if (swapcontext(&caller_context, &probe_context) != 0) {
		snprintf(rep->why, sizeof(rep->why), "swapcontext: %s", strerror(errno));
		return;
	}
	rep->call_result = child_result;
	uintptr_t sp = stack_probe_sp;
	if (sp <= (uintptr_t)base || sp > (uintptr_t)top) {
		snprintf(rep->why, sizeof(rep->why), sp ? "the marked stack pointer %#lx is outside "
			 "the probe stack" : "no stack pointer was marked (no read for this "
			 "architecture, or the thunk made no mark)", (unsigned long)sp);
		return;
	}
	if (w != RESIDENCY) {
		unsigned char *p = base;
		while (p < top && *p == pattern(w, (size_t)(p - base)))
			p++;
		rep->depth = sp > (uintptr_t)p ? sp - (uintptr_t)p : 0;
		rep->ok = 1;
		return;
	}
	/* The pages wholly below the one sp is in: only the call can have touched them. */
	uintptr_t sp_page = sp & ~(uintptr_t)(page - 1);
	size_t below = (sp_page - (uintptr_t)base) / page;
	unsigned char vec[STACK_PROBE_BYTES / 4096 + 1];
	rep->ok = 1;
	if (below == 0 || below > sizeof(vec))
		return;
	if (mincore(base, below * page, vec) != 0) {
		snprintf(rep->why, sizeof(rep->why), "mincore: %s", strerror(errno));
		return;
	}
	rep->residency_known = 1;
	for (size_t i = 0; i < below; i++) {
		if (vec[i] & 1) {
			uintptr_t start = (uintptr_t)base + i * page;
			rep->resident_below = 1;
			rep->page_upper = sp - start;
			rep->page_lower = sp - (start + page) + 1;
			break;
		}
	}
}

struct thread_job {
	enum probe_method w;
	long (*thunk)(void *);
	void *arg;
	struct child_report *rep;
	int finished; /* atomic */
};

static void *thread_run(void *p)
{
	struct thread_job *j = p;
	child_run(j->w, NULL, j->thunk, j->arg, j->rep);
	__atomic_store_n(&j->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* In the child: one call in this thread, or prepare, then n calls in threads of their own. */
static void child_calls(enum probe_method w, void (*prepare)(void *), long (*thunk)(void *),
			void *const *args, unsigned n, struct child_report *reps)
{
	if (n == 1) {
		child_run(w, prepare, thunk, args[0], &reps[0]);
		reps[0].done = 1;
		return;
	}
	if (prepare)
		prepare(args[0]);
	pthread_t threads[STACK_PROBE_MAX_THREADS];
	struct thread_job jobs[STACK_PROBE_MAX_THREADS];
	unsigned started = 0;
	for (; started < n; started++) {
		jobs[started] = (struct thread_job){ w, thunk, args[started], &reps[started], 0 };
		int e = pthread_create(&threads[started], NULL, thread_run, &jobs[started]);
		if (e != 0) {
			/* The others wait for it at their start line: alarm() ends the child. */
			snprintf(reps[started].why, sizeof(reps[started].why), "pthread_create: %s", strerror(e));
			break;
		}
	}
	/*
	 * Waited for by their flags, not pthread_join: a join that sleeps makes
	 * the time32 futex call, which a y2038 kernel's i386 glibc 2.36 gets
	 * ENOSYS for, and aborts.  The child ends with _exit, threads and all.
	 */
	for (unsigned i = 0; i < started; i++)
		while (!__atomic_load_n(&jobs[i].finished, __ATOMIC_ACQUIRE))
			sched_yield();
	for (unsigned i = 0; i < n; i++)
		reps[i].done = 1;
}
#endif

bool stack_probe(void (*prepare)(void *arg), long (*thunk)(void *arg), void *arg,
		 struct stack_probe_result *r)
{
	return stack_probe_threads(prepare, thunk, &arg, 1, r);
}

bool stack_probe_threads(void (*prepare)(void *arg), long (*thunk)(void *arg), void *const *args,
			 unsigned n, struct stack_probe_result *r)
{
	memset(r, 0, sizeof(*r) * n);
#ifndef HAVE_UCONTEXT
	(void)prepare, (void)thunk, (void)args;
	for (unsigned i = 0; i < n; i++)
		snprintf(r[i].why, sizeof(r[i].why), "this libc has no makecontext/swapcontext (musl)");
	return false;
#else
	if (n == 0 || n > STACK_PROBE_MAX_THREADS) {
		snprintf(r[0].why, sizeof(r[0].why), "%u calls at once: 1 to %d", n, STACK_PROBE_MAX_THREADS);
		return false;
	}
	size_t bytes = sizeof(struct child_report) * PROBE_METHOD_COUNT * n;
	struct child_report *reps = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reps == MAP_FAILED) {
		for (unsigned i = 0; i < n; i++)
			snprintf(r[i].why, sizeof(r[i].why), "mmap of the report page: %s", strerror(errno));
		return false;
	}
	memset(reps, 0, bytes);
	fflush(NULL);
	/* reps[w * n + i]: what method w saw of call i. */
	char why[sizeof(r->why)] = "";
	for (int w = 0; w < PROBE_METHOD_COUNT && !why[0]; w++) {
		struct child_report *saw = &reps[w * n];
		pid_t pid = child_start();
		if (pid < 0) {
			snprintf(why, sizeof(why), "%s", child_start_why());
			break;
		}
		if (pid == 0) {
			/* A call that never returns must not hang the caller. */
			alarm(20);
			child_calls((enum probe_method)w, prepare, thunk, args, n, saw);
			_exit(0);
		}
		int status = 0;
		child_wait(pid, &status);
		if (WIFSIGNALED(status)) {
			snprintf(why, sizeof(why), "the call died on the %d KiB probe stack "
				 "(signal %d, %s)%s", STACK_PROBE_BYTES / 1024, WTERMSIG(status),
				 strsignal(WTERMSIG(status)), WTERMSIG(status) == SIGSEGV ?
				 ": it overran the stack into the guard page, or faulted on its own" : "");
			break;
		}
	}
	bool all = true;
	for (unsigned i = 0; i < n; i++) {
		struct child_report *a = &reps[PAINT_A * n + i], *b = &reps[PAINT_B * n + i],
				    *res = &reps[RESIDENCY * n + i];
		struct child_report *bad = !a->done || !a->ok ? a : !b->done || !b->ok ? b :
					   !res->done || !res->ok ? res : NULL;
		if (why[0] || bad) {
			snprintf(r[i].why, sizeof(r[i].why), "%s", why[0] ? why : bad->why[0] ? bad->why :
				 "the probe child exited early");
			all = false;
			continue;
		}
		r[i].call_result = a->call_result;
		r[i].written = a->depth > b->depth ? a->depth : b->depth;
		r[i].deepest = r[i].written;
		r[i].residency_checked = res->residency_known;
		/* A page touched below every write: the touch changed nothing there. */
		if (res->resident_below && res->page_lower > r[i].written) {
			r[i].deepest = res->page_upper;
			r[i].page_granular = true;
		}
		r[i].measured = true;
	}
	munmap(reps, bytes);
	return all;
#endif
}
