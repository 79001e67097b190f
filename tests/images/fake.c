/* SPDX-License-Identifier: MIT */
/*
 * The functions of a "callable" synthetic vDSO image.  They return fixed,
 * recognisable values so that a test running on the target architecture
 * (tests/callpath.c under qemu-user) can tell which entry the library
 * called, with which struct layout, and whether it handled the errors:
 *
 *   clock_gettime   native entry: {0x10000 + c, 1000 + c}; on 32-bit-time
 *                   architectures clock 11 (TAI) gives tv_sec = -5, as an
 *                   overflowed 2038 value would;
 *   clock_gettime64 {0x640000 + c, 2000 + c};
 *   both            -EINVAL for a clock outside 0..11; in mips' "pre54"
 *                   image -ENOSYS for clock 7 (BOOTTIME: "do the syscall",
 *                   as mips kernels before the generic vDSO of 5.4 answer
 *                   for a clock they cannot read);
 *   clock_getres    {0, 3} from a 32-bit-time entry, {0, 7} from a 64-bit one;
 *   gettimeofday    {0x33333, 0x444}, timezone {5, 0};
 *   time            FAKE_TIME_VALUE_WIDE where native time is 64-bit (but
 *                   powerpc), else 0x55555 (fake_abi.h);  getcpu cpu 3, node 4;
 *   getrandom       the opaque-state parameters for the size query (a
 *                   300-byte state: no divisor of a page; 3,000 in the
 *                   "bigstate" image), else 0xA5 bytes, or -EINVAL for a
 *                   state_len that is not that, -EFAULT
 *                   for a state that crosses a page (4 KiB; sparc's 8);
 *   get_thread_area (m68k) 0x7ead0000.
 *
 * Constraints, because the library maps the file flat and applies no
 * relocation: no global data, no calls between functions (a call could go
 * through a PLT or GOT), nothing the compiler could turn into a memset or
 * memcpy call.  The build checks the image has no dynamic relocation.
 * powerpc uses fake_ppc.S instead (its error convention is CR0.SO).
 */
#include "names.h"
#include "fake_abi.h"

#include <stddef.h>
#include <stdint.h>

#define FAKE_CLOCK_MAX 11
#define FAKE_CLOCK_BOOTTIME 7
#define FAKE_CLOCK_TAI 11

#define FAKE static __attribute__((used, noinline))

/*
 * The native entries take the old syscall ABI's structs: 32-bit time on
 * FAKE_TIME32 architectures, 64-bit elsewhere (x32 included, hence not
 * "long").
 */
#ifdef FAKE_TIME32
typedef int32_t fake_time_t;
typedef int32_t fake_long_t;
#else
typedef int64_t fake_time_t;
typedef int64_t fake_long_t;
#endif

struct fake_timespec_native {
	fake_time_t tv_sec;
	fake_long_t tv_nsec;
};

struct fake_timeval_native {
	fake_time_t tv_sec;
#ifdef FAKE_SUSECONDS_32
	int32_t tv_usec;
#else
	fake_long_t tv_usec;
#endif
};

