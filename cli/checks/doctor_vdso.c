/* SPDX-License-Identifier: MIT */
/*
 * doctor: the vDSO itself.  Mapped and accepted by the library (ok),
 * mapped but rejected (slow), not mapped at all (slow, with the likely
 * reason), or replaced by an --image file (a test aid, said as such).
 * Each check makes its finding in its own case only, so exactly one of
 * them speaks.
 */
#include <stdint.h>
#include <string.h>

#include "checks/doctor.h"
#include "output/output.h"

void doctor_read_vdso(struct doctor_report *r)
{
	const struct host_facts *host = r->host;
	struct doctor_vdso *v = &r->vdso;
	memset(v, 0, sizeof(*v));
	v->mapped = host->auxv_sysinfo_ehdr != 0;
	v->usable = r->init_result == 0;
	v->address = host->auxv_sysinfo_ehdr;
	for (unsigned i = 0; i < host->mapping_count; i++)
		if (strcmp(host->mappings[i].name, "[vdso]") == 0)
			v->size = host->mappings[i].end - host->mappings[i].start;
	if (r->image_file) {
		/* use_image_file() copied it into memory and the library took it. */
		const struct vdsokit_image *img = vdsokit_process_image();
		v->mapped = img != NULL;
		v->address = img ? (unsigned long)(uintptr_t)img->data : 0;
		v->size = img ? img->size : 0;
		return;
	}
	v->missing = v->mapped ? NO_VDSO_NONE : no_vdso_reason_of(&r->env);
}

static unsigned symbol_count(void)
{
	const struct vdsokit_image *img = vdsokit_process_image();
	return img ? img->symbol_count : 0;
}

void doctor_check_vdso_image(struct doctor_report *r)
{
	if (!r->image_file)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "vdso-image", SEVERITY_INFO,
		"test aid: examining the vDSO image file %s (--image), not this kernel's vDSO",
		r->image_file);
	doctor_evidence(f, "mapped at %#lx, %zu bytes, %u dynamic symbols", r->vdso.address,
			r->vdso.size, symbol_count());
	doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = %#lx: the kernel's vDSO, not examined",
			r->host->auxv_sysinfo_ehdr);
	doctor_action(f, "the findings about the vDSO's functions, clocksource and stack use "
		      "describe the file; run without --image for this system's");
}

void doctor_check_vdso_mapped(struct doctor_report *r)
{
	const struct doctor_vdso *v = &r->vdso;
	const struct host_facts *host = r->host;
	if (r->image_file || !v->mapped || !v->usable)
		return;
	char size[64];
	/* The size comes from the maps only: unknown when they cannot be read. */
	if (v->size)
		snprintf(size, sizeof(size), "%zu KiB", v->size / 1024);
	else
		snprintf(size, sizeof(size), "size unknown");
	struct doctor_finding *f = doctor_finding_add(r, "vdso", SEVERITY_OK,
		"vDSO mapped at %#lx (%s), %u dynamic symbols", v->address, size, symbol_count());
	doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = %#lx", v->address);
	if (!host->maps.known)
		doctor_evidence(f, "mapping size unknown: %s", fact_reason(&host->maps));
	for (unsigned i = 0; i < host->mapping_count; i++) {
		const struct vdso_mapping *m = &host->mappings[i];
		doctor_evidence(f, "/proc/self/maps: %#lx-%#lx %s %s", (unsigned long)m->start,
				(unsigned long)m->end, m->perms, m->name);
	}
}

void doctor_check_vdso_rejected(struct doctor_report *r)
{
	const struct doctor_vdso *v = &r->vdso;
	if (r->image_file || !v->mapped || v->usable)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "bad-image", SEVERITY_SLOW,
		"the vDSO at %#lx was rejected by the library: every call is a syscall", v->address);
	doctor_evidence(f, "vdsokit_init() = %s", errno_name(-r->init_result));
	if (v->size) {
		struct vdsokit_image img;
		int e = vdsokit_image_parse(&img, (const void *)v->address, v->size);
		doctor_evidence(f, "parsing the %zu-byte [vdso] mapping: %s", v->size,
				e ? vdsokit_image_strerror(e) :
				"parses, but lacks what this architecture needs");
	} else {
		doctor_evidence(f, "/proc/self/maps shows no [vdso] mapping at that address");
	}
	if (r->env.rr)
		doctor_evidence(f, "%s: rr replaces the vDSO with its own", r->env.rr_evidence);
	doctor_action(f, "run `vdsokit info` and `vdsokit dump -o vdso.so`, then report the image "
		      "(readelf -a vdso.so) to the vdsokit developers");
}

/* What to do about a missing vDSO, by its likely reason. */
static void no_vdso_action(struct doctor_finding *f, enum no_vdso_reason why,
			   const struct doctor_env *env)
{
	switch (why) {
	case NO_VDSO_VALGRIND:
		doctor_action(f, "expected under valgrind; measure and verify without it");
		break;
	case NO_VDSO_QEMU_USER:
		doctor_action(f, "expected under qemu-user; to use the vDSO of %s, run on a real "
			      "kernel of that architecture (or qemu-system)", vdsokit_arch_name());
		break;
	case NO_VDSO_LOADER:
		doctor_action(f, "run the program directly, without the tool that starts it");
		break;
	case NO_VDSO_CMDLINE:
		doctor_action(f, "remove %s from the kernel command line (bootloader configuration) "
			      "and reboot", env->cmdline_vdso);
		break;
	case NO_VDSO_ARCH:
		doctor_action(f, "none on this kernel: a kernel with a vDSO for %s would be needed",
			      vdsokit_arch_name());
		break;
	case NO_VDSO_NONE:
	case NO_VDSO_UNKNOWN:
		doctor_action(f, "check the kernel configuration (CONFIG_GENERIC_GETTIMEOFDAY, "
			      "CONFIG_COMPAT_VDSO) and what starts this program");
		break;
	}
}

void doctor_check_no_vdso(struct doctor_report *r)
{
	const struct doctor_env *env = &r->env;
	if (r->image_file || r->vdso.mapped)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "no-vdso", SEVERITY_SLOW,
		"no vDSO is mapped in this process: every call is a syscall");
	doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = 0");
	if (env->auxv_file_readable)
		doctor_evidence(f, "/proc/self/auxv %s AT_SYSINFO_EHDR",
				env->auxv_file_has_vdso ? "has an" : "has no");
	if (env->maps_readable)
		doctor_evidence(f, "/proc/self/maps has %s[vdso] mapping%s",
				env->maps_has_vdso ? "a " : "no ",
				env->maps_has_vvar ? " (its [vvar] data pages are there)" : "");
	if (env->cmdline_readable)
		doctor_evidence(f, "/proc/cmdline: %s",
				env->cmdline_vdso[0] ? env->cmdline_vdso : "no vdso=0 option");
	no_vdso_action(f, r->vdso.missing, env);
	doctor_evidence(f, "likely reason: %s", no_vdso_reason_text(r->vdso.missing));
}
