// SPDX-License-Identifier: MIT
/*
 * vdsokit_getrandom: the getrandom(2) contract through whichever path this
 * kernel offers (the vDSO on 6.11+ x86_64, the syscall elsewhere), full
 * lengths, the flags, distinct outputs across calls, threads and fork.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

#define THREADS 64
#define OUT 32
/*
 * Calls per thread and wave.  Through the vDSO every call draws from a
 * per-thread state the library hands out and takes back between the waves:
 * 10,000 each, to catch two threads ever sharing one.  Through the syscall
 * the library keeps no state and the kernel draws: 1,000 each check the
 * same contract without the 1.3 million system calls that were the longest
 * step of an emulated guest's plan (s390x under TCG, 24-28 us a system
 * call: with the sorts over a minute, past the step's 120 s on a busy host).
 */
#define CALLS_VIA_VDSO 10000
#define CALLS_VIA_SYSCALL 1000

static unsigned char (*outputs)[OUT];
static int thread_errors;
static size_t calls_per_thread;

static void *worker(void *arg)
{
	size_t t = (size_t)arg;
	for (size_t i = 0; i < calls_per_thread; i++) {
		ssize_t r = vdsokit_getrandom(outputs[t * calls_per_thread + i], OUT, 0);
		if (r != OUT)
			__atomic_add_fetch(&thread_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int cmp_out(const void *a, const void *b)
{
	return memcmp(a, b, OUT);
}

static void test_threads(void)
{
	const char *cannot = threads_cannot_wait();
	if (cannot) {
		skip("%d threads getting random bytes at once: %s", THREADS, cannot);
		return;
	}
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p);
	calls_per_thread = p.route == VDSOKIT_ROUTE_VDSO ? CALLS_VIA_VDSO : CALLS_VIA_SYSCALL;
	size_t n = (size_t)THREADS * calls_per_thread;
	outputs = calloc(n, OUT);
	pthread_t th[THREADS];
	for (int wave = 0; wave < 2; wave++) {
		for (size_t t = 0; t < THREADS; t++)
			pthread_create(&th[t], NULL, worker, (void *)t);
		for (size_t t = 0; t < THREADS; t++)
			pthread_join(th[t], NULL);
		qsort(outputs, n, OUT, cmp_out);
		size_t dups = 0;
		for (size_t i = 1; i < n; i++)
			dups += memcmp(outputs[i - 1], outputs[i], OUT) == 0;
		/* The second wave reuses the states the first wave's threads gave back. */
		ok(thread_errors == 0 && dups == 0,
		   "wave %d: %d threads x %zu calls of %d bytes (%s): %d errors, %zu identical outputs",
		   wave + 1, THREADS, calls_per_thread, OUT, vdsokit_route_name(p.route), thread_errors, dups);
	}
	free(outputs);
}

/* In the child: one output, written to the pipe *arg. */
static int child_writes_output(void *arg)
{
	int fd = *(const int *)arg;
	unsigned char c[OUT];
	ssize_t r = vdsokit_getrandom(c, sizeof(c), 0);
	return r == OUT && write(fd, c, sizeof(c)) == (ssize_t)sizeof(c) ? 0 : 1;
}

static void test_fork(void)
{
	unsigned char before[OUT], parent[OUT], child[OUT];
	int fd[2];
	vdsokit_getrandom(before, sizeof(before), 0); /* this thread's state is in use */
	if (pipe(fd)) {
		skip("pipe failed");
		return;
	}
	/* OUT bytes fit in the pipe: the child does not wait for the reader. */
	int status = run_in_child(child_writes_output, &fd[1], 0);
	close(fd[1]);
	ssize_t got = read(fd[0], child, sizeof(child));
	close(fd[0]);
	ssize_t r = vdsokit_getrandom(parent, sizeof(parent), 0);
	ok(child_passed(status) && got == OUT && r == OUT && memcmp(parent, child, OUT) != 0 &&
		   memcmp(before, child, OUT) != 0,
	   "after fork, parent and child produce different outputs (child %s)",
	   wait_status_text(status).text);
}

static void test_lengths_and_flags(void)
{
	static unsigned char buf[65536 + 64];
	const size_t lens[] = { 0, 1, 15, 16, 17, 255, 256, 4096, 4097, 65536 };
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		memset(buf, 0, sizeof(buf));
		ssize_t r = vdsokit_getrandom(buf, lens[i], 0);
		/* A zeroed 16+ byte run would be a 2^-128 event: treat as "not written". */
		int written = lens[i] < 16 || memcmp(buf + lens[i] - 16, (unsigned char[16]){ 0 }, 16) != 0;
		int untouched = 1;
		for (size_t k = lens[i]; k < lens[i] + 64; k++)
			untouched &= buf[k] == 0;
		ok(r == (ssize_t)lens[i] && written && untouched, "getrandom(%zu) = %zd, tail filled, nothing past it",
		   lens[i], r);
	}
	const struct { unsigned flags; const char *name; } flags[] = {
		{ GRND_NONBLOCK, "GRND_NONBLOCK" }, { GRND_INSECURE, "GRND_INSECURE" },
		{ GRND_RANDOM | GRND_NONBLOCK, "GRND_RANDOM|GRND_NONBLOCK" },
		{ GRND_NONBLOCK | GRND_INSECURE, "GRND_NONBLOCK|GRND_INSECURE" },
		{ 0x1000, "unknown flag 0x1000" }, { GRND_RANDOM | GRND_INSECURE, "GRND_RANDOM|GRND_INSECURE" },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		ssize_t rl = vdsokit_getrandom(buf, 64, flags[i].flags);
		ssize_t rs = vdsokit_getrandom_via(VDSOKIT_ROUTE_SYSCALL, buf, 64, flags[i].flags);
		/* GRND_RANDOM|GRND_NONBLOCK may legitimately return fewer bytes or -EAGAIN. */
		int same = rl == rs || (rl > 0 && rs > 0) || (rl == -EAGAIN || rs == -EAGAIN);
		ok(same, "%s: library %zd, syscall %zd", flags[i].name, rl, rs);
	}
	unsigned char a[OUT], b[OUT];
	vdsokit_getrandom(a, OUT, 0);
	vdsokit_getrandom(b, OUT, 0);
	ok(memcmp(a, b, OUT) != 0, "two calls give different outputs");
}

static void test_path(void)
{
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p);
	unsigned char buf[16];
	ssize_t via = vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, buf, sizeof(buf), 0);
	diag("getrandom path: %s (%s) %s", vdsokit_route_name(p.route), vdsokit_reason_text(p.reason),
	     p.symbol ? p.symbol : "");
	const struct vdsokit_image *img = vdsokit_process_image();
	struct vdsokit_symbol sym;
	const char *names[] = { "__vdso_getrandom", "__kernel_getrandom" };
	int has = 0;
	for (int i = 0; img && i < 2; i++)
		has |= vdsokit_image_lookup(img, names[i], NULL, &sym) == 0;
	if (has) {
		ok(p.route == VDSOKIT_ROUTE_VDSO && via == (ssize_t)sizeof(buf),
		   "the vDSO has getrandom: the library uses it (%s, direct call %zd)",
		   vdsokit_route_name(p.route), via);
	} else {
		ok(p.route == VDSOKIT_ROUTE_SYSCALL && via == -ENOSYS,
		   "no vDSO getrandom (%s): the syscall is taken and reported (%s)",
		   img ? "this kernel's vDSO lacks it" : "no vDSO", vdsokit_reason_text(p.reason));
	}
}

int main(void)
{
	test_path();
	test_lengths_and_flags();
	test_fork();
	test_threads();
	return done_testing();
}
