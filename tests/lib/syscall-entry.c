// SPDX-License-Identifier: MIT
/*
 * i386: the library's syscalls enter the kernel through the kernel's entry
 * in the vDSO (AT_SYSINFO, __kernel_vsyscall: sysenter or syscall) once a
 * resolution has found it there, and through int $0x80 before that, without
 * a vDSO, or with an image of the program's choosing.  Where a syscall
 * entered is the instruction pointer the kernel hands a seccomp supervisor
 * (syscall-count.h): after __kernel_vsyscall's sysenter or syscall it is
 * the entry's landing pad, inside the vDSO; after the library's own
 * int $0x80, in the library.  Each scenario runs in a child of its own: a
 * fresh library, and a filter that goes with the child.  Elsewhere there
 * is no such entry: SKIP.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

#include "vdsokit.h"
#include "../tap.h"

#if defined(__i386__)
#include "syscall-count.h"
#include "testutil.h"

#define TIMEOUT_SECONDS 10

/* The children's answers (exit codes). */
enum entered { VIA_VDSO, VIA_ELSEWHERE, CALL_FAILED, NOT_ONE_SYSCALL, NO_COUNTER };

static const char *const entered_text[] = {
	[VIA_VDSO] = "through the vDSO's entry",
	[VIA_ELSEWHERE] = "outside the vDSO (int $0x80)",
	[CALL_FAILED] = "the call failed",
	[NOT_ONE_SYSCALL] = "not exactly one clock syscall seen",
	[NO_COUNTER] = "no seccomp supervisor",
};

/* The process's vDSO mapping, from /proc/self/maps (the children's is the same). */
static uintptr_t vdso_start, vdso_end;

static void find_vdso_mapping(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2) {
			vdso_start = start;
			vdso_end = end;
		}
	}
	fclose(f);
}

enum scenario {
	FIRST_CALL,      /* the first call of the process, on a syscall route */
	BEFORE_RESOLVED, /* the syscall route before anything resolved       */
	NO_VDSO,         /* vdsokit_use_image(NULL): no vDSO                  */
	OTHER_IMAGE,     /* vdsokit_use_image(a copy): the entry is not in it */
};

static unsigned char image_copy[256 * 1024] __attribute__((aligned(4096)));

/* One clock read on the syscall route; the clock_gettime syscalls it made are counted. */
static int one_call(void *arg)
{
	enum scenario s = (enum scenario)(intptr_t)arg;
	static const long clock_nrs[] = {
#ifdef __NR_clock_gettime64
		__NR_clock_gettime64,
#endif
		__NR_clock_gettime,
	};
	struct syscall_counter counter;
	struct vdsokit_timespec ts = { 0, 0 };

	if (s == NO_VDSO && vdsokit_use_image(NULL, 0) != 0)
		return CALL_FAILED;
	if (s == OTHER_IMAGE) {
		size_t size = vdso_end - vdso_start;
		if (size > sizeof(image_copy))
			return CALL_FAILED;
		memcpy(image_copy, (const void *)vdso_start, size);
		if (vdsokit_use_image(image_copy, size) != 0)
			return CALL_FAILED;
	}
	if (s == NO_VDSO || s == OTHER_IMAGE)
		vdsokit_init(); /* resolved: what a plain call would do first */
	if (counter_start(&counter, clock_nrs, (int)(sizeof(clock_nrs) / sizeof(clock_nrs[0]))) != 0)
		return NO_COUNTER;
	counter_on(&counter);
	int r = s == BEFORE_RESOLVED
			? vdsokit_clock_gettime_via(VDSOKIT_ROUTE_SYSCALL, CLOCK_THREAD_CPUTIME_ID, &ts)
			: vdsokit_clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	int n = counter_off(&counter);
	if (r != 0 || (ts.tv_sec == 0 && ts.tv_nsec == 0))
		return CALL_FAILED;
	if (n != 1)
		return NOT_ONE_SYSCALL;
	uint64_t ip = counter.last_ip;
	return ip >= vdso_start && ip < vdso_end ? VIA_VDSO : VIA_ELSEWHERE;
}

static void expect(enum scenario s, enum entered want, const char *what)
{
	int status = run_in_child(one_call, (void *)(intptr_t)s, TIMEOUT_SECONDS);
	if (!child_exited(status)) {
		ok(0, "%s: the child crashed or hung", what);
		return;
	}
	int got = WEXITSTATUS(status);
	if (got == NO_COUNTER) {
		skip("%s: no seccomp supervisor here (qemu-user, or SECCOMP_USER_NOTIF_FLAG_CONTINUE before 5.5)",
		     what);
		return;
	}
	if (!ok(got == (int)want, "%s: %s", what, entered_text[want]))
		diag("instead: %s", got <= NO_COUNTER ? entered_text[got] : "an unexpected exit code");
}

int main(void)
{
	find_vdso_mapping();
	if (!vdso_start || !getauxval(AT_SYSINFO)) {
		printf("1..0 # SKIP no vDSO, or no AT_SYSINFO (qemu-user, vdso=0)\n");
		return 0;
	}
	diag("vDSO at %#lx-%#lx, AT_SYSINFO %#lx", (unsigned long)vdso_start, (unsigned long)vdso_end,
	     getauxval(AT_SYSINFO));
	expect(FIRST_CALL, VIA_VDSO, "a first call on a syscall route (CLOCK_THREAD_CPUTIME_ID)");
	expect(BEFORE_RESOLVED, VIA_ELSEWHERE, "the syscall route before any resolution");
	expect(NO_VDSO, VIA_ELSEWHERE, "vdsokit_use_image(NULL): no vDSO");
	expect(OTHER_IMAGE, VIA_ELSEWHERE, "vdsokit_use_image(a copy): AT_SYSINFO is not in the image");
	return done_testing();
}
#else
int main(void)
{
	printf("1..0 # SKIP only i386 has a kernel syscall entry (AT_SYSINFO) to call\n");
	return 0;
}
#endif
