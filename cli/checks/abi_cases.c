/* SPDX-License-Identifier: MIT */
/*
 * vdsokit abi: the cases.  Every pointer argument of every function gets
 * each kind of bad pointer; the clock functions get invalid ids and the
 * CPU-time clock ids of other and of nonexistent processes.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi.h"
#include "vdsokit.h"
#include "output/output.h"
#include "checks/checks.h"

const char *abi_pointer_name(enum abi_pointer kind)
{
	switch (kind) {
	case ABI_PTR_VALID: return "valid";
	case ABI_PTR_NULL: return "NULL";
	case ABI_PTR_UNMAPPED: return "unmapped";
	case ABI_PTR_READONLY: return "read-only";
	case ABI_PTR_PARTIAL: return "partly mapped";
	case ABI_PTR_MISALIGNED: return "misaligned";
	case ABI_PTR_KERNEL: return "kernel address";
	case ABI_PTR_KIND_COUNT: break;
	}
	return "?";
}

int abi_memory_init(struct abi_memory *m, const char **what)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *pages = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED) {
		*what = "mmap of the test pages";
		return -errno;
	}
	/* page 0: writable; 1: read-only; 2: writable, then 3: PROT_NONE guard. */
	memset(pages, 0, 4 * page);
	m->writable = pages;
	m->readonly = pages + page;
	m->boundary = pages + 3 * page;
	if (mprotect(m->readonly, page, PROT_READ) != 0 ||
	    mprotect(pages + 3 * page, page, PROT_NONE) != 0) {
		*what = "mprotect of the test pages";
		return -errno;
	}
	/*
	 * The unmapped page: low in the address space where it can be had
	 * (the allocator works top-down and will not hand it out again),
	 * otherwise wherever mmap puts it.  The caller rechecks it with
	 * abi_memory_still_unmapped() before every case.
	 */
	void *low = (void *)(uintptr_t)(0x200000 > page ? 0x200000 : 16 * page);
	unsigned char *gone = mmap(low, page, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (gone == MAP_FAILED)
		gone = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gone == MAP_FAILED) {
		*what = "mmap of the page to unmap";
		return -errno;
	}
	if (munmap(gone, page) != 0) {
		*what = "munmap";
		return -errno;
	}
	m->unmapped = gone;
	return 0;
}

bool abi_memory_still_unmapped(const struct abi_memory *m)
{
	/*
	 * mincore fails with ENOMEM on a range that is not mapped (msync does
	 * too on Linux, but not under qemu-user for 32-bit guests).
	 */
	unsigned char resident;
	return mincore(m->unmapped, (size_t)sysconf(_SC_PAGESIZE), &resident) != 0 && errno == ENOMEM;
}

/* A pointer of the given kind; slot picks one of the distinct valid buffers. */
static void *pointer_for(enum abi_pointer kind, unsigned slot, const struct abi_memory *m)
{
	switch (kind) {
	case ABI_PTR_VALID:
		return m->writable + 256 * slot;
	case ABI_PTR_NULL:
		return NULL;
	case ABI_PTR_UNMAPPED:
		return m->unmapped;
	case ABI_PTR_READONLY:
		return m->readonly;
	case ABI_PTR_PARTIAL:
		/*
		 * Two bytes before the guard page: every object, whatever its
		 * size on a path (a 32-bit kernel's timeval is 8 bytes, ours 16),
		 * straddles into it.
		 */
		return m->boundary - 2;
	case ABI_PTR_MISALIGNED:
		return m->writable + 2048 + 1;
	case ABI_PTR_KERNEL:
		return (void *)(uintptr_t)-4096;
	case ABI_PTR_KIND_COUNT:
		break;
	}
	return NULL;
}

/*
 * The kernel's own answer for time() and gettimeofday().  The library's
 * syscall path for them is not the bare syscall: time() passes NULL and
 * stores *t itself, and 32-bit architectures derive gettimeofday from
 * clock_gettime64 and convert in user space.  Where the architecture has
 * the bare syscall, the "syscall" column makes it, with the caller's
 * pointers (only their faults matter; a 32-bit kernel writes a smaller
 * struct into the valid buffers).  *done is false where there is none.
 */
static long bare_time_syscall(void *t, bool *done)
{
#ifdef SYS_time
	long v = syscall(SYS_time, t);
	/*
	 * A kernel without the 32-bit time syscalls (CONFIG_COMPAT_32BIT_TIME=n)
	 * has no SYS_time for a 32-bit task: the library's syscall path, on
	 * clock_gettime64, is the kernel's answer there.
	 */
	*done = !(v == -1 && errno == ENOSYS);
	return v == -1 ? -errno : 0;
#else
	(void)t;
	*done = false;
	return 0;
#endif
}

