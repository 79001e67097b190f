/* SPDX-License-Identifier: MIT */
/*
 * doctor: tools that hide or replace the vDSO, from what host/doctor_env.c
 * saw of them.  Under valgrind or qemu-user no call is on a real fast
 * path, whatever the vDSO; rr remaps the vDSO and patches its calls.
 */
#include "checks/doctor.h"
#include "output/output.h"

void doctor_check_valgrind(struct doctor_report *r)
{
	const struct doctor_env *env = &r->env;
	if (!env->valgrind)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "valgrind", SEVERITY_SLOW,
		"running under valgrind: its CPU emulation replaces every fast path");
	for (unsigned i = 0; i < 2; i++)
		if (env->valgrind_evidence[i][0])
			doctor_evidence(f, "%s", env->valgrind_evidence[i]);
	if (r->host->process_name.known)
		doctor_evidence(f, "process name %s (/proc/self/status)", r->host->process_name.text);
	doctor_action(f, "figures and routes under valgrind say nothing about the real machine: "
		      "measure without it");
}

void doctor_check_qemu_user(struct doctor_report *r)
{
	const struct doctor_env *env = &r->env;
	if (!env->qemu_user)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "qemu-user", SEVERITY_SLOW,
		"emulated by qemu-user (%s code, host CPU %s): no vDSO", vdsokit_arch_name(),
		env->cpuinfo_family[0] ? env->cpuinfo_family : "unknown");
	for (unsigned i = 0; i < env->qemu_evidence_count; i++)
		doctor_evidence(f, "%s", env->qemu_evidence[i]);
	if (!r->host->auxv_sysinfo_ehdr)
		doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = 0");
	doctor_action(f, "timings are emulated and every call is a syscall translated by qemu; run "
		      "under qemu-system with a real kernel to see the vDSO of %s", vdsokit_arch_name());
}

void doctor_check_rr(struct doctor_report *r)
{
	if (!r->env.rr)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "rr", SEVERITY_WARNING,
		"running under rr: it remaps the vDSO and patches its calls");
	doctor_evidence(f, "%s", r->env.rr_evidence);
	doctor_action(f, "measure without rr");
}
