/* SPDX-License-Identifier: MIT */
/*
 * doctor: the surroundings that change the picture without putting a
 * call off its fast path: seccomp (the syscall fallbacks run its filters,
 * or die in strict mode), a time namespace (the vDSO applies its
 * offsets), 32-bit userspace on a 64-bit kernel, a virtual machine; and
 * the facts that could not be read, which no check could use.
 */
#include <string.h>

#include "checks/doctor.h"
#include "output/output.h"

void doctor_check_seccomp(struct doctor_report *r)
{
	const struct host_facts *h = r->host;
	struct doctor_finding *f;
	if (!h->seccomp_mode.known)
		return;
	if (h->seccomp_mode.value == 2) {
		f = doctor_finding_add(r, "seccomp", SEVERITY_INFO,
			"seccomp filters are active: every syscall fallback runs them too");
		doctor_evidence(f, "/proc/self/status: Seccomp: 2, Seccomp_filters: %s",
				fact_text(&h->seccomp_filters));
		doctor_action(f, "vDSO calls never enter the kernel and are not filtered; syscall "
			      "routes (CPU-time clocks, missing symbols) pay for the filters and may "
			      "be denied");
	} else if (h->seccomp_mode.value == 1) {
		f = doctor_finding_add(r, "seccomp", SEVERITY_WARNING,
			"seccomp strict mode: any syscall but read, write, exit and sigreturn "
			"kills the process");
		doctor_evidence(f, "/proc/self/status: Seccomp: 1");
		doctor_action(f, "only vDSO routes are safe here; the syscall fallbacks are fatal");
	}
}

void doctor_check_time_namespace(struct doctor_report *r)
{
	const struct host_facts *h = r->host;
	bool other_ns = h->time_ns.known && h->init_time_ns.known &&
			strcmp(h->time_ns.text, h->init_time_ns.text) != 0;
	bool offsets = h->monotonic_offset_s.known &&
		       (h->monotonic_offset_s.value || h->boottime_offset_s.value);
	if (!other_ns && !offsets)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "time-namespace", SEVERITY_INFO,
		"running in a time namespace%s", offsets ? " with clock offsets" : "");
	doctor_evidence(f, "/proc/self/ns/time %s, /proc/1/ns/time %s", fact_text(&h->time_ns),
			fact_text(&h->init_time_ns));
	if (h->monotonic_offset_s.known)
		doctor_evidence(f, "/proc/self/timens_offsets: monotonic %+lld s, boottime %+lld s",
				h->monotonic_offset_s.value, h->boottime_offset_s.value);
	else
		doctor_evidence(f, "offsets unknown: %s", fact_reason(&h->monotonic_offset_s));
	doctor_action(f, "none: the vDSO applies the offsets from the namespace's data page "
		      "(`vdsokit verify` checks the results against the syscall)");
}

static bool machine_is_64bit(const char *machine)
{
	static const char *const names[] = { "x86_64", "aarch64", "ppc64", "s390x", "mips64",
					     "sparc64", "riscv64", "loongarch64", "parisc64" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(machine, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

void doctor_check_compat_32bit(struct doctor_report *r)
{
	const char *machine = r->host->machine;
	if (sizeof(void *) != 4 || !machine_is_64bit(machine))
		return;
	struct doctor_finding *f = doctor_finding_add(r, "compat-32bit", SEVERITY_INFO,
		"32-bit userspace (%s) on a 64-bit kernel (%s)", vdsokit_arch_name(), machine);
	doctor_evidence(f, "uname -m: %s; this program: %s, %zu-bit pointers", machine,
			vdsokit_arch_name(), sizeof(void *) * 8);
	doctor_action(f, "the kernel maps its compat vDSO; the library prefers its 64-bit-time "
		      "entries (clock_gettime64) so results stay right after 2038");
}

void doctor_check_virtual_machine(struct doctor_report *r)
{
	const struct host_facts *h = r->host;
	const struct doctor_env *env = &r->env;
	/* Under qemu-user the hypervisor is the host's, not this program's machine. */
	if (!env->hypervisor[0] || env->qemu_user)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "virtual-machine", SEVERITY_INFO,
		"running in a virtual machine: %s", env->hypervisor);
	doctor_evidence(f, "clocksource %s; available: %s", fact_text(&h->clocksource),
			fact_text(&h->available_clocksources));
	if (h->clocksource.known && doctor_clocksource_vdso_capable(h->clocksource.text) == 1)
		doctor_action(f, "none: %s is read in user space inside this VM too",
			      h->clocksource.text);
	else if (strcmp(env->build_family, "x86") == 0)
		doctor_action(f, "in a VM the vDSO is fast only with a paravirtual or stable TSC "
			      "clocksource (kvm-clock, tsc, hyperv_clocksource_tsc_page)");
	else
		doctor_action(f, "check that the VM gives the guest a clocksource its vDSO can read");
}

/* What could not be read, as a finding of its own: no silence about a masked /proc. */
void doctor_check_unreadable(struct doctor_report *r)
{
	const struct host_facts *h = r->host;
	const struct {
		const struct host_fact *fact;
		const char *name;
	} needed[] = {
		{ &h->clocksource, "clocksource" },
		{ &h->maps, "vDSO mappings" },
		{ &h->seccomp_mode, "seccomp mode" },
		{ &h->time_ns, "time namespace" },
		{ &h->monotonic_offset_s, "time namespace offsets" },
	};
	struct doctor_finding *f = NULL;
	for (unsigned i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (needed[i].fact->known)
			continue;
		if (!f)
			f = doctor_finding_add(r, "unreadable", SEVERITY_WARNING,
				"facts about this process could not be read: their checks were not made");
		doctor_evidence(f, "%s unknown: %s", needed[i].name, fact_reason(needed[i].fact));
	}
	if (f)
		doctor_action(f, "run where /proc and /sys are mounted (a container that masks them "
			      "hides the seccomp, namespace and clocksource findings)");
	r->unreadable = f != NULL;
}