static long bare_gettimeofday_syscall(void *tv, void *tz, bool *done)
{
#ifdef SYS_gettimeofday
	long v = syscall(SYS_gettimeofday, tv, tz);
	*done = !(v == -1 && errno == ENOSYS);   /* as for time() */
	return v == -1 ? -errno : 0;
#else
	(void)tv;
	(void)tz;
	*done = false;
	return 0;
#endif
}

long abi_case_call(const struct abi_case *c, enum vdsokit_route route, const struct abi_memory *m)
{
	clockid_t clock = (clockid_t)c->clock;
	void *first, *second;
	bool done;
	long v;

	if (c->owner == ABI_CLOCK_OWN_PROCESS)
		clock = cpu_clock_id(getpid(), false, CPUCLOCK_KIND_SCHED);
	else if (c->owner == ABI_CLOCK_OWN_THREAD)
		clock = cpu_clock_id(gettid(), true, CPUCLOCK_KIND_SCHED);
	switch (c->fn) {
	case VDSOKIT_FN_CLOCK_GETTIME:
		first = pointer_for(c->pointer, 0, m);
		return vdsokit_clock_gettime_via(route, clock, first);
	case VDSOKIT_FN_CLOCK_GETRES:
		first = pointer_for(c->pointer, 0, m);
		return vdsokit_clock_getres_via(route, clock, first);
	case VDSOKIT_FN_GETTIMEOFDAY:
		/* tv is 16 bytes, struct timezone two ints. */
		first = pointer_for(c->bad_argument == 0 ? c->pointer : ABI_PTR_VALID, 0, m);
		second = c->bad_argument == 1 ? pointer_for(c->pointer, 1, m) : NULL;
		if (route == VDSOKIT_ROUTE_SYSCALL) {
			v = bare_gettimeofday_syscall(first, second, &done);
			if (done)
				return v;
		}
		return vdsokit_gettimeofday_via(route, first, second);
	case VDSOKIT_FN_TIME:
		first = pointer_for(c->pointer, 0, m);
		if (route == VDSOKIT_ROUTE_SYSCALL) {
			v = bare_time_syscall(first, &done);
			if (done)
				return v;
		}
		return vdsokit_time_via(route, first);
	case VDSOKIT_FN_GETCPU:
		first = pointer_for(c->bad_argument == 0 ? c->pointer : ABI_PTR_VALID, 0, m);
		second = pointer_for(c->bad_argument == 1 ? c->pointer : ABI_PTR_VALID, 1, m);
		return vdsokit_getcpu_via(route, first, second);
	case VDSOKIT_FN_GETRANDOM:
		first = pointer_for(c->pointer, 0, m);
		return vdsokit_getrandom_via(route, first, c->length, c->flags);
	default:
		return -ENOSYS;
	}
}

/* ---------------------------------------------------------------------- */
/* The case list                                                           */
/* ---------------------------------------------------------------------- */

struct builder {
	struct abi_case *cases;
	unsigned count, max;
};

static struct abi_case *add(struct builder *b, enum vdsokit_func fn, const char *category)
{
	static struct abi_case overflow;
	struct abi_case *c = b->count < b->max ? &b->cases[b->count++] : &overflow;
	memset(c, 0, sizeof(*c));
	c->fn = fn;
	c->pointer = ABI_PTR_VALID;
	snprintf(c->category, sizeof(c->category), "%s", category);
	return c;
}

static const char *clock_text(long clock, char *buf, size_t size)
{
	if (clock >= 0 && clock < 12)
		return clock_id_name(buf, size, clock);
	snprintf(buf, size, "%ld", clock);
	return buf;
}

/* The bad kinds, in the order the report lists them. */
static const enum abi_pointer bad_kinds[] = {
	ABI_PTR_NULL, ABI_PTR_UNMAPPED, ABI_PTR_READONLY, ABI_PTR_PARTIAL,
	ABI_PTR_MISALIGNED, ABI_PTR_KERNEL,
};
#define BAD_KIND_COUNT (sizeof(bad_kinds) / sizeof(bad_kinds[0]))

static void clock_pointer_cases(struct builder *b, enum vdsokit_func fn, const char *param)
{
	for (unsigned k = 0; k < BAD_KIND_COUNT; k++) {
		struct abi_case *c = add(b, fn, "pointer");
		c->clock = CLOCK_MONOTONIC;
		c->pointer = bad_kinds[k];
		snprintf(c->argument, sizeof(c->argument), "%s: %s", param, abi_pointer_name(c->pointer));
		snprintf(c->call, sizeof(c->call), "%s(MONOTONIC, %s %s)", cli_func_name(fn),
			 abi_pointer_name(c->pointer), param);
	}
}

