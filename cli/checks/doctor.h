/* SPDX-License-Identifier: MIT */
/*
 * vdsokit doctor: the facts it gathers about the process's environment
 * (host/doctor_env.c) and the findings it draws from them (commands/doctor.c).
 */
#ifndef VDSOKIT_CLI_DOCTOR_H
#define VDSOKIT_CLI_DOCTOR_H

#include <stdbool.h>

#include "checks.h"
#include "vdsokit.h"
#include "host/host.h"

/*
 * What doctor infers about the tools and machine around the process
 * (emulators, tracers, hypervisor, the kernel command line), on top of the
 * facts every command shares (struct host_facts: seccomp, time namespace,
 * clocksource, maps).
 */
struct doctor_env {
	/* The kernel command line and what it says about the vDSO and clocks. */
	bool cmdline_readable;
	char cmdline[1024];
	char cmdline_vdso[32];        /* "vdso=0", "vdso32=0", … or ""          */
	char cmdline_clocksource[48]; /* "clocksource=hpet" or ""                */

	/* Three places that show the vDSO: the auxv the libc saw, the file, the maps. */
	bool auxv_file_readable, auxv_file_has_vdso;
	bool maps_readable, maps_has_vdso, maps_has_vvar;

	/* Tools that hide or replace the vDSO. */
	bool valgrind;
	char valgrind_evidence[2][200];
	bool qemu_user;
	unsigned qemu_evidence_count;
	char qemu_evidence[4][200];
	bool rr;
	char rr_evidence[200];

	/* The instruction set /proc/cpuinfo describes ("x86", "arm", …, "" unknown). */
	char cpuinfo_family[16];
	/* Ours, the same way. */
	char build_family[16];
	char hypervisor[128];          /* "KVM", "QEMU"… or "" (bare metal or unknown) */
};

void doctor_env_read(struct doctor_env *env, const struct host_facts *host);

/*
 * doctor's findings, for doctor itself and for metrics: slow is a call off
 * its fast path (doctor's exit status 1), warning a fact that may hide
 * one, info and ok what is as expected.
 */
enum doctor_severity {
	SEVERITY_OK, SEVERITY_INFO, SEVERITY_WARNING, SEVERITY_SLOW, DOCTOR_SEVERITY_COUNT
};

/* "ok", "info", "warning", "slow": also the JSON values and metric labels. */
const char *doctor_severity_name(enum doctor_severity severity);

#define DOCTOR_MAX_EVIDENCE 8
#define DOCTOR_MAX_FINDINGS 24

struct doctor_finding {
	char id[32];                  /* "clocksource-fallback": stable, for machines */
	enum doctor_severity severity;
	char title[240];
	unsigned evidence_count;
	char evidence[DOCTOR_MAX_EVIDENCE][400];
	char action[400];
};

struct doctor_report {
	struct doctor_finding findings[DOCTOR_MAX_FINDINGS];
	unsigned count;
	bool unreadable;              /* facts it needs could not be read       */
};

/*
 * Every check doctor makes, on the facts in host (init_result: what
 * vdsokit_init() said); the clocksource's vDSO read is measured against
 * the syscall for measure_s seconds (at least 31 batches each).
 */
void doctor_examine(struct doctor_report *r, const struct host_facts *host, int init_result,
		    double measure_s);

/* A finding, and what backs it (checks/doctor_report.c): for the checks in doctor.c and checks/doctor_*.c. */
struct doctor_finding *doctor_finding_add(struct doctor_report *r, const char *id,
					  enum doctor_severity severity, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void doctor_evidence(struct doctor_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void doctor_action(struct doctor_finding *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* printf onto the end of buf, cut at size: the lists the checks build. */
void doctor_append(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "clock_gettime(MONOTONIC)", "getcpu": a function, with its clock when it takes one. */
const char *doctor_call_label(enum vdsokit_func fn, long clock, char *buf, size_t size);
/* The number of slow findings: calls off their fast path. */
unsigned doctor_slow_count(const struct doctor_report *r);

/* A C library clock_gettime replaced by a preloaded object (checks/doctor_libc.c). */
void doctor_check_libc_clock(struct doctor_report *r);

/* A kernel without the 32-bit time syscalls, seen from a 32-bit program (checks/doctor_time32.c). */
void doctor_check_time32(struct doctor_report *r);

/* The family of a machine or arch name: "x86" for i686/x86_64, "arm" for arm/aarch64, … */
const char *arch_family(const char *name);

#endif /* VDSOKIT_CLI_DOCTOR_H */
