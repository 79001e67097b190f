/* SPDX-License-Identifier: MIT */
/*
 * vdsokit doctor: what the process can learn about where it runs, from
 * /proc and /sys only, each fact with the file that showed it.
 *
 * Emulators and tools are recognised by what they cannot hide cheaply:
 * valgrind preloads its vgpreload libraries and maps its tool binary;
 * qemu-user passes the host's /proc/cpuinfo through (an x86 CPU described
 * to an aarch64 program) and its process is named after the qemu binary
 * when started by hand; rr marks the tracee's environment and maps its
 * rr_page.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "vdsokit.h"
#include "host/host.h"

#ifndef AT_SYSINFO_EHDR
#define AT_SYSINFO_EHDR 33
#endif

const char *arch_family(const char *name)
{
	static const struct { const char *prefix; const char *family; } families[] = {
		{ "x86", "x86" }, { "i386", "x86" }, { "i486", "x86" }, { "i586", "x86" },
		{ "i686", "x86" }, { "x32", "x86" }, { "aarch64", "arm" }, { "arm", "arm" },
		{ "ppc", "powerpc" }, { "powerpc", "powerpc" }, { "s390", "s390" },
		{ "riscv", "riscv" }, { "mips", "mips" }, { "sparc", "sparc" }, { "m68k", "m68k" },
		{ "loongarch", "loongarch" },
	};
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strncmp(name, families[i].prefix, strlen(families[i].prefix)) == 0)
			return families[i].family;
	return "";
}

/* Whole small file into buf (NUL-terminated); false if unreadable. */
static bool read_small_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		buf[0] = 0;
		return false;
	}
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	return true;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
}

/* The first word of the command line that starts with key (e.g. "vdso="). */
static void cmdline_word(const char *cmdline, const char *key, char *out, size_t size)
{
	out[0] = 0;
	size_t klen = strlen(key);
	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " \n");
		if (len >= klen && strncmp(p, key, klen) == 0 && len < size) {
			memcpy(out, p, len);
			out[len] = 0;
			return;
		}
		p += len;
	}
}

static void read_cmdline(struct doctor_env *env)
{
	env->cmdline_readable = read_small_file("/proc/cmdline", env->cmdline, sizeof(env->cmdline));
	trim(env->cmdline);
	/* vdso=0 (x86, …), vdso32=0 / vdso64=0 (x86 compat, powerpc, s390). */
	static const char *const keys[] = { "vdso=", "vdso32=", "vdso64=" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !env->cmdline_vdso[0]; i++) {
		char word[48];
		cmdline_word(env->cmdline, keys[i], word, sizeof(word));
		if (word[0] && strcmp(word + strlen(keys[i]), "0") == 0)
			snprintf(env->cmdline_vdso, sizeof(env->cmdline_vdso), "%.31s", word);
	}
	cmdline_word(env->cmdline, "clocksource=", env->cmdline_clocksource,
		     sizeof(env->cmdline_clocksource));
}

/* The auxv file: its AT_SYSINFO_EHDR says what the kernel gave, whatever the loader did. */
static void read_auxv_file(struct doctor_env *env)
{
	unsigned long pair[2];
	FILE *f = fopen("/proc/self/auxv", "re");
	if (!f)
		return;
	env->auxv_file_readable = true;
	while (fread(pair, sizeof(pair), 1, f) == 1 && pair[0] != 0)
		if (pair[0] == AT_SYSINFO_EHDR && pair[1] != 0)
			env->auxv_file_has_vdso = true;
	fclose(f);
}

/*
 * Whether a mapped file is valgrind's own: its preload libraries
 * (vgpreload_*.so) or its tool binary (memcheck-amd64-linux, …, in a
 * valgrind directory).  Not any path with "valgrind" in it: a program
 * kept in /tmp/valgrind/ is not run by valgrind.
 */
static bool valgrind_file(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "vgpreload_", 10) == 0)
		return true;
	size_t len = strcspn(base, "\n");
	return strstr(path, "/valgrind/") && len > 6 && strncmp(base + len - 6, "-linux", 6) == 0 &&
	       strchr(base, '-') != base + len - 6;
}

