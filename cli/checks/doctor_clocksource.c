/* SPDX-License-Identifier: MIT */
/*
 * doctor: the clocksource.  A clocksource the vDSO cannot read (hpet,
 * acpi_pm) makes the vDSO hand every clock_gettime to the kernel, which
 * only a measurement shows: the vDSO's read is timed against the syscall,
 * and one within DOCTOR_FALLBACK_RATIO of it is the syscall.
 */
#include <math.h>
#include <string.h>

#include "checks/doctor.h"
#include "checks/reference.h"
#include "output/output.h"
#include "measure/measure.h"
#include "images/images.h"

#define CURRENT_CLOCKSOURCE_FILE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

int doctor_clocksource_vdso_capable(const char *name)
{
	static const char *const capable[] = {
		"tsc", "tsc-early", "kvm-clock", "hyperv_clocksource_tsc_page",
		"arch_sys_counter", "arch_mem_counter", "riscv_clocksource", "timebase", "tod",
		"MIPS", "GIC", "Constant", "stick", "tick",
	};
	static const char *const incapable[] = {
		"hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit", "hyperv_clocksource_msr",
	};
	for (size_t i = 0; i < sizeof(capable) / sizeof(capable[0]); i++)
		if (strcmp(name, capable[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof(incapable) / sizeof(incapable[0]); i++)
		if (strcmp(name, incapable[i]) == 0)
			return 0;
	return -1;
}

/* The vDSO's clock_gettime(MONOTONIC) against the syscall's, into cs. */
static void measure_monotonic(struct doctor_clocksource *cs, double seconds)
{
	struct bench_case c;
	struct bench_result results[BENCH_PATH_COUNT];
	bool wanted[BENCH_PATH_COUNT] = { false };
	struct bench_config config = {
		.seconds = seconds, .batch_ns = 20e3, .min_batches = 31, .max_batches = 400,
	};
	wanted[BENCH_VDSO] = wanted[BENCH_SYSCALL] = true;
	bench_case_init(&c, VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC);
	bench_measure(&c, wanted, &config, results);
	const struct bench_result *vdso = &results[BENCH_VDSO], *sys = &results[BENCH_SYSCALL];
	if (!vdso->available || vdso->refused || vdso->first_result != 0 ||
	    !isfinite(vdso->median_ns))
		return;
	cs->vdso_measured = true;
	cs->vdso_ns = vdso->median_ns;
	/* A refused syscall is no figure: nothing to divide by. */
	if (sys->refused) {
		cs->syscall_refused = sys->refused;
		return;
	}
	if (!sys->available || !isfinite(sys->median_ns))
		return;
	cs->measured = true;
	cs->syscall_ns = sys->median_ns;
	cs->ratio = cs->vdso_ns > 0 ? cs->syscall_ns / cs->vdso_ns : NAN;
}

bool doctor_monotonic_in_kernel(void)
{
	struct vdsokit_route_info p;
	return vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p) == 0 &&
	       p.reason == VDSOKIT_REASON_CLOCK_IN_KERNEL;
}

void doctor_measure_clocksource(struct doctor_report *r, double seconds)
{
	struct doctor_clocksource *cs = &r->clocksource;
	const struct host_fact *current = &r->host->clocksource;
	bool vdso_ok = r->vdso.mapped && r->vdso.usable;
	memset(cs, 0, sizeof(*cs));
	/* Where the library itself sends MONOTONIC to the kernel, no clocksource is read. */
	cs->arch_reads_none = vdso_ok && doctor_monotonic_in_kernel();
	cs->capable = cs->arch_reads_none ? 0 :
		      current->known ? doctor_clocksource_vdso_capable(current->text) : -1;
	if (vdso_ok)
		measure_monotonic(cs, seconds);
	if (cs->measured)
		cs->fallback = cs->ratio < DOCTOR_FALLBACK_RATIO;
	else
		cs->fallback = vdso_ok && cs->capable == 0;
}

/* " (the host kernel's: …)" where the program is emulated, else "". */
static const char *foreign(const struct doctor_report *r)
{
	return r->env.qemu_user ? " (the host kernel's: this program is emulated)" : "";
}

/*
 * The finding, its id and title.  The title says why only when the name
 * proves it (hpet, acpi_pm: no vDSO read at all); otherwise the
 * measurement speaks for itself: a counter read that traps (MIPS rdhwr
 * emulated by the kernel) makes the vDSO as slow as a syscall, or slower,
 * without any fallback.
 */
static struct doctor_finding *clocksource_finding(struct doctor_report *r)
{
	const struct doctor_clocksource *cs = &r->clocksource;
	const char *name = fact_text(&r->host->clocksource);
	/* "Read in user space by the vDSO" needs a vDSO clock_gettime to read it. */
	struct vdsokit_route_info gettime;
	bool vdso_ok = r->vdso.mapped && r->vdso.usable &&
		       vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &gettime) == 0 &&
		       gettime.symbol != NULL;
	if (cs->arch_reads_none)
		/* Nothing to gain: the library already avoids the vDSO's detour. */
		return doctor_finding_add(r, "clocksource", SEVERITY_INFO,
			"clocksource %s has no user-space read on %s: clock_gettime(MONOTONIC) "
			"is a syscall, which the library makes directly", name, vdsokit_arch_name());
	if (cs->fallback && cs->capable == 0)
		return doctor_finding_add(r, "clocksource-fallback", SEVERITY_SLOW,
			"clocksource %s cannot be read from user space: clock_gettime falls "
			"back to the syscall inside the vDSO", name);
	if (cs->fallback)
		return doctor_finding_add(r, "clocksource-fallback", SEVERITY_SLOW,
			"clock_gettime through the vDSO is no cheaper than the syscall with "
			"clocksource %s (measured)", name);
	if (cs->measured && cs->capable == 0) {
		/* Two facts that cannot both hold: say both, believe neither. */
		char x[32];
		struct doctor_finding *f;
		f = doctor_finding_add(r, "clocksource-contradiction", SEVERITY_WARNING,
			"sysfs names clocksource %s, which the vDSO cannot read, yet clock_gettime "
			"through the vDSO measures %s cheaper than the syscall", name,
			fmt_ratio(x, sizeof(x), cs->ratio));
		doctor_action(f, "one of the two is wrong: a stale or substituted sysfs (a "
			      "container's /sys), or a clocksource switched during the run; read %s "
			      "again and compare with `vdsokit bench`", CURRENT_CLOCKSOURCE_FILE);
		return f;
	}
	if (vdso_ok && r->host->clocksource.known)
		return doctor_finding_add(r, "clocksource", SEVERITY_OK,
			"clocksource %s is read in user space by the vDSO", name);
	if (vdso_ok && cs->measured)
		/* The measurement speaks; the name is not known, so it is not named. */
		return doctor_finding_add(r, "clocksource", SEVERITY_OK,
			"clock_gettime(MONOTONIC) runs in user space (measured); the "
			"clocksource is %s", name);
	return doctor_finding_add(r, "clocksource", SEVERITY_INFO, "clocksource %s%s", name,
				  foreign(r));
}

