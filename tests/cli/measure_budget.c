/* SPDX-License-Identifier: MIT */
/*
 * tests/cli-measure-budget.t's program: a measurement takes the time it
 * was given even when its batches were calibrated while the process was
 * starved of CPU.  Deterministic, no real load: linked with the CLI's
 * objects and -Wl,--wrap=clock_gettime, so the measuring clock is one this
 * program runs fast (the process "gets 1/FACTOR of the CPU") for the
 * first LOADED_NS of the run, which covers the calibration, and at real
 * speed after; the calibrated batches then run FACTOR times shorter than
 * planned.  Before the rounds went on to the deadline, the run ended after
 * about 1/FACTOR of its budget.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "output/output.h"
#include "measure/measure.h"
#include "../tap.h"

#define LOADED_NS 30e6

int __real_clock_gettime(clockid_t clock, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clock, struct timespec *ts);

static double load_factor = 1; /* how much faster the clock runs while loaded */
static double first_ns, last_ns, extra_ns;

static double ns_of(const struct timespec *ts)
{
	return ts->tv_sec * 1e9 + ts->tv_nsec;
}

int __wrap_clock_gettime(clockid_t clock, struct timespec *ts)
{
	int r = __real_clock_gettime(clock, ts);
	if (r != 0 || clock != CLOCK_MONOTONIC)
		return r;
	double now = ns_of(ts);
	if (first_ns == 0)
		first_ns = last_ns = now;
	if (now - first_ns < LOADED_NS)
		extra_ns += (now - last_ns) * (load_factor - 1);
	last_ns = now;
	double shown = now + extra_ns;
	ts->tv_sec = (time_t)(shown / 1e9);
	ts->tv_nsec = (long)(shown - ts->tv_sec * 1e9);
	return 0;
}

static void run(double factor, double seconds, unsigned max_batches)
{
	struct bench_config config = {
		.seconds = seconds, .batch_ns = 50e3, .min_batches = 31, .max_batches = max_batches,
	};
	struct bench_result result;
	load_factor = factor;
	first_ns = 0;
	extra_ns = 0;
	double start = bench_now_ns();
	bench_measure_floor(&config, &result);
	double took = (bench_now_ns() - start) / 1e9;
	ok(took >= 0.95 * seconds,
	   "calibrated at 1/%.0f of the CPU, a %.2f s budget (max %u batches) takes %.3f s",
	   factor, seconds, max_batches, took);
	ok(result.batches >= config.min_batches && result.batches <= 2 * max_batches,
	   "... and keeps %u batch means (at least %u, at most 2 x %u)", result.batches,
	   config.min_batches, max_batches);
	ok(result.median_ns > 0 && isfinite(result.median_ns) && result.calls > 0,
	   "... its figure is measured: %.3f ns/call over %llu calls", result.median_ns,
	   (unsigned long long)result.calls);
}

int main(void)
{
	run(1, 0.4, 1000);
	run(2, 0.4, 1000);
	run(8, 0.4, 1000);
	run(8, 0.4, 40);
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
