// SPDX-License-Identifier: MIT
/*
 * getcpu against the syscall, on every CPU this process may run on, after
 * migrations back and forth, in threads and in a forked child, through
 * both the header's inline path (vdsokit_getcpu) and the library function
 * ((vdsokit_getcpu), the macro suppressed), with and without node.  Where
 * the libc registered an rseq area (glibc 2.35+ does for every thread,
 * unless the kernel or an emulator refused it), the route must be "rseq".
 */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

/* glibc's rseq registration (weak: other libcs have none). */
extern const unsigned int __rseq_size __attribute__((weak));
extern const ptrdiff_t __rseq_offset __attribute__((weak));

static int pin_to(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/*
 * Pinned to cpu: every way of calling getcpu says cpu, and the node the
 * syscall says.  1 on a disagreement (diagnosed), 0 on agreement, -1 when
 * the thread could not be put there (nothing compared).
 */
static int disagreements_on(int cpu, const char *where)
{
	unsigned want_cpu = ~0u, want_node = ~0u;
	if (pin_to(cpu) != 0 || sys_getcpu(&want_cpu, &want_node) != 0)
		return -1;
	int bad = 0;
	unsigned c1 = ~0u, c2 = ~0u, c3 = ~0u, n3 = ~0u, c4 = ~0u, n4 = ~0u, n5 = ~0u;
	int r1 = vdsokit_getcpu(&c1, NULL);
	int r2 = (vdsokit_getcpu)(&c2, NULL);
	int r3 = vdsokit_getcpu(&c3, &n3);
	int r4 = (vdsokit_getcpu)(&c4, &n4);
	int r5 = vdsokit_getcpu(NULL, &n5);
	if (r1 || r2 || r3 || r4 || r5 || c1 != want_cpu || c2 != want_cpu || c3 != want_cpu ||
	    c4 != want_cpu || n3 != want_node || n4 != want_node || n5 != want_node) {
		diag("%s, CPU %d: syscall cpu %u node %u; inline %d:%u, library %d:%u, "
		     "inline+node %d:%u/%u, library+node %d:%u/%u, node only %d:%u", where, cpu, want_cpu,
		     want_node, r1, c1, r2, c2, r3, c3, n3, r4, c4, n4, r5, n5);
		bad = 1;
	}
	return bad;
}

static int cpu_count(void)
{
	cpu_set_t all;
	if (sched_getaffinity(0, sizeof(all), &all) != 0)
		return 1;
	int last = 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &all))
			last = i;
	return last + 1;
}

static cpu_set_t original;
static int ncpus;

/*
 * Every allowed CPU in turn, then 200 moves from one allowed CPU to the
 * next (migrations), then free again.  The disagreements; a run that
 * compared on no CPU counts as one.
 */
static int disagreements_everywhere(const char *where)
{
	int allowed[CPU_SETSIZE], nallowed = 0, bad = 0, compared = 0;
	for (int i = 0; i < ncpus; i++)
		if (CPU_ISSET(i, &original))
			allowed[nallowed++] = i;
	for (int k = 0; k < nallowed + 200; k++) {
		int r = disagreements_on(allowed[k % nallowed], where);
		if (r >= 0) {
			bad += r;
			compared++;
		}
	}
	sched_setaffinity(0, sizeof(original), &original);
	if (compared == 0) {
		diag("%s: could not be pinned to any of the %d allowed CPUs", where, nallowed);
		return 1;
	}
	return bad;
}

static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)disagreements_everywhere("thread");
}

static int child_main(void *arg)
{
	(void)arg;
	return disagreements_everywhere("forked child") ? 1 : 0;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sched_getaffinity(0, sizeof(original), &original);
	ncpus = cpu_count();
	printf("# %d CPU ids, glibc rseq area: %s (size %u)\n", ncpus,
	       &__rseq_size && __rseq_size ? "registered" : "none", &__rseq_size ? __rseq_size : 0);

	ok(disagreements_everywhere("main thread") == 0,
	   "main thread: getcpu equals the syscall on each of the %d allowed CPUs, and over 200 moves among them",
	   CPU_COUNT(&original));

	struct vdsokit_path p;
	vdsokit_path_of(VDSOKIT_FN_GETCPU, 0, &p);
	int libc_rseq = &__rseq_size && __rseq_size >= 8 && &__rseq_offset;
	if (libc_rseq)
		ok(p.route == VDSOKIT_ROUTE_RSEQ && (p.reason == VDSOKIT_REASON_RSEQ_AREA ||
						     p.reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY),
		   "the libc registered an rseq area: getcpu's route is %s (%s)", vdsokit_route_name(p.route),
		   vdsokit_reason_text(p.reason));
	else
		ok(p.route != VDSOKIT_ROUTE_RSEQ, "no rseq area from the libc: getcpu's route is %s",
		   vdsokit_route_name(p.route));

	enum { THREADS = 4 };
	pthread_t t[THREADS];
	int started = 0, bad = 0;
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread_main, NULL) == 0)
			started++;
	for (int i = 0; i < started; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		bad += (int)(intptr_t)ret;
	}
	ok(started == THREADS && bad == 0, "%d threads: getcpu equals the syscall on every CPU id (%d wrong)",
	   started, bad);

	int status = run_in_child(child_main, NULL, 0);
	ok(child_passed(status), "forked child: getcpu equals the syscall on every CPU id (%s)",
	   wait_status_text(status).text);
	return done_testing();
}
