/* SPDX-License-Identifier: MIT */
/*
 * The clock the tool times itself with (deadlines, the progress line,
 * elapsed times): the library's, never the C library's.  Here, at the
 * bottom of the layers, so that the progress line reads it without
 * calling up into the measuring code.
 */
#include <stdbool.h>
#include <time.h>

#include "vdsokit.h"
#include "output/output.h"

/* Set once an --image file runs in the library's place (images/image_file.c). */
static bool clock_by_syscall;

void bench_clock_use_syscall(void)
{
	clock_by_syscall = true;
}

double bench_clock_ns(clockid_t clock)
{
	/*
	 * Not the C library's clock_gettime: an object preloaded in front of it
	 * (libfaketime, a test shim) can stop it, and every deadline on it would
	 * then hang.  The library's own, which nothing can interpose; but the
	 * syscall when --image runs a file's code in the library's place, as
	 * that code is what is under test.  A clock that cannot be read reads
	 * 0: frozen, which every loop on it is bounded against.
	 */
	struct vdsokit_timespec ts = { 0, 0 };
	if (clock_by_syscall)
		vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, clock, &ts);
	else
		vdsokit_clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double bench_now_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC);
}
