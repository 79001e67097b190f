/* SPDX-License-Identifier: MIT */
/*
 * report's quick benchmark and the routes of every function and clock:
 * see measure.h.  Shared by report and metrics.
 */
#include <sched.h>
#include <string.h>
#include <time.h>

#include "vdsokit.h"
#include "measure/measure.h"

struct quick_case {
	enum vdsokit_func func;
	long arg;
};

/* The calls people make most, and one that never has a vDSO path. */
static const struct quick_case quick_cases[] = {
	{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_REALTIME },
	{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC },
	{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC_COARSE },
	{ VDSOKIT_FN_CLOCK_GETTIME, CLOCK_PROCESS_CPUTIME_ID },
	{ VDSOKIT_FN_GETTIMEOFDAY, 0 },
	{ VDSOKIT_FN_TIME, 0 },
	{ VDSOKIT_FN_GETCPU, BENCH_GETCPU_CPU }, /* as the routes above: the CPU alone */
	{ VDSOKIT_FN_THREAD_POINTER, 0 },
	{ VDSOKIT_FN_GETRANDOM, 16 },
};

_Static_assert(sizeof(quick_cases) / sizeof(quick_cases[0]) == QUICK_COUNT,
	       "QUICK_COUNT (measure.h) is the number of quick_cases");

void report_quick_rows(struct quick_row rows[QUICK_COUNT])
{
	for (unsigned i = 0; i < QUICK_COUNT; i++) {
		bench_case_init(&rows[i].c, quick_cases[i].func, quick_cases[i].arg);
		bench_case_path(&rows[i].c, &rows[i].route);
	}
}

void report_quick_measure(struct quick_row rows[QUICK_COUNT], double seconds)
{
	struct bench_config config = {
		.seconds = seconds,
		.batch_ns = 50e3,
		.min_batches = 31,
		.max_batches = 1000,
	};
	bool wanted[BENCH_PATH_COUNT] = { [BENCH_LIBRARY] = true, [BENCH_SYSCALL] = true };
	int cpu = sched_getcpu();
	cpu_set_t saved;
	bool restore = sched_getaffinity(0, sizeof(saved), &saved) == 0;

	if (cpu >= 0)
		bench_pin_to_cpu(cpu);
	struct bench_case cases[QUICK_COUNT];
	struct bench_result results[QUICK_COUNT][BENCH_PATH_COUNT];
	for (unsigned i = 0; i < QUICK_COUNT; i++)
		cases[i] = rows[i].c;
	bench_measure_cases(cases, QUICK_COUNT, wanted, &config, results);
	for (unsigned i = 0; i < QUICK_COUNT; i++)
		memcpy(rows[i].r, results[i], sizeof(results[i]));
	if (restore)
		sched_setaffinity(0, sizeof(saved), &saved);
}

/* The error the library's call of fn failed with in the quick bench, 0 if none. */
static int measured_refusal(const struct quick_row *rows, enum vdsokit_func fn)
{
	for (unsigned i = 0; rows && i < QUICK_COUNT; i++)
		if (rows[i].c.func == fn && rows[i].r[BENCH_LIBRARY].refused)
			return rows[i].r[BENCH_LIBRARY].refused;
	return 0;
}

unsigned report_routes(struct report_route out[REPORT_ROUTES_MAX], const struct quick_row *rows)
{
	unsigned n = 0;
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		bool per_clock = fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
		for (long k = 0; k < (per_clock ? REPORT_CLOCK_IDS : 1); k++) {
			struct report_route *r = &out[n];
			if (vdsokit_route_of(fn, (clockid_t)k, &r->info) != 0)
				continue;
			r->fn = fn;
			r->per_clock = per_clock;
			r->clock = k;
			r->refused = per_clock ? 0 : measured_refusal(rows, fn);
			n++;
		}
	}
	return n;
}