/*
 * A case about the clock id.  why: what the id means, for the report
 * ("of another process (pid 42)"); label: the id as the call shows it.
 */
static struct abi_case *clock_id_case(struct builder *b, enum vdsokit_func fn, const char *category,
				      long clock, const char *why, const char *label,
				      enum abi_pointer pointer)
{
	char text[48];
	struct abi_case *c = add(b, fn, category);
	c->clock = clock;
	c->pointer = pointer;
	if (label)
		snprintf(text, sizeof(text), "%s", label);
	else
		clock_text(clock, text, sizeof(text));
	if (pointer == ABI_PTR_VALID)
		snprintf(c->argument, sizeof(c->argument), "clock %s", why ? why : text);
	else
		snprintf(c->argument, sizeof(c->argument), "clock %s, %s pointer", why ? why : text,
			 abi_pointer_name(pointer));
	snprintf(c->call, sizeof(c->call), "%s(%s, %s)", cli_func_name(fn), text,
		 pointer != ABI_PTR_VALID ? abi_pointer_name(pointer) :
		 fn == VDSOKIT_FN_CLOCK_GETRES ? "&res" : "&ts");
	return c;
}

/*
 * Functions with two pointer arguments: each gets every bad kind in turn,
 * the other being `other_when_first_bad` (gettimeofday: NULL) or valid.
 */
static void two_pointer_cases(struct builder *b, enum vdsokit_func fn, const char *first,
			      const char *second, const char *other_when_first_bad)
{
	for (unsigned which = 0; which < 2; which++) {
		for (unsigned k = 0; k < BAD_KIND_COUNT; k++) {
			const char *param = which ? second : first;
			struct abi_case *c = add(b, fn, "pointer");
			c->pointer = bad_kinds[k];
			c->bad_argument = which;
			snprintf(c->argument, sizeof(c->argument), "%s: %s", param,
				 abi_pointer_name(c->pointer));
			if (which == 0)
				snprintf(c->call, sizeof(c->call), "%s(%s %s, %s)", cli_func_name(fn),
					 abi_pointer_name(c->pointer), param, other_when_first_bad);
			else
				snprintf(c->call, sizeof(c->call), "%s(&%s, %s %s)", cli_func_name(fn),
					 first, abi_pointer_name(c->pointer), param);
		}
	}
}

