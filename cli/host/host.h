/* SPDX-License-Identifier: MIT */
/*
 * The host-facts layer: what the commands report about the machine
 * (kernel, clocksource, CPU, the vDSO's mappings, seccomp, the time
 * namespace), each fact measured or unknown with the reason.
 */
#ifndef VDSOKIT_CLI_HOST_H
#define VDSOKIT_CLI_HOST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

/*
 * One fact about the host, read from /proc or /sys: either known, with its
 * value, or unknown with the reason (the file and the errno that kept it
 * from being read; error 0: the file was read but does not say).  No
 * command invents a default for an unknown fact: text says
 * fact_text()'s "unknown (PATH: reason)", JSON says null.
 */
struct host_fact {
	bool known;
	long long value;           /* a numeric fact                         */
	char text[256];            /* a text fact (numeric: the number)      */
	char source[80];           /* the file it comes from                 */
	int error;                 /* unknown: the errno of the read, or 0   */
};
/* The value, or "unknown (/proc/self/status: No such file or directory)". */
const char *fact_text(const struct host_fact *f);
/* Why f is unknown: "/proc/self/status: No such file or directory". */
const char *fact_reason(const struct host_fact *f);
/* "key": the text or number, null when unknown. */
void json_kv_fact(struct json_writer *w, const char *key, const struct host_fact *f);
void json_kv_fact_int(struct json_writer *w, const char *key, const struct host_fact *f);

/* One line of /proc/self/maps that names a vDSO-related mapping. */
struct vdso_mapping {
	uintptr_t start, end;
	char perms[8];
	char name[32];             /* "[vdso]", "[vvar]", "[vvar_vclock]"… */
};

#define HOST_MAX_MAPPINGS 16

/*
 * The one place that reads what the commands report about the host
 * (report, info, bench, verify, doctor): each fact measured or unknown
 * with its reason.  doctor_env.c draws doctor's inferences (emulators,
 * tools, hypervisor) on top.
 */
struct host_facts {
	char kernel_release[65];   /* struct utsname fields: 65 on Linux    */
	char kernel_version[65];
	char machine[65];          /* uname -m, the kernel's (see host.c)   */
	struct host_fact uname;    /* known, or why uname failed            */
	bool linux32_personality;  /* setarch i686: uname -m would say i686 */
	char personality_machine[65]; /* what uname -m says under it, or ""  */
	struct host_fact clocksource;            /* current one (sysfs)     */
	struct host_fact available_clocksources;
	struct host_fact cpu_model;              /* /proc/cpuinfo           */
	unsigned long auxv_sysinfo_ehdr; /* AT_SYSINFO_EHDR, 0 if none      */
	/* /proc/self/maps: known, value = the count of vDSO-related lines. */
	struct host_fact maps;
	struct vdso_mapping mappings[HOST_MAX_MAPPINGS];
	unsigned mapping_count;
	/* /proc/self/status */
	struct host_fact process_name, seccomp_mode, seccomp_filters;
	/* Time namespace: ours and init's, and the offsets (whole seconds). */
	struct host_fact time_ns, init_time_ns;
	struct host_fact monotonic_offset_s, boottime_offset_s;
};
void host_facts_read(struct host_facts *h);
/* "6.12.0 x86_64" (uname -r, -m), or "(kernel unknown: uname: Operation not permitted)". */
const char *host_kernel_text(const struct host_facts *h);
/* "host": {...} for a JSON document (init_result: what vdsokit_init() said). */
void json_host(struct json_writer *w, const struct host_facts *h, int init_result);
/* The facts that could not be read, one line each ("  name: reason"); false if none. */
bool host_print_unknowns(FILE *out, const struct host_facts *h, const char *indent);

/*
 * This process's time-namespace offsets against the initial namespace
 * (MONOTONIC, MONOTONIC_RAW and _COARSE shift by monotonic_ns, BOOTTIME by
 * boottime_ns); false, and zeros, when /proc/self/timens_offsets is
 * unreadable (no time namespaces: no offsets either).
 */
struct timens_offsets {
	int64_t monotonic_ns, boottime_ns;
};
bool timens_offsets_read(struct timens_offsets *o);

/* Fills up to max entries; returns how many (0 if maps is unreadable). */
unsigned vdso_mappings_read(struct vdso_mapping *maps, unsigned max);

/* CPUs this thread may run on (sched_getaffinity), at most max; 0 if unknown. */
unsigned allowed_cpus(int *cpus, unsigned max);

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
	const char *emulator;          /* "qemu-user", "valgrind", "rr" or NULL: the JSON's */

	/* The instruction set /proc/cpuinfo describes ("x86", "arm", …, "" unknown). */
	char cpuinfo_family[16];
	/* Ours, the same way. */
	char build_family[16];
	char hypervisor[128];          /* "KVM", "QEMU"… or "" (bare metal or unknown) */
};

/* Reads them (doctor_env.c): from /proc and /sys only. */
void doctor_env_read(struct doctor_env *env, const struct host_facts *host);

/* Why no vDSO reached the process, the likeliest first (no_vdso.c). */
enum no_vdso_reason {
	NO_VDSO_NONE,      /* a vDSO is mapped */
	NO_VDSO_VALGRIND, NO_VDSO_QEMU_USER, NO_VDSO_LOADER, NO_VDSO_CMDLINE, NO_VDSO_ARCH,
	NO_VDSO_UNKNOWN,
};
/* From the facts doctor_env_read() gathered; for a process without AT_SYSINFO_EHDR. */
enum no_vdso_reason no_vdso_reason_of(const struct doctor_env *env);
/* "valgrind", "qemu-user", …: the JSON's; NULL for NO_VDSO_NONE. */
const char *no_vdso_reason_id(enum no_vdso_reason why);
/* The reason in a sentence, for an operator; NULL for NO_VDSO_NONE. */
const char *no_vdso_reason_text(enum no_vdso_reason why);

/* The family of a machine or arch name: "x86" for i686/x86_64, "arm" for arm/aarch64, … */
const char *arch_family(const char *name);

#endif /* VDSOKIT_CLI_HOST_H */
