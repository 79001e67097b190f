/* SPDX-License-Identifier: MIT */
/*
 * doctor: calls the library makes that fail here.  A seccomp filter or
 * sandbox that refuses a syscall a call needs (the fallback, the CPU-time
 * clocks, or the one the vDSO's getrandom makes to set up its state)
 * shows only in what the call returns, whatever its route says; so one
 * call of each is made.
 */
#include "checks/doctor.h"
#include "output/output.h"
#include "measure/measure.h"

/* "clock_gettime(TAI) (EPERM), getrandom (ENOSYS)": one call of each that was refused. */
static void refused_calls(char *failing, size_t size)
{
	static const long clocks[] = {
		CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
		CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI, CLOCK_PROCESS_CPUTIME_ID,
		CLOCK_THREAD_CPUTIME_ID,
	};
	char label[64];
	failing[0] = 0;
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		bool clocked = fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
		unsigned n = clocked ? sizeof(clocks) / sizeof(clocks[0]) : 1;
		for (unsigned i = 0; i < n; i++) {
			struct bench_case c;
			/* 16 bytes for getrandom: the argument of the calls that take no clock. */
			bench_case_init(&c, (enum vdsokit_func)fn, clocked ? clocks[i] : 16);
			long result = bench_call_once(&c, BENCH_LIBRARY);
			if (!syscall_refused(result))
				continue;
			doctor_call_label((enum vdsokit_func)fn, clocked ? clocks[i] : 0, label,
					  sizeof(label));
			doctor_append(failing, size, "%s%s (%s)", failing[0] ? ", " : "", label,
				      errno_name((int)-result));
		}
	}
}

void doctor_check_failing_calls(struct doctor_report *r)
{
	const struct host_facts *h = r->host;
	char failing[512];
	refused_calls(failing, sizeof(failing));
	if (!failing[0])
		return;
	struct doctor_finding *f = doctor_finding_add(r, "calls-fail", SEVERITY_SLOW,
		"calls that fail here: %s", failing);
	doctor_evidence(f, "one call of each through libvdsokit returned these errors");
	if (h->seccomp_mode.known)
		doctor_evidence(f, "%s: Seccomp: %lld%s, Seccomp_filters: %s", h->seccomp_mode.source,
				h->seccomp_mode.value, h->seccomp_mode.value == 2 ? " (filter)" :
				h->seccomp_mode.value == 1 ? " (strict)" : "",
				fact_text(&h->seccomp_filters));
	else
		doctor_evidence(f, "seccomp mode unknown: %s", fact_reason(&h->seccomp_mode));
	doctor_action(f, "%s refuses the syscalls these calls need: allow them in its policy (the "
		      "vDSO's getrandom needs the getrandom syscall to set up its state)",
		      h->seccomp_mode.known && h->seccomp_mode.value == 2 ? "the seccomp filter" :
		      "a seccomp filter or sandbox");
}