/* The kernel's 64-bit struct __kernel_timespec. */
struct fake_timespec64 {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct fake_timezone {
	int tz_minuteswest;
	int tz_dsttime;
};

/* The state size the fake asks for, and the page no state may cross. */
#ifdef FAKE_BIG_STATE
#define FAKE_STATE_SIZE 3000 /* one to a page */
#else
#define FAKE_STATE_SIZE 300
#endif
#ifdef __sparc__
#define FAKE_PAGE 8192
#else
#define FAKE_PAGE 4096
#endif

struct fake_getrandom_params {
	uint32_t size_of_opaque_state;
	uint32_t mmap_prot;
	uint32_t mmap_flags;
	uint32_t reserved[13];
};

/* One more call of the entry whose counter is index (fake_abi.h). */
static inline __attribute__((always_inline)) void fake_count(unsigned index)
{
	volatile uint32_t *counters = (volatile uint32_t *)FAKE_COUNTERS_ADDR;
	counters[index]++;
}

/* Shared by both clock_gettime entries: 0 to go on, or the error. */
static inline __attribute__((always_inline)) int fake_clock_error(int clock)
{
	if (clock < 0 || clock > FAKE_CLOCK_MAX)
		return -FAKE_EINVAL;
#ifdef FAKE_DECLINES
	if (clock == FAKE_CLOCK_BOOTTIME)
		return -FAKE_ENOSYS;
#endif
	return 0;
}

#ifdef FAKE_STACK_DEEP
/*
 * The "stackdeep" image (x86_64 only), a test aid for doctor's
 * vdso-stack-deep check (tests/cli-stack-deep.t): entries that reach far
 * below the stack pointer, as the vDSO of a kernel built with stack probes
 * did (golang/go#20427).  Each moves the stack pointer down, touches the
 * bottom and moves it back, in one asm statement so that the compiler's
 * own frame is untouched:
 *   clock_gettime  a probe: 4 KiB + 56 down, `or $0` there, which changes
 *                  no byte (only page residency shows it);
 *   gettimeofday   a deep frame: 2 KiB + 8 down, a word written there.
 */
static inline __attribute__((always_inline)) void fake_stack_probe(void)
{
	__asm__ volatile("sub $0x1038, %%rsp\n\t"
			 "orq $0, (%%rsp)\n\t"
			 "add $0x1038, %%rsp" : : : "memory", "cc");
}

static inline __attribute__((always_inline)) void fake_stack_frame(void)
{
	__asm__ volatile("sub $0x808, %%rsp\n\t"
			 "movq $0, (%%rsp)\n\t"
			 "add $0x808, %%rsp" : : : "memory", "cc");
}
#else
static inline __attribute__((always_inline)) void fake_stack_probe(void) {}
static inline __attribute__((always_inline)) void fake_stack_frame(void) {}
#endif

FAKE int fake_clock_gettime_native(int clock, struct fake_timespec_native *ts)
{
	fake_stack_probe();
#ifdef FAKE_TIME32
	fake_count(FAKE_COUNT_GETTIME_NATIVE);
#else
	if (ts && ts->tv_sec == FAKE_COUNT_MAGIC)
		fake_count(FAKE_COUNT_GETTIME_NATIVE);
#endif
	int err = fake_clock_error(clock);

	if (err)
		return err;
	ts->tv_sec = 0x10000 + clock;
	ts->tv_nsec = 1000 + clock;
#ifdef FAKE_TIME32
	if (clock == FAKE_CLOCK_TAI)
		ts->tv_sec = -5;
#endif
	return 0;
}

FAKE int fake_clock_gettime64(int clock, struct fake_timespec64 *ts)
{
	if (ts && ts->tv_sec == FAKE_COUNT_MAGIC)
		fake_count(FAKE_COUNT_GETTIME64);
	int err = fake_clock_error(clock);

	if (err)
		return err;
	ts->tv_sec = 0x640000 + clock;
	ts->tv_nsec = 2000 + clock;
	return 0;
}

FAKE int fake_clock_getres_native(int clock, struct fake_timespec_native *res)
{
	if (clock < 0 || clock > FAKE_CLOCK_MAX)
		return -FAKE_EINVAL;
	if (res) {
		res->tv_sec = 0;
#ifdef FAKE_TIME32
		res->tv_nsec = 3;
#else
		res->tv_nsec = 7;
#endif
	}
	return 0;
}

FAKE int fake_clock_getres64(int clock, struct fake_timespec64 *res)
{
	if (clock < 0 || clock > FAKE_CLOCK_MAX)
		return -FAKE_EINVAL;
	if (res) {
		res->tv_sec = 0;
		res->tv_nsec = 7;
	}
	return 0;
}

FAKE int fake_gettimeofday(struct fake_timeval_native *tv, struct fake_timezone *tz)
{
	fake_stack_frame();
	if (tv) {
		tv->tv_sec = 0x33333;
		tv->tv_usec = 0x444;
	}
	if (tz) {
		tz->tz_minuteswest = 5;
		tz->tz_dsttime = 0;
	}
	return 0;
}

#ifdef FAKE_TIME32
#define FAKE_TIME_VALUE FAKE_TIME_VALUE_32
#else
#define FAKE_TIME_VALUE FAKE_TIME_VALUE_WIDE
#endif

FAKE fake_time_t fake_time(fake_time_t *t)
{
	if (t)
		*t = FAKE_TIME_VALUE;
	return FAKE_TIME_VALUE;
}

FAKE int fake_getcpu(unsigned *cpu, unsigned *node, void *cache)
{
	(void)cache;
	if (cpu)
		*cpu = 3;
	if (node)
		*node = 4;
	return 0;
}

FAKE long fake_getrandom(void *buf, size_t len, unsigned flags, void *state,
			 size_t state_len)
{
	(void)flags;
	if (!buf && len == 0 && state_len == ~(size_t)0) {
		/* volatile: a plain zeroing loop may become a memset call. */
		volatile struct fake_getrandom_params *p = state;

		p->size_of_opaque_state = FAKE_STATE_SIZE;
		p->mmap_prot = FAKE_PROT_READ_WRITE;
		p->mmap_flags = FAKE_MAP_PRIVATE | FAKE_MAP_ANONYMOUS;
		for (unsigned i = 0; i < 13; i++)
			p->reserved[i] = 0;
		return 0;
	}
	if (state_len != FAKE_STATE_SIZE)
		return -22; /* -EINVAL, as the kernel's vDSO falls back for a wrong size */
	if ((uintptr_t)state % FAKE_PAGE + FAKE_STATE_SIZE > FAKE_PAGE)
		return -14; /* -EFAULT: the kernel's vDSO cannot use a state across pages */
	volatile unsigned char *out = buf;
	for (size_t i = 0; i < len; i++)
		out[i] = 0xA5;
	return (long)len;
}

/*
 * Returns an integer, as the kernel's __vdso_get_thread_area does: on m68k
 * in %d0 only.  %a0 (where m68k returns pointers) is left holding another
 * value, as the real one leaves its data page's address there, so a
 * caller that reads a pointer return gets 0x0bad0000, not the fake's value.
 */
FAKE unsigned long fake_get_thread_area(void)
{
#ifdef __m68k__
	register unsigned long a0 __asm__("a0") = 0x0bad0000;
	__asm__ volatile("" : : "r"(a0));
#endif
	return 0x7ead0000;
}

/*
 * The sparc64 _stick variants: on a CPU without STICK the real ones never
 * return, so a library that calls them hangs here too (and the test's
 * timeout reports it).
 */
FAKE void fake_spin_forever(void)
{
	for (;;)
		__asm__ volatile("");
}

/* Entries the library must never call (sigreturn trampolines, …). */
FAKE int fake_not_called(void)
{
	return -FAKE_ENOSYS;
}

#define EXPORT(impl, name)                                                  \
	extern __typeof__(fake_##impl) name                                 \
		__attribute__((alias("fake_" #impl), visibility("default")));
#define EXPORT_WEAK(impl, name)                                             \
	extern __typeof__(fake_##impl) name                                 \
		__attribute__((weak, alias("fake_" #impl), visibility("default")));
#define EXPORT_OLD(impl, name) EXPORT(impl, name)
#define EXPORT_DATA(name)
#include "exports.h"