unsigned abi_cases_build(struct abi_case *cases, unsigned max, const struct abi_processes *procs)
{
	struct builder b = { cases, 0, max };
	struct abi_case *c;

	/* Bad pointers, every pointer argument of every function. */
	clock_pointer_cases(&b, VDSOKIT_FN_CLOCK_GETTIME, "ts");
	clock_pointer_cases(&b, VDSOKIT_FN_CLOCK_GETRES, "res");
	two_pointer_cases(&b, VDSOKIT_FN_GETTIMEOFDAY, "tv", "tz", "NULL");
	for (unsigned k = 0; k < BAD_KIND_COUNT; k++) {
		c = add(&b, VDSOKIT_FN_TIME, "pointer");
		c->pointer = bad_kinds[k];
		snprintf(c->argument, sizeof(c->argument), "t: %s", abi_pointer_name(c->pointer));
		snprintf(c->call, sizeof(c->call), "time(%s t)", abi_pointer_name(c->pointer));
	}
	two_pointer_cases(&b, VDSOKIT_FN_GETCPU, "cpu", "node", "&node");
	for (unsigned k = 0; k < BAD_KIND_COUNT; k++) {
		c = add(&b, VDSOKIT_FN_GETRANDOM, "pointer");
		c->pointer = bad_kinds[k];
		c->length = 16;
		snprintf(c->argument, sizeof(c->argument), "buf: %s", abi_pointer_name(c->pointer));
		snprintf(c->call, sizeof(c->call), "getrandom(%s buf, 16, 0)",
			 abi_pointer_name(c->pointer));
	}
	/* getrandom's other arguments. */
	c = add(&b, VDSOKIT_FN_GETRANDOM, "flags");
	c->length = 16;
	c->flags = 0x100;
	snprintf(c->argument, sizeof(c->argument), "flags: unknown bit 0x100");
	snprintf(c->call, sizeof(c->call), "getrandom(&buf, 16, 0x100)");
	c = add(&b, VDSOKIT_FN_GETRANDOM, "length");
	c->length = 0;
	snprintf(c->argument, sizeof(c->argument), "length 0");
	snprintf(c->call, sizeof(c->call), "getrandom(&buf, 0, 0)");

	/*
	 * Clock ids the kernel rejects; with a NULL pointer, which check wins.
	 * 16 is CLOCK_AUX (the first auxiliary clock) from Linux 6.17 on:
	 * rejected unless that clock was enabled.
	 */
	static const struct { long id; const char *why; } invalid[] = {
		{ -1, NULL }, { 12, NULL }, { 16, "16 (CLOCK_AUX, not enabled)" },
		{ INT_MIN, NULL }, { INT_MAX, NULL },
	};
	for (unsigned i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "clock id", invalid[i].id, invalid[i].why,
			      NULL, ABI_PTR_VALID);
	for (unsigned i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETRES, "clock id", invalid[i].id, invalid[i].why,
			      NULL, ABI_PTR_VALID);
	clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "clock id", 12, NULL, NULL, ABI_PTR_NULL);
	clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "clock id", CLOCK_PROCESS_CPUTIME_ID, NULL, NULL,
		      ABI_PTR_NULL);
	clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "clock id", CLOCK_REALTIME_COARSE, NULL, NULL,
		      ABI_PTR_NULL);

	/* CPU-time clocks by pid, in the kernel's encoding. */
	char why[64], label[64];
	c = clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock", 0, "of the calling process",
			  "cpuclock(own pid, SCHED)", ABI_PTR_VALID);
	c->owner = ABI_CLOCK_OWN_PROCESS;
	c = clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock", 0, "of the calling thread",
			  "cpuclock(own tid, thread, SCHED)", ABI_PTR_VALID);
	c->owner = ABI_CLOCK_OWN_THREAD;
	if (procs->other) {
		static const struct { enum cpu_clock_kind kind; const char *name; } kinds[] = {
			{ CPUCLOCK_KIND_SCHED, "SCHED" }, { CPUCLOCK_KIND_PROF, "PROF" },
			{ CPUCLOCK_KIND_VIRT, "VIRT" },
		};
		for (unsigned i = 0; i < 3; i++) {
			snprintf(why, sizeof(why), "%s of another process", kinds[i].name);
			snprintf(label, sizeof(label), "cpuclock(pid %d, %s)", (int)procs->other,
				 kinds[i].name);
			clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
				      cpu_clock_id(procs->other, false, kinds[i].kind), why, label,
				      ABI_PTR_VALID);
		}
		snprintf(label, sizeof(label), "cpuclock(tid %d, thread, SCHED)", (int)procs->other);
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
			      cpu_clock_id(procs->other, true, CPUCLOCK_KIND_SCHED),
			      "of another process's thread", label, ABI_PTR_VALID);
		snprintf(label, sizeof(label), "cpuclock(pid %d, SCHED)", (int)procs->other);
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETRES, "CPU-time clock",
			      cpu_clock_id(procs->other, false, CPUCLOCK_KIND_SCHED),
			      "of another process", label, ABI_PTR_VALID);
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
			      cpu_clock_id(procs->other, false, CPUCLOCK_KIND_SCHED),
			      "of another process", label, ABI_PTR_NULL);
	}
	clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
		      cpu_clock_id(1, false, CPUCLOCK_KIND_SCHED), "of pid 1",
		      "cpuclock(pid 1, SCHED)", ABI_PTR_VALID);
	if (procs->gone) {
		snprintf(label, sizeof(label), "cpuclock(pid %d, SCHED)", (int)procs->gone);
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
			      cpu_clock_id(procs->gone, false, CPUCLOCK_KIND_SCHED),
			      "of a nonexistent process", label, ABI_PTR_VALID);
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETRES, "CPU-time clock",
			      cpu_clock_id(procs->gone, false, CPUCLOCK_KIND_SCHED),
			      "of a nonexistent process", label, ABI_PTR_VALID);
		snprintf(label, sizeof(label), "cpuclock(tid %d, thread, SCHED)", (int)procs->gone);
		clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
			      cpu_clock_id(procs->gone, true, CPUCLOCK_KIND_SCHED),
			      "of a nonexistent thread", label, ABI_PTR_VALID);
	}
	/* Kind 3 is not a CPU clock but the encoding of a posix-clock fd (fd 0 here). */
	clock_id_case(&b, VDSOKIT_FN_CLOCK_GETTIME, "CPU-time clock",
		      cpu_clock_id(0, false, (enum cpu_clock_kind)3), "fd 0 as a posix clock",
		      "fdclock(fd 0)", ABI_PTR_VALID);
	return b.count;
}