/* The measured figures, or why there are none. */
static void measurement_evidence(struct doctor_finding *f, const struct doctor_report *r)
{
	const struct doctor_clocksource *cs = &r->clocksource;
	char a[32], b[32], x[32];
	if (cs->measured) {
		fmt_duration_ns(a, sizeof(a), cs->vdso_ns);
		fmt_duration_ns(b, sizeof(b), cs->syscall_ns);
		if (cs->arch_reads_none)
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): the vDSO's own entry "
					"%s, the syscall %s per call%s", a, b, cs->fallback ?
					": the entry only makes the syscall" : "");
		else if (!cs->fallback)
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s, syscall %s "
					"per call: the vDSO is %s cheaper", a, b,
					fmt_ratio(x, sizeof(x), cs->ratio));
		else if (cs->ratio >= 1)
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s, syscall %s "
					"per call: the vDSO is only %s cheaper (below %.0f%s): it "
					"costs a syscall", a, b, fmt_ratio(x, sizeof(x), cs->ratio),
					DOCTOR_FALLBACK_RATIO, cli_times_sign());
		else
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s, syscall %s "
					"per call: the vDSO is %s slower than the syscall", a, b,
					fmt_ratio(x, sizeof(x), 1 / cs->ratio));
	} else if (cs->vdso_measured && cs->syscall_refused) {
		char why[240];
		fmt_duration_ns(a, sizeof(a), cs->vdso_ns);
		doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s per call; no "
				"comparison: %s", a, reference_why("clock_gettime",
				cs->syscall_refused, why, sizeof(why)));
	} else if (r->vdso.mapped && r->vdso.usable) {
		doctor_evidence(f, "not measured: no vDSO clock_gettime here");
	} else {
		doctor_evidence(f, "not measured: no vDSO in this process");
	}
}

