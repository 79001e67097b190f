/* SPDX-License-Identifier: MIT */
/*
 * clock-steps: a standalone reproducer for docs/kernel-findings.md#via1-step.
 *
 * Reads CLOCK_MONOTONIC and CLOCK_BOOTTIME back to back for a while and
 * counts the reads that came out below the one before (a step back) and
 * the gaps between two consecutive reads of more than a second (a forward
 * jump, or a stall that long).  On the q800 guest (qemu-system-m68k -M
 * q800, the via1 clocksource) of a loaded host, Linux 6.1 showed both:
 * steps back of up to a tick, and ~5500 s jumps.  On a sound clocksource
 * it prints zeros.
 *
 * It documents; it does not judge: the exit status is 0 whatever it
 * finds (2 for a bad argument).  Needs nothing but a C library:
 *   cc -O2 -o clock-steps clock-steps.c && ./clock-steps 20
 * (m68k guest: m68k-linux-gnu-gcc -static -O2 -o clock-steps clock-steps.c)
 * The reads go through the C library's clock_gettime, which is the
 * syscall for these clocks on m68k.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>

#define GAP_NS 1000000000LL   /* a gap longer than this between two reads is reported */

struct clock_stats {
	const char *name;
	clockid_t id;
	long long reads, steps_back, gaps;
	int64_t prev_ns, largest_back_ns, largest_gap_ns;
	int failed;               /* clock_gettime refused this clock */
};

static int64_t read_ns(clockid_t id, int *failed)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0) {
		*failed = 1;
		return 0;
	}
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sample(struct clock_stats *c)
{
	int64_t now = read_ns(c->id, &c->failed);
	if (c->failed)
		return;
	if (c->reads++ > 0) {
		int64_t d = now - c->prev_ns;
		if (d < 0) {
			c->steps_back++;
			if (-d > c->largest_back_ns)
				c->largest_back_ns = -d;
		} else if (d > GAP_NS) {
			c->gaps++;
			if (d > c->largest_gap_ns)
				c->largest_gap_ns = d;
		}
	}
	c->prev_ns = now;
}

int main(int argc, char **argv)
{
	double seconds = 5;
	char *end = NULL;
	if (argc == 2)
		seconds = strtod(argv[1], &end);
	if (argc > 2 || (argc == 2 && (end == argv[1] || *end || !(seconds > 0 && seconds <= 86400)))) {
		fprintf(stderr, "usage: %s [SECONDS]  (0 < SECONDS <= 86400; default 5)\n", argv[0]);
		return 2;
	}
	struct utsname u;
	uname(&u);
	struct clock_stats clocks[] = {
		{ .name = "MONOTONIC", .id = CLOCK_MONOTONIC },
		{ .name = "BOOTTIME", .id = CLOCK_BOOTTIME },
	};
	/*
	 * The budget is measured on MONOTONIC_RAW, not the clocks under test,
	 * and as a sum of its steps, each counted between 0 and 1 s: it reads
	 * the same counter, and one read far ahead or behind must neither end
	 * the run at once nor hold it until real time catches up.
	 */
	int raw_failed = 0;
	int64_t prev = read_ns(CLOCK_MONOTONIC_RAW, &raw_failed);
	if (raw_failed) {
		printf("clock-steps: not run (clock_gettime(MONOTONIC_RAW) fails here)\n");
		return 0;
	}
	int64_t budget = (int64_t)(seconds * 1e9), elapsed = 0;
	while (elapsed < budget) {
		for (int k = 0; k < 256; k++)
			for (unsigned i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
				sample(&clocks[i]);
		int64_t now = read_ns(CLOCK_MONOTONIC_RAW, &raw_failed), d = now - prev;
		elapsed += d < 0 ? 0 : d > GAP_NS ? GAP_NS : d;
		prev = now;
	}
	printf("clock-steps: Linux %s %s, %.3f s of back-to-back clock_gettime reads\n",
	       u.release, u.machine, (double)elapsed / 1e9);
	for (unsigned i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		const struct clock_stats *c = &clocks[i];
		if (c->failed) {
			printf("%-10s not read: clock_gettime fails for it here\n", c->name);
			continue;
		}
		printf("%-10s %lld reads, %lld steps back (largest %lld ns), %lld gaps over 1 s "
		       "(largest %.3f s)\n", c->name, c->reads, c->steps_back,
		       (long long)c->largest_back_ns, c->gaps, (double)c->largest_gap_ns / 1e9);
	}
	return 0;
}
