/* SPDX-License-Identifier: MIT */
/*
 * A program that names its own globals as vDSO code in the wild does: the
 * kernel's tools/testing/selftests/vDSO/vdso_test_correctness.c keeps the
 * resolved vDSO pointers in globals called vdso_clock_gettime,
 * vdso_gettimeofday and vdso_getcpu.  Linked with libvdsokit (static or
 * shared) it must build, and its variables must stay its own.
 */
#include <stdio.h>
#include <time.h>
#include <vdsokit.h>

typedef long (*vgtod_t)(void *tv, void *tz);
typedef long (*vgetcpu_t)(unsigned *cpu, unsigned *node, void *cache);
typedef int (*vgettime_t)(clockid_t, struct timespec *);

vgettime_t vdso_clock_gettime;
vgtod_t vdso_gettimeofday;
vgetcpu_t vdso_getcpu;
/* More names a caller may own: the library's old ones and its internals'. */
int vdso_time, vdso_init, vdso_getrandom, vdso_thread_pointer, vdso_use_image;
int image_extent, random_vdso_usable, vdso_global, vdso_ready;

int main(void)
{
	struct vdsokit_timespec ts;
	int failed = 0;

	printf("1..2\n");
	int r = vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
	failed |= r != 0;
	printf("%s 1 - vdsokit_clock_gettime beside a global named vdso_clock_gettime (%d)\n",
	       r == 0 ? "ok" : "not ok", r);
	/* The program's variables must still be zero: nothing interposed them. */
	int untouched = !vdso_clock_gettime && !vdso_gettimeofday && !vdso_getcpu &&
			!vdso_time && !vdso_init && !vdso_global && !vdso_ready;
	failed |= !untouched;
	printf("%s 2 - the program's own vdso_* globals are untouched\n",
	       untouched ? "ok" : "not ok");
	return failed;
}