/* Which clocksource it is, which others there are, and what is known of its vDSO read. */
static void name_evidence(struct doctor_finding *f, const struct doctor_report *r)
{
	const struct doctor_clocksource *cs = &r->clocksource;
	const char *name = fact_text(&r->host->clocksource);
	doctor_evidence(f, "current clocksource: %s (" CURRENT_CLOCKSOURCE_FILE ")%s", name,
			foreign(r));
	doctor_evidence(f, "available: %s", fact_text(&r->host->available_clocksources));
	if (cs->arch_reads_none)
		doctor_evidence(f, "vdsokit_route_of(clock_gettime(MONOTONIC)): route syscall, %s: "
				"the library's table of what the vDSO of %s reads, whatever the "
				"clocksource", cli_reason_text(VDSOKIT_REASON_CLOCK_IN_KERNEL),
				vdsokit_arch_name());
	else
		doctor_evidence(f, "%s %s", name, cs->capable == 1 ?
				"is a clocksource the vDSO can read" : cs->capable == 0 ?
				"has no vDSO read: the vDSO hands every read to the kernel" :
				"is not in vdsokit's list of clocksources: the measurement decides");
	if (r->env.cmdline_clocksource[0])
		doctor_evidence(f, "kernel command line: %s", r->env.cmdline_clocksource);
}

/* The first other clocksource the kernel offers that the vDSO can read, or "". */
static void better_clocksource(const struct doctor_report *r, char *better, size_t size)
{
	const char *name = fact_text(&r->host->clocksource);
	char list[256];
	better[0] = 0;
	snprintf(list, sizeof(list), "%s", r->host->available_clocksources.text);
	for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok && !better[0];
	     tok = strtok_r(NULL, " ", &save))
		if (doctor_clocksource_vdso_capable(tok) == 1 && strcmp(tok, name) != 0)
			snprintf(better, size, "%s", tok);
}

/* The way out of a fallback: another clocksource, or why there is none. */
static void fallback_action(struct doctor_finding *f, const struct doctor_report *r)
{
	const char *cmdline = r->env.cmdline_clocksource;
	char better[128];
	better_clocksource(r, better, sizeof(better));
	if (better[0])
		doctor_action(f, "switch to %s: echo %s > " CURRENT_CLOCKSOURCE_FILE " (as root)%s%s%s",
			      better, better, cmdline[0] ? ", and drop " : "", cmdline,
			      cmdline[0] ? " from the kernel command line" : "");
	else if (strcmp(r->env.build_family, "x86") == 0)
		doctor_action(f, "no vDSO-capable clocksource is available: the TSC was rejected "
			      "(dmesg | grep -i tsc); in a VM enable kvm-clock or an invariant TSC%s%s",
			      cmdline[0] ? "; the command line forces " : "", cmdline);
	else
		doctor_action(f, "no other clocksource is offered: the counter read of %s is slow "
			      "from user space (trapped or emulated, e.g. MIPS rdhwr before R2), so "
			      "the syscall is the cheaper path on this machine",
			      fact_text(&r->host->clocksource));
}

void doctor_check_clocksource(struct doctor_report *r)
{
	struct doctor_finding *f = clocksource_finding(r);
	measurement_evidence(f, r);
	name_evidence(f, r);
	if (r->clocksource.arch_reads_none)
		doctor_action(f, "none: switching the clocksource cannot help, the vDSO of %s reads "
			      "none of them in user space", vdsokit_arch_name());
	else if (r->clocksource.fallback)
		fallback_action(f, r);
}