static void read_maps(struct doctor_env *env)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return;
	env->maps_readable = true;
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]"))
			env->maps_has_vdso = true;
		if (strstr(line, "[vvar"))
			env->maps_has_vvar = true;
		const char *path = strchr(line, '/');
		if (path && valgrind_file(path) && !env->valgrind_evidence[1][0]) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			snprintf(env->valgrind_evidence[1], sizeof(env->valgrind_evidence[1]),
				 "/proc/self/maps maps %.150s", path);
			env->valgrind = true;
		}
		if (strstr(line, "rr_page") && !env->rr) {
			env->rr = true;
			snprintf(env->rr_evidence, sizeof(env->rr_evidence),
				 "/proc/self/maps has rr's rr_page mapping");
		}
	}
	fclose(f);
}

/*
 * The instruction set a /proc/cpuinfo line speaks of, from the fields
 * each architecture's kernel prints ("" when the line says nothing).
 * Keys and values are compared with their padding removed: kernels pad
 * with tabs or spaces.
 */
static const char *cpuinfo_line_family(const char *key, const char *value)
{
	if (strcmp(key, "vendor_id") == 0)
		return strstr(value, "S390") ? "s390" : "x86";
	if (strcmp(key, "CPU implementer") == 0 || strcmp(key, "CPU architecture") == 0)
		return "arm";
	if (strcmp(key, "timebase") == 0 || (strcmp(key, "cpu") == 0 && strncmp(value, "POWER", 5) == 0))
		return "powerpc";
	if ((strcmp(key, "isa") == 0 && strncmp(value, "rv", 2) == 0) ||
	    (strcmp(key, "mmu") == 0 && strncmp(value, "sv", 2) == 0))
		return "riscv";
	if ((strcmp(key, "cpu model") == 0 && strstr(value, "MIPS")) ||
	    (strcmp(key, "isa") == 0 && strstr(value, "mips")))
		return "mips";
	if ((strcmp(key, "type") == 0 && strncmp(value, "sun4", 4) == 0) ||
	    (strcmp(key, "cpu") == 0 && strstr(value, "Sparc")))
		return "sparc";
	if (strcmp(key, "CPU") == 0 && strncmp(value, "680", 3) == 0)
		return "m68k";
	if (strcmp(key, "CPU Family") == 0 && strstr(value, "Loongson"))
		return "loongarch";
	return "";
}

static void read_cpuinfo_family(struct doctor_env *env, bool *hypervisor_flag)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		char *value = colon + 1;
		trim(line);
		while (*value == ' ' || *value == '\t')
			value++;
		trim(value);
		if (!env->cpuinfo_family[0])
			snprintf(env->cpuinfo_family, sizeof(env->cpuinfo_family), "%s",
				 cpuinfo_line_family(line, value));
		if (strcmp(line, "flags") == 0 && (strstr(value, " hypervisor") ||
						   strncmp(value, "hypervisor", 10) == 0))
			*hypervisor_flag = true;
	}
	fclose(f);
}

