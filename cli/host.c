/* SPDX-License-Identifier: MIT */
/*
 * Facts about the machine that explain the figures: kernel, architecture,
 * clocksource (whether the vDSO can read the clock at all), CPU model, and
 * the vDSO's mappings as the kernel lists them in /proc/self/maps.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

#include "cli.h"

/* First line of a small sysfs/proc file, without its newline; "" if unreadable. */
static void read_first_line(const char *path, char *buf, size_t size)
{
	buf[0] = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

static void read_cpu_model(char *buf, size_t size)
{
	buf[0] = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		/* x86 "model name", arm64 has none, ppc "cpu", s390 "processor 0". */
		if (strncmp(line, "model name", 10) == 0 || strncmp(line, "cpu\t", 4) == 0 ||
		    strncmp(line, "uarch", 5) == 0) {
			char *colon = strchr(line, ':');
			if (!colon)
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = 0;
			snprintf(buf, size, "%s", colon);
			break;
		}
	}
	fclose(f);
}

void host_facts_read(struct host_facts *h)
{
	memset(h, 0, sizeof(*h));
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(h->kernel_release, sizeof(h->kernel_release), "%s", u.release);
		snprintf(h->kernel_version, sizeof(h->kernel_version), "%s", u.version);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
	}
	read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			h->clocksource, sizeof(h->clocksource));
	read_first_line("/sys/devices/system/clocksource/clocksource0/available_clocksource",
			h->available_clocksources, sizeof(h->available_clocksources));
	/* trailing blank that sysfs leaves */
	size_t n = strlen(h->available_clocksources);
	while (n && h->available_clocksources[n - 1] == ' ')
		h->available_clocksources[--n] = 0;
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->auxv_sysinfo_ehdr = getauxval(AT_SYSINFO_EHDR);
}

unsigned vdso_mappings_read(struct vdso_mapping *maps, unsigned max)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return 0;
	unsigned count = 0;
	char line[1024];
	while (count < max && fgets(line, sizeof(line), f)) {
		uintptr_t start, end;
		char perms[8];
		int name_at = 0;
		/* start-end perms offset dev inode name */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %*s %n",
			   &start, &end, perms, &name_at) < 3 || name_at == 0)
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = 0;
		/* [vdso], [vvar], [vvar_vclock], and arm's [sigpage]/[vectors]. */
		if (strncmp(name, "[vdso", 5) != 0 && strncmp(name, "[vvar", 5) != 0)
			continue;
		maps[count].start = start;
		maps[count].end = end;
		snprintf(maps[count].perms, sizeof(maps[count].perms), "%s", perms);
		snprintf(maps[count].name, sizeof(maps[count].name), "%s", name);
		count++;
	}
	fclose(f);
	return count;
}

void json_host(struct json_writer *w, const struct host_facts *h, int init_result)
{
	json_key(w, "host");
	json_object_begin(w);
	json_kv_string(w, "kernel_release", h->kernel_release);
	json_kv_string(w, "kernel_version", h->kernel_version);
	json_kv_string(w, "machine", h->machine);
	json_kv_string(w, "library_arch", vdsokit_arch_name());
	json_kv_string(w, "clocksource", h->clocksource[0] ? h->clocksource : NULL);
	json_kv_string(w, "available_clocksources",
		       h->available_clocksources[0] ? h->available_clocksources : NULL);
	json_kv_string(w, "cpu_model", h->cpu_model[0] ? h->cpu_model : NULL);
	json_kv_bool(w, "vdso_mapped", h->auxv_sysinfo_ehdr != 0);
	json_kv_bool(w, "vdso_usable", init_result == 0);
	json_kv_string(w, "vdsokit_init", init_result ? errno_name(-init_result) : "ok");
	json_object_end(w);
}
