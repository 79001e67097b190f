/* SPDX-License-Identifier: MIT */
/*
 * The bare vDSO entries (vdsokit_bare_entry) as the CLI calls them, with
 * the kernel's signatures.  One 16-byte buffer fits every ABI's timespec
 * and timeval (x32's and sparc64's timeval are 16 bytes, a 32-bit timespec
 * 8).  time() returns the kernel's long: 64-bit where the entry's time is
 * (x32 too), else 32-bit.  Used by measure.c (timing) and stack_use.c
 * (stack depth).
 */
#ifndef VDSOKIT_CLI_BARE_ENTRY_H
#define VDSOKIT_CLI_BARE_ENTRY_H

#include <stdint.h>
#include <time.h>

struct kernel_time_buffer {
	int64_t first, second;
};
typedef int bare_clock_fn(clockid_t clock, struct kernel_time_buffer *ts);
typedef int bare_gettimeofday_fn(struct kernel_time_buffer *tv, void *tz);
typedef int64_t bare_time64_fn(int64_t *t);
typedef int32_t bare_time32_fn(int32_t *t);
typedef int bare_getcpu_fn(unsigned *cpu, unsigned *node, void *cache);

#endif