static void read_hypervisor(struct doctor_env *env, bool hypervisor_flag)
{
	char vendor[64], product[64], compatible[256];
	product[0] = 0;
	if (read_small_file("/sys/hypervisor/type", vendor, sizeof(vendor)) && vendor[0]) {
		trim(vendor);
		snprintf(env->hypervisor, sizeof(env->hypervisor), "%.32s (/sys/hypervisor/type)", vendor);
		return;
	}
	if (read_small_file("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor))) {
		trim(vendor);
		read_small_file("/sys/class/dmi/id/product_name", product, sizeof(product));
		trim(product);
		static const char *const virtual_vendors[] = {
			"QEMU", "KVM", "Xen", "VMware", "Microsoft Corporation", "innotek",
			"Amazon EC2", "Google", "Parallels", "Bochs",
		};
		for (size_t i = 0; i < sizeof(virtual_vendors) / sizeof(virtual_vendors[0]); i++)
			if (strstr(vendor, virtual_vendors[i]) || strstr(product, virtual_vendors[i])) {
				snprintf(env->hypervisor, sizeof(env->hypervisor), "%.60s %.60s", vendor,
					 product);
				return;
			}
	}
	/* The device tree of QEMU's arm/riscv "virt" and powerpc "pseries" machines. */
	size_t n = 0;
	FILE *f = fopen("/proc/device-tree/compatible", "re");
	if (f) {
		n = fread(compatible, 1, sizeof(compatible) - 1, f);
		fclose(f);
	}
	compatible[n] = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (compatible[i] == 0)
			compatible[i] = ' ';
	if (strstr(compatible, "linux,dummy-virt") || strstr(compatible, "riscv-virtio")) {
		snprintf(env->hypervisor, sizeof(env->hypervisor), "QEMU virt machine");
		return;
	}
	if (strstr(compatible, "qemu,")) {
		snprintf(env->hypervisor, sizeof(env->hypervisor), "QEMU (%.100s)", compatible);
		return;
	}
	if (hypervisor_flag)
		snprintf(env->hypervisor, sizeof(env->hypervisor), "a hypervisor (cpuinfo flag)");
}

static void detect_qemu_user(struct doctor_env *env, const struct host_facts *host)
{
	/*
	 * A foreign CPU in /proc/cpuinfo counts only with a second sign (no
	 * vDSO, a qemu binfmt entry, the process name): a cpuinfo format this
	 * file misreads must not turn a real machine into an emulated one.
	 */
	bool foreign_cpu = env->cpuinfo_family[0] && env->build_family[0] &&
			   strcmp(env->cpuinfo_family, env->build_family) != 0;
	if (foreign_cpu) {
		env->qemu_user = !host->auxv_sysinfo_ehdr;
		snprintf(env->qemu_evidence[env->qemu_evidence_count++], sizeof(env->qemu_evidence[0]),
			 "/proc/cpuinfo describes a%s %s CPU, this program is %s code and uname -m "
			 "says %s", strcmp(env->cpuinfo_family, "x86") == 0 ? "n" : "",
			 env->cpuinfo_family, vdsokit_arch_name(), host->machine);
	}
	if (host->process_name.known && strncmp(host->process_name.text, "qemu-", 5) == 0) {
		env->qemu_user = true;
		snprintf(env->qemu_evidence[env->qemu_evidence_count++], sizeof(env->qemu_evidence[0]),
			 "the process is named %.60s (/proc/self/status)", host->process_name.text);
	}
	/* Registered for this architecture: supporting evidence, not proof. */
	char path[96], entry[256];
	snprintf(path, sizeof(path), "/proc/sys/fs/binfmt_misc/qemu-%s", host->machine);
	if (read_small_file(path, entry, sizeof(entry)) && strncmp(entry, "enabled", 7) == 0 &&
	    (env->qemu_user || foreign_cpu || !host->auxv_sysinfo_ehdr)) {
		env->qemu_user = true;
		const char *interpreter = "qemu";
		char *line = strstr(entry, "interpreter ");
		if (line) {
			line += strlen("interpreter ");
			line[strcspn(line, "\n")] = 0;
			interpreter = line;
		}
		snprintf(env->qemu_evidence[env->qemu_evidence_count++], sizeof(env->qemu_evidence[0]),
			 "binfmt_misc runs %.20s programs through %.60s (%.80s)", host->machine,
			 interpreter, path);
	}
}

void doctor_env_read(struct doctor_env *env, const struct host_facts *host)
{
	bool hypervisor_flag = false;
	memset(env, 0, sizeof(*env));
	snprintf(env->build_family, sizeof(env->build_family), "%s", arch_family(vdsokit_arch_name()));
	read_cmdline(env);
	read_auxv_file(env);
	read_maps(env);
	read_cpuinfo_family(env, &hypervisor_flag);
	read_hypervisor(env, hypervisor_flag);

	const char *preload = getenv("LD_PRELOAD");
	if (preload && strstr(preload, "vgpreload")) {
		env->valgrind = true;
		snprintf(env->valgrind_evidence[0], sizeof(env->valgrind_evidence[0]),
			 "LD_PRELOAD=%.160s", preload);
	}
	if (getenv("RUNNING_UNDER_RR")) {
		env->rr = true;
		snprintf(env->rr_evidence, sizeof(env->rr_evidence),
			 "RUNNING_UNDER_RR is set in the environment");
	}
	detect_qemu_user(env, host);
	/* The one that changes the most first: qemu-user replaces the kernel too. */
	env->emulator = env->qemu_user ? "qemu-user" : env->valgrind ? "valgrind" :
			env->rr ? "rr" : NULL;
}
