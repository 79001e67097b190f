/* SPDX-License-Identifier: MIT */
/*
 * vdsokit doctor: the facts it gathers about the process's environment
 * (struct doctor_env, host/host.h), the findings its checks draw from them
 * (checks/doctor_*.c), and the table of checks (commands/doctor.c).
 */
#ifndef VDSOKIT_CLI_DOCTOR_H
#define VDSOKIT_CLI_DOCTOR_H

#include <stdbool.h>

#include "checks.h"
#include "vdsokit.h"
#include "host/host.h"

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

/* The vDSO doctor examines: the process's, or the --image file's. */
struct doctor_vdso {
	bool mapped;                  /* AT_SYSINFO_EHDR given to the process, or --image */
	bool usable;                  /* the library accepted the image            */
	unsigned long address;
	size_t size;                  /* of the [vdso] mapping, 0 if unknown      */
	enum no_vdso_reason missing;  /* when !mapped (host/no_vdso.c)             */
};

/* The current clocksource, and what a measurement says of its vDSO read. */
struct doctor_clocksource {
	bool arch_reads_none;         /* the library sends MONOTONIC to the kernel  */
	int capable;                  /* 1 the vDSO reads it, 0 not, -1 unknown      */
	bool measured;                /* both paths, so the ratio stands             */
	bool vdso_measured;           /* the vDSO's figure alone (vdso_ns)           */
	long syscall_refused;         /* the reference's -errno when refused         */
	double vdso_ns, syscall_ns, ratio;
	bool fallback;                /* the measurement (or the name) proves it     */
};

/* One function (and clock, clock >= 0) and the library's route for it. */
struct doctor_route {
	enum vdsokit_func fn;
	long clock;                   /* -1: the function takes no clock */
	struct vdsokit_route_info info;
};
/* Every function, clocks 0-11 for the two that take one. */
#define DOCTOR_MAX_ROUTES (VDSOKIT_FN_COUNT * 12)

/* What doctor concludes: exit 0 for fast and fast-unchecked, 1 for slow. */
enum doctor_verdict {
	VERDICT_FAST,                 /* no finding is slow, every fact was read      */
	VERDICT_UNCHECKED,            /* none slow, but facts it needs were unknown   */
	VERDICT_SLOW,                 /* some finding is slow                         */
};

/*
 * doctor's one result: the facts it read and the findings it drew from
 * them.  The text and the JSON are both rendered from this, and nothing
 * else is worked out while rendering.
 */
struct doctor_report {
	const struct host_facts *host;
	int init_result;              /* vdsokit_init()'s                              */
	const char *image_file;       /* --image (a test aid), or NULL                 */
	struct doctor_env env;
	struct doctor_vdso vdso;
	struct doctor_clocksource clocksource;
	unsigned route_count;
	struct doctor_route routes[DOCTOR_MAX_ROUTES];

	struct doctor_finding findings[DOCTOR_MAX_FINDINGS];
	unsigned count;
	bool unreadable;              /* facts it needs could not be read       */
	enum doctor_verdict verdict;
};

/* The facts the checks draw on, read into r before any check runs. */
void doctor_read_vdso(struct doctor_report *r);
void doctor_measure_clocksource(struct doctor_report *r, double seconds);
void doctor_read_routes(struct doctor_report *r);

/* A vDSO read within this factor of the syscall's cost is the syscall. */
#define DOCTOR_FALLBACK_RATIO 2.0

/* The number of slow findings: calls off their fast path. */
unsigned doctor_slow_count(const struct doctor_report *r);

/*
 * A finding, and what backs it: for the checks in checks/doctor_*.c.  Each
 * call names the id and the severity side by side, as literals:
 * tests/cli-doctor.t reads them from the source to hold them to the table.
 */
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

/*
 * One of doctor's checks: it reads the facts in r and adds the findings
 * whose ids it declares (NULL-terminated), and no others; the ids are the
 * list of what doctor can find, which tests/cli-doctor.t holds the
 * checks' source, doctor's output and the docs to.
 */
struct doctor_check {
	void (*run)(struct doctor_report *r);
	const char *const *ids;
};

/* The vDSO itself (checks/doctor_vdso.c): one of these four findings. */
void doctor_check_vdso_image(struct doctor_report *r);
void doctor_check_vdso_mapped(struct doctor_report *r);
void doctor_check_vdso_rejected(struct doctor_report *r);
void doctor_check_no_vdso(struct doctor_report *r);

/* Tools that hide or replace the vDSO (checks/doctor_tools.c). */
void doctor_check_valgrind(struct doctor_report *r);
void doctor_check_qemu_user(struct doctor_report *r);
void doctor_check_rr(struct doctor_report *r);

/* The clocksource and its measured read (checks/doctor_clocksource.c). */
void doctor_check_clocksource(struct doctor_report *r);
/* Whether the vDSO can read clocksource name in user space: 1 yes, 0 no, -1 unknown. */
int doctor_clocksource_vdso_capable(const char *name);
/*
 * The library's word that the vDSO of this architecture reads MONOTONIC in
 * user space on no kernel, whatever the clocksource: its path sends the
 * clock to the syscall although the vDSO entry is in use.
 */
bool doctor_monotonic_in_kernel(void);

/* The routes of the functions and clocks (checks/doctor_functions.c). */
void doctor_check_functions(struct doctor_report *r);
void doctor_check_cputime(struct doctor_report *r);

/* The vDSO's stack use, measured (checks/doctor_stack.c). */
void doctor_check_vdso_stack(struct doctor_report *r);

/* Calls that fail here, one of each made (checks/doctor_calls.c). */
void doctor_check_failing_calls(struct doctor_report *r);

/* The process's surroundings (checks/doctor_environment.c). */
void doctor_check_seccomp(struct doctor_report *r);
void doctor_check_time_namespace(struct doctor_report *r);
void doctor_check_compat_32bit(struct doctor_report *r);
void doctor_check_virtual_machine(struct doctor_report *r);
/* What could not be read, as a finding of its own; sets r->unreadable. */
void doctor_check_unreadable(struct doctor_report *r);

/* A C library clock_gettime replaced by a preloaded object (checks/doctor_libc.c). */
void doctor_check_libc_clock(struct doctor_report *r);

/* A kernel without the 32-bit time syscalls, seen from a 32-bit program (checks/doctor_time32.c). */
void doctor_check_time32(struct doctor_report *r);

#endif /* VDSOKIT_CLI_DOCTOR_H */
