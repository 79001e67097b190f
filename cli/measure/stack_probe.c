/* SPDX-License-Identifier: MIT */
/*
 * The painted-stack probe (stack_probe.h): one call on a stack of its own,
 * in a child process per method.
 */
#include "stack_probe.h"
#include "host/child.h"

#include <errno.h>
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

volatile uintptr_t stack_probe_sp;

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

static long (*child_thunk)(void *);
static void *child_arg;
static long child_result;
static ucontext_t caller_context, probe_context;

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
#endif

bool stack_probe(void (*prepare)(void *arg), long (*thunk)(void *arg), void *arg,
		 struct stack_probe_result *r)
{
	memset(r, 0, sizeof(*r));
#ifndef HAVE_UCONTEXT
	(void)prepare, (void)thunk, (void)arg;
	snprintf(r->why, sizeof(r->why), "this libc has no makecontext/swapcontext (musl)");
	return false;
#else
	struct child_report *reps = mmap(NULL, sizeof(struct child_report) * PROBE_METHOD_COUNT,
					 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reps == MAP_FAILED) {
		snprintf(r->why, sizeof(r->why), "mmap of the report page: %s", strerror(errno));
		return false;
	}
	memset(reps, 0, sizeof(struct child_report) * PROBE_METHOD_COUNT);
	fflush(NULL);
	for (int w = 0; w < PROBE_METHOD_COUNT; w++) {
		pid_t pid = child_start();
		if (pid < 0) {
			snprintf(r->why, sizeof(r->why), "%s", child_start_why());
			goto out;
		}
		if (pid == 0) {
			/* A call that never returns must not hang the caller. */
			alarm(20);
			child_run((enum probe_method)w, prepare, thunk, arg, &reps[w]);
			reps[w].done = 1;
			_exit(0);
		}
		int status = 0;
		child_wait(pid, &status);
		if (WIFSIGNALED(status)) {
			snprintf(r->why, sizeof(r->why), "the call died on the %d KiB probe stack "
				 "(signal %d, %s)%s", STACK_PROBE_BYTES / 1024, WTERMSIG(status),
				 strsignal(WTERMSIG(status)), WTERMSIG(status) == SIGSEGV ?
				 ": it overran the stack into the guard page, or faulted on its own" : "");
			goto out;
		}
		if (!reps[w].done || !reps[w].ok) {
			snprintf(r->why, sizeof(r->why), "%s", reps[w].why[0] ? reps[w].why :
				 "the probe child exited early");
			goto out;
		}
	}
	r->call_result = reps[PAINT_A].call_result;
	r->written = reps[PAINT_A].depth > reps[PAINT_B].depth ? reps[PAINT_A].depth :
								reps[PAINT_B].depth;
	r->deepest = r->written;
	r->residency_checked = reps[RESIDENCY].residency_known;
	/* A page touched below every write: the touch changed nothing there. */
	if (reps[RESIDENCY].resident_below && reps[RESIDENCY].page_lower > r->written) {
		r->deepest = reps[RESIDENCY].page_upper;
		r->page_granular = true;
	}
	r->measured = true;
out:
	munmap(reps, sizeof(struct child_report) * PROBE_METHOD_COUNT);
	return r->measured;
#endif
}
