/* SPDX-License-Identifier: MIT */
/*
 * doctor: a kernel without the 32-bit time syscalls (CONFIG_COMPAT_32BIT_TIME
 * off, a y2038-hardened build), seen from a 32-bit program.  The library
 * takes the time64 syscalls and needs none of them, and so do glibc 2.36's
 * clock functions (with 32-bit time_t too); what fails is a program that
 * makes those syscalls itself, and glibc's lock waits, which use the time32
 * futex: a 32-bit program's first contended lock aborts ("The futex
 * facility returned an unexpected error code").  A seccomp filter that
 * answers ENOSYS for them looks the same from here, and is named as the
 * other possible cause when one is active.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "checks/doctor.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"

#if defined(SYS_clock_gettime64) && defined(SYS_clock_gettime) && \
    defined(SYS_futex) && !defined(__LP64__)
#define HAVE_TIME32_ABI 1
#endif

#ifdef HAVE_TIME32_ABI
/* 0, or the errno of a call with good arguments. */
static int errno_of(long rc)
{
	return rc < 0 ? errno : 0;
}
#endif

void doctor_check_time32(struct doctor_report *r)
{
#ifdef HAVE_TIME32_ABI
	long buf[4] = { 0 };
	unsigned word = 0;
	struct { const char *name; int error; } calls[] = {
		{ "clock_gettime", errno_of(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, buf)) },
		{ "clock_getres", errno_of(syscall(SYS_clock_getres, CLOCK_MONOTONIC, buf)) },
#ifdef SYS_gettimeofday
		{ "gettimeofday", errno_of(syscall(SYS_gettimeofday, buf, NULL)) },
#endif
#ifdef SYS_time
		{ "time", errno_of(syscall(SYS_time, NULL)) },
#endif
		{ "futex", errno_of(syscall(SYS_futex, &word, 1 | 128, 1, NULL, NULL, 0)) },
	};
	int time64 = errno_of(syscall(SYS_clock_gettime64, CLOCK_MONOTONIC, buf));
	unsigned count = sizeof(calls) / sizeof(calls[0]);
	/*
	 * The kernel's mark is clock_gettime, clock_getres and futex with
	 * 32-bit time all missing beside a working clock_gettime64; time and
	 * gettimeofday vary (6.12 keeps the compat gettimeofday without the
	 * option).  Fewer missing is a filter refusing a few: seccomp's finding.
	 */
	if (time64 != 0 || calls[0].error != ENOSYS || calls[1].error != ENOSYS ||
	    calls[count - 1].error != ENOSYS)
		return;
	char missing[96] = "", present[64] = "";
	for (unsigned i = 0; i < count; i++) {
		char *list = calls[i].error == ENOSYS ? missing : present;
		size_t size = calls[i].error == ENOSYS ? sizeof(missing) : sizeof(present);
		size_t used = strlen(list);
		snprintf(list + used, size - used, "%s%s", used ? ", " : "", calls[i].name);
	}
	const struct host_facts *h = r->host;
	bool filtered = h->seccomp_mode.known && h->seccomp_mode.value == 2;
	struct doctor_finding *f = doctor_finding_add(r, "no-time32-syscalls", SEVERITY_WARNING,
		"the 32-bit time syscalls answer ENOSYS here (%s): glibc's lock waits abort 32-bit "
		"programs on their first contended lock",
		filtered ? "a kernel without CONFIG_COMPAT_32BIT_TIME, or the active seccomp filter"
			 : "a kernel without CONFIG_COMPAT_32BIT_TIME");
	doctor_evidence(f, "ENOSYS: %s; clock_gettime64 works", missing);
	if (present[0])
		doctor_evidence(f, "still there: %s (with 32-bit seconds)", present);
	if (filtered)
		doctor_evidence(f, "%s: Seccomp: 2 (filter), Seccomp_filters: %s: a filter answering "
				"ENOSYS looks the same", h->seccomp_mode.source, fact_text(&h->seccomp_filters));
	doctor_evidence(f, "libvdsokit needs none of them: it takes clock_gettime64 and the "
			"vDSO's 64-bit-time entries");
	doctor_action(f, "a 32-bit program here needs a C library that waits with futex_time64 "
		      "(glibc 2.36's i386 untimed lock waits use the time32 futex and abort the "
		      "program, docs/kernel-findings.md#futex-time32) and must not make the time32 "
		      "syscalls itself; its clock functions through glibc 2.36 work. `vdsokit verify` "
		      "skips its threaded checks here for that reason");
#else
	(void)r;
#endif
}
