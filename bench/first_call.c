// SPDX-License-Identifier: MIT
/*
 * One first call in a fresh process, for `make bench`: the library's
 * first vdsokit_clock_gettime (locate + parse + resolve + choose, with
 * its page faults and cold caches) right after the C library's start-up,
 * as a program that links libvdsokit meets it.  Built twice: against the
 * static archive (a -static program) and against the shared library.
 *
 * Prints "<ns> <page faults> <again ns>" on stdout.  The libc's clock is
 * read first, so the vDSO's own pages are in (every libc program has them
 * by then) and only the library's cost is counted; the clock's cost is
 * subtracted.  <again ns>: the same resolution at once again, in this
 * process (the static build only: -1 otherwise), the work without its
 * cold caches.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#include "vdsokit.h"

static double elapsed_ns(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

#ifdef FIRST_CALL_STATIC
/* The library's own, reachable in a static link. */
void vdsokit_lib_resolve_clocks(void);
extern int vdsokit_lib_image_kept;
#endif

int main(void)
{
	struct timespec a, b, c, d;
	struct rusage before, after;
	struct vdsokit_timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &a);
	getrusage(RUSAGE_SELF, &before);
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	int err = vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	clock_gettime(CLOCK_MONOTONIC, &c);
	getrusage(RUSAGE_SELF, &after);
	if (err) {
		fprintf(stderr, "first-call: vdsokit_clock_gettime failed (%d)\n", err);
		return 1;
	}
	double clock_ns = elapsed_ns(&a, &b), first = elapsed_ns(&b, &c) - clock_ns, again = -1;
#ifdef FIRST_CALL_STATIC
	clock_gettime(CLOCK_MONOTONIC, &c);
	vdsokit_lib_image_kept = 0; /* parse again, as the first call did */
	vdsokit_lib_resolve_clocks();
	clock_gettime(CLOCK_MONOTONIC, &d);
	again = elapsed_ns(&c, &d) - clock_ns;
#else
	(void)d;
#endif
	printf("%.0f %ld %.0f\n", first, after.ru_minflt - before.ru_minflt, again);
	return 0;
}
