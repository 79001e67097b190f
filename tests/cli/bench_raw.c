/* SPDX-License-Identifier: MIT */
/*
 * tests/cli-bench-raw.t's program: bench's "raw vDSO" loops must call the
 * bare vDSO entry, not the library's vdsokit_*_via(VDSOKIT_ROUTE_VDSO).
 * Linked with the CLI's objects and -Wl,--wrap for each *_via function, so
 * every call the loops make into them is counted; the raw loop of each
 * function runs 1000 calls, and must make none (where the architecture
 * allows bare calls at all: not powerpc).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "vdsokit.h"
#include "measure/measure.h"
#include "../tap.h"

static unsigned long via_calls;

#define WRAP(ret, name, params, args)                 \
	ret __real_##name params;                    \
	ret __wrap_##name params;                    \
	ret __wrap_##name params                     \
	{                                            \
		via_calls++;                         \
		return __real_##name args;           \
	}

WRAP(int, vdsokit_clock_gettime_via, (enum vdsokit_route v, clockid_t c, struct vdsokit_timespec *ts), (v, c, ts))
WRAP(int, vdsokit_clock_getres_via, (enum vdsokit_route v, clockid_t c, struct vdsokit_timespec *ts), (v, c, ts))
WRAP(int, vdsokit_gettimeofday_via, (enum vdsokit_route v, struct vdsokit_timeval *tv, struct timezone *tz), (v, tv, tz))
WRAP(int, vdsokit_time_via, (enum vdsokit_route v, int64_t *t), (v, t))
WRAP(int, vdsokit_getcpu_via, (enum vdsokit_route v, unsigned *cpu, unsigned *node), (v, cpu, node))

int main(void)
{
	static const struct { enum vdsokit_func fn; long arg; } cases[] = {
		{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC },
		{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC_COARSE },
		{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_PROCESS_CPUTIME_ID },
		{ VDSOKIT_FN_CLOCK_GETRES, CLOCK_MONOTONIC },
		{ VDSOKIT_FN_GETTIMEOFDAY, 0 },
		{ VDSOKIT_FN_TIME, 0 },
		{ VDSOKIT_FN_GETCPU, 0 },
	};
	vdsokit_init();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bench_case c;
		bench_case_init(&c, cases[i].fn, cases[i].arg);
		bench_loop *loop = bench_loop_of(&c, BENCH_VDSO);
		if (!loop) {
			skip("%s: no vDSO entry here", c.label);
			continue;
		}
		unsigned long before = via_calls;
		loop(c.arg, 1000);
		unsigned long made = via_calls - before;
#if defined(__powerpc__)
		ok(made == 1000, "%s: the vDSO column goes through vdsokit_*_via on powerpc (%lu calls)",
		   c.label, made);
#else
		ok(made == 0, "%s: 1000 raw vDSO calls, %lu of them through vdsokit_*_via", c.label, made);
#endif
	}
	return done_testing();
}
