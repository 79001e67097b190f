/* SPDX-License-Identifier: MIT */
/*
 * Per-call latency percentiles from the CPU's cycle counter.  The batch
 * medians of bench say what a call costs typically; these say how its
 * cost spreads (a syscall's tail, a vDSO read retried across a clock
 * update).  Only on x86, whose invariant TSC ticks at GHz rates and is
 * readable in user space; the fences keep the call inside the timed region.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "measure/measure.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static inline uint64_t tsc_before(void)
{
	uint32_t lo, hi;
	/* lfence: earlier instructions finish before the counter is read. */
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t tsc_after(void)
{
	uint32_t lo, hi, aux;
	/* rdtscp waits for the call to finish; lfence keeps later work out. */
	__asm__ volatile("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

bool latency_supported(void)
{
	unsigned a, b, c, d;
	/* rdtscp: CPUID 0x80000001 EDX bit 27; invariant TSC: 0x80000007 EDX bit 8. */
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(d & (1u << 27)))
		return false;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
		return false;
	return true;
}

static double raw_now_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC_RAW);
}

/* TSC ticks per ns, measured once. */
static double tsc_per_ns(void)
{
	static double rate;
	if (rate > 0)
		return rate;
	double t0 = raw_now_ns();
	uint64_t c0 = tsc_before();
	double t1;
	unsigned long reads = 0;
	/* Bounded: a clock that stands still is no ruler (latency_measure checks). */
	do
		t1 = raw_now_ns();
	while (t1 - t0 < 10e6 && ++reads < BENCH_CLOCK_STILL_READS * 16);
	uint64_t c1 = tsc_after();
	rate = (double)(c1 - c0) / (t1 - t0);
	return rate;
}

/*
 * The smallest step the counter takes: AMD's TSC, for one, counts in steps
 * of tens of cycles (26 at 2.6 GHz, 10 ns), below which nothing is seen.
 */
static uint64_t tsc_step(void)
{
	static uint64_t step;
	if (step)
		return step;
	uint64_t prev = tsc_before();
	step = UINT64_MAX;
	for (int i = 0; i < 1000; i++) {
		uint64_t now = tsc_before();
		if (now > prev && now - prev < step)
			step = now - prev;
		prev = now;
	}
	return step;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Sorted cycle counts of `samples` timed single calls. */
static uint64_t *sample_cycles(bench_loop *loop, long arg, unsigned samples)
{
	uint64_t *cycles = malloc(samples * sizeof(*cycles));
	if (!cycles)
		return NULL;
	loop(arg, 100);   /* warm-up */
	for (unsigned i = 0; i < samples; i++) {
		uint64_t start = tsc_before();
		loop(arg, 1);
		cycles[i] = tsc_after() - start;
	}
	qsort(cycles, samples, sizeof(*cycles), compare_u64);
	return cycles;
}

static double rank(const uint64_t *sorted, unsigned count, double q)
{
	unsigned i = (unsigned)ceil(q * count);
	return (double)sorted[i ? i - 1 : 0];
}

void latency_measure(const struct bench_case *c, enum bench_path path, unsigned samples,
		     struct latency_result *out)
{
	memset(out, 0, sizeof(*out));
	out->p50_ns = out->p90_ns = out->p99_ns = out->p999_ns = out->max_ns = NAN;
	out->resolution_ns = NAN;
	bench_loop *loop = bench_loop_of(c, path);
	if (!loop || samples == 0 || !latency_supported() || bench_clock_frozen())
		return;

	/* The cost of the timing itself: the same loop around an empty call. */
	static double overhead = -1;
	if (overhead < 0) {
		struct bench_case floor = { .func = VDSOKIT_FN_COUNT };
		uint64_t *empty = sample_cycles(bench_loop_of(&floor, BENCH_LIBRARY), 0, 2001);
		overhead = empty ? rank(empty, 2001, 0.5) : 0;
		free(empty);
	}
	uint64_t *cycles = sample_cycles(loop, c->arg, samples);
	if (!cycles)
		return;
	double per_ns = tsc_per_ns();
	double q[] = { 0.5, 0.9, 0.99, 0.999, 1.0 };
	double *fields[] = { &out->p50_ns, &out->p90_ns, &out->p99_ns, &out->p999_ns, &out->max_ns };
	for (unsigned k = 0; k < 5; k++) {
		double v = rank(cycles, samples, q[k]) - overhead;
		*fields[k] = (v > 0 ? v : 0) / per_ns;
	}
	out->samples = samples;
	out->resolution_ns = tsc_step() / per_ns;
	out->available = true;
	free(cycles);
}

#else /* no cycle counter worth the name */

bool latency_supported(void)
{
	return false;
}

void latency_measure(const struct bench_case *c, enum bench_path path, unsigned samples,
		     struct latency_result *out)
{
	(void)c;
	(void)path;
	(void)samples;
	memset(out, 0, sizeof(*out));
	out->p50_ns = out->p90_ns = out->p99_ns = out->p999_ns = out->max_ns = NAN;
	out->resolution_ns = NAN;
}

#endif
