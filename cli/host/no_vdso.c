/* SPDX-License-Identifier: MIT */
/*
 * Why no vDSO reached the process: one answer, from the facts
 * doctor_env_read() gathers, for report, info and doctor alike.  The
 * likeliest reason first: a tool that hides the vDSO outranks the boot
 * options, and the kernel's own auxv outranks a vdso=0 it ignored.
 */
#include <string.h>

#include "vdsokit.h"
#include "host/host.h"

static const struct {
	const char *id, *text;
} reasons[] = {
	[NO_VDSO_NONE] = { NULL, NULL },
	[NO_VDSO_VALGRIND] = { "valgrind",
		"running under valgrind, which does not pass the vDSO on to the program" },
	[NO_VDSO_QEMU_USER] = { "qemu-user",
		"running under qemu-user, which maps no vDSO for the emulated program" },
	[NO_VDSO_LOADER] = { "loader",
		"the kernel mapped a vDSO but AT_SYSINFO_EHDR did not reach the program "
		"(a loader, tracer or sandbox removed it)" },
	[NO_VDSO_CMDLINE] = { "cmdline", "the kernel was booted with the vDSO disabled" },
	[NO_VDSO_ARCH] = { "arch", "mainline kernels of this architecture have no vDSO" },
	[NO_VDSO_UNKNOWN] = { "unknown",
		"unknown: a kernel built without a vDSO for this ABI (e.g. 32-bit compat "
		"vDSO disabled), a sandbox such as gVisor, or an emulator not recognised" },
};

/* Mainline kernels of these architectures map no vDSO at all. */
static bool arch_without_vdso(const char *arch)
{
	static const char *const none[] = { "m68k", "alpha", "parisc", "sh", "microblaze",
					    "openrisc", "arc", "csky", "xtensa", "hppa" };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (strncmp(arch, none[i], strlen(none[i])) == 0)
			return true;
	return false;
}

enum no_vdso_reason no_vdso_reason_of(const struct doctor_env *env)
{
	if (env->valgrind)
		return NO_VDSO_VALGRIND;
	if (env->qemu_user)
		return NO_VDSO_QEMU_USER;
	if (env->auxv_file_has_vdso)
		return NO_VDSO_LOADER;
	if (env->cmdline_vdso[0])
		return NO_VDSO_CMDLINE;
	if (arch_without_vdso(vdsokit_arch_name()))
		return NO_VDSO_ARCH;
	return NO_VDSO_UNKNOWN;
}

const char *no_vdso_reason_id(enum no_vdso_reason why)
{
	return reasons[why].id;
}

const char *no_vdso_reason_text(enum no_vdso_reason why)
{
	return reasons[why].text;
}
