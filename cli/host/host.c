/* SPDX-License-Identifier: MIT */
/*
 * Facts about the machine that explain the figures: kernel, architecture,
 * clocksource (whether the vDSO can read the clock at all), CPU model, the
 * vDSO's mappings as the kernel lists them in /proc/self/maps, seccomp and
 * the time namespace.  The one layer that reads them for every command:
 * each fact is a value or "unknown" with the file and errno (a container
 * that masks /proc or /sys), never a default.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/personality.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"

/* ---------------------------------------------------------------------- */
/* Facts: a value, or unknown because …                                    */
/* ---------------------------------------------------------------------- */

static void fact_unknown(struct host_fact *f, const char *source, int error)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->source, sizeof(f->source), "%s", source);
	f->error = error;
}

static void fact_set_text(struct host_fact *f, const char *source, const char *text)
{
	memset(f, 0, sizeof(*f));
	f->known = true;
	snprintf(f->source, sizeof(f->source), "%s", source);
	snprintf(f->text, sizeof(f->text), "%s", text);
}

static void fact_set_number(struct host_fact *f, const char *source, long long value)
{
	char text[32];
	snprintf(text, sizeof(text), "%lld", value);
	fact_set_text(f, source, text);
	f->value = value;
}

/* A few calls' results live at once (one printf); each gets its own slot. */
static char *scratch(void)
{
	static char slots[8][400];
	static unsigned next;
	return slots[next++ % 8];
}

const char *fact_reason(const struct host_fact *f)
{
	char *buf = scratch();
	if (f->error)
		snprintf(buf, 400, "%s: %s", f->source, strerror(f->error));
	else
		snprintf(buf, 400, "%s does not say", f->source);
	return buf;
}

const char *fact_text(const struct host_fact *f)
{
	if (f->known)
		return f->text;
	char *buf = scratch();
	snprintf(buf, 400, "unknown (%s)", fact_reason(f));
	return buf;
}

void json_kv_fact(struct json_writer *w, const char *key, const struct host_fact *f)
{
	json_kv_string(w, key, f->known ? f->text : NULL);
}

void json_kv_fact_int(struct json_writer *w, const char *key, const struct host_fact *f)
{
	json_key(w, key);
	if (f->known)
		json_int(w, f->value);
	else
		json_null(w);
}

/* The first line of a small sysfs/proc file, without its newline and trailing blanks. */
static void read_first_line(struct host_fact *f, const char *path)
{
	char line[256];
	FILE *file = fopen(path, "re");
	if (!file) {
		fact_unknown(f, path, errno);
		return;
	}
	bool got = fgets(line, (int)sizeof(line), file) != NULL;
	int error = ferror(file) ? errno : 0;
	fclose(file);
	size_t n = got ? strcspn(line, "\n") : 0;
	while (n && line[n - 1] == ' ')
		n--;
	line[n] = 0;
	if (!n) {
		/* A masked /sys (an empty tmpfs) has no file; an empty one says nothing either. */
		fact_unknown(f, path, error);
		return;
	}
	fact_set_text(f, path, line);
}

static void read_cpu_model(struct host_fact *f)
{
	static const char path[] = "/proc/cpuinfo";
	FILE *file = fopen(path, "re");
	if (!file) {
		fact_unknown(f, path, errno);
		return;
	}
	fact_unknown(f, path, 0);
	char line[512];
	while (fgets(line, sizeof(line), file)) {
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
			fact_set_text(f, path, colon);
			break;
		}
	}
	fclose(file);
}

/* 0 and the vDSO-related lines of /proc/self/maps, or the errno of its open. */
static int read_mappings(struct vdso_mapping *maps, unsigned max, unsigned *count)
{
	*count = 0;
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return errno;
	char line[1024];
	while (*count < max && fgets(line, sizeof(line), f)) {
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
		struct vdso_mapping *m = &maps[(*count)++];
		m->start = start;
		m->end = end;
		snprintf(m->perms, sizeof(m->perms), "%s", perms);
		snprintf(m->name, sizeof(m->name), "%s", name);
	}
	fclose(f);
	return 0;
}

unsigned vdso_mappings_read(struct vdso_mapping *maps, unsigned max)
{
	unsigned count;
	read_mappings(maps, max, &count);
	return count;
}

static void read_status(struct host_facts *h)
{
	static const char path[] = "/proc/self/status";
	FILE *f = fopen(path, "re");
	int error = f ? 0 : errno;
	/* Each stays unknown unless its line is there (Seccomp: needs CONFIG_SECCOMP). */
	fact_unknown(&h->process_name, path, error);
	fact_unknown(&h->seccomp_mode, path, error);
	fact_unknown(&h->seccomp_filters, path, error);
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "Name:", 5) == 0)
			fact_set_text(&h->process_name, path, line + 5 + strspn(line + 5, " \t"));
		else if (strncmp(line, "Seccomp:", 8) == 0)
			fact_set_number(&h->seccomp_mode, path, atoll(line + 8));
		else if (strncmp(line, "Seccomp_filters:", 16) == 0)
			fact_set_number(&h->seccomp_filters, path, atoll(line + 16));
	}
	fclose(f);
	/*
	 * The kernel's own status file (it has a Name line) without a Seccomp
	 * line: a kernel built without CONFIG_SECCOMP, where no filter can be.
	 */
	if (h->process_name.known && !h->seccomp_mode.known) {
		fact_set_number(&h->seccomp_mode, path, 0);
		snprintf(h->seccomp_mode.text, sizeof(h->seccomp_mode.text),
			 "0 (no Seccomp line: a kernel without CONFIG_SECCOMP)");
		fact_set_number(&h->seccomp_filters, path, 0);
	}
}

static void read_link(struct host_fact *f, const char *path)
{
	char target[128];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0) {
		fact_unknown(f, path, n < 0 ? errno : 0);
		return;
	}
	target[n] = 0;
	fact_set_text(f, path, target);
}

static long long floor_seconds(long long ns)
{
	long long s = ns / 1000000000;
	return ns % 1000000000 < 0 ? s - 1 : s;
}

static void read_time_namespace(struct host_facts *h)
{
	static const char path[] = "/proc/self/timens_offsets";
	read_link(&h->time_ns, "/proc/self/ns/time");
	read_link(&h->init_time_ns, "/proc/1/ns/time");
	char mnt[128];
	if (!h->time_ns.known && h->time_ns.error == ENOENT &&
	    readlink("/proc/self/ns/mnt", mnt, sizeof(mnt)) > 0) {
		/*
		 * The namespace files are there but not the time one: a kernel
		 * built without CONFIG_TIME_NS, whose clocks have no offsets.
		 */
		static const char none[] = "none (a kernel without CONFIG_TIME_NS)";
		fact_set_text(&h->time_ns, "/proc/self/ns", none);
		fact_set_text(&h->init_time_ns, "/proc/self/ns", none);
		fact_set_number(&h->monotonic_offset_s, "/proc/self/ns", 0);
		fact_set_number(&h->boottime_offset_s, "/proc/self/ns", 0);
		return;
	}
	struct timens_offsets offsets;
	if (!timens_offsets_read(&offsets)) {
		fact_unknown(&h->monotonic_offset_s, path, errno);
		fact_unknown(&h->boottime_offset_s, path, errno);
		return;
	}
	/* Whole seconds, rounded down as the kernel's {secs, nsecs} pair is written. */
	fact_set_number(&h->monotonic_offset_s, path, floor_seconds(offsets.monotonic_ns));
	fact_set_number(&h->boottime_offset_s, path, floor_seconds(offsets.boottime_ns));
}

/*
 * The kernel's release and machine.  Under `setarch i686` (the PER_LINUX32
 * personality) uname says i686 for an x86_64 process: the machine is read
 * with the personality lifted for the one call, so it names the kernel's.
 * A refused uname leaves the three unknown with the reason, never empty.
 */
/*
 * The kernel's uname -m for a 64-bit build, and the prefix of the names
 * PER_LINUX32 makes uname give instead: a 64-bit process runs on a 64-bit
 * kernel, whatever the personality says.  NULL for a 32-bit build.
 */
static const char *build_kernel_machine(const char **compat)
{
#if defined(__x86_64__) && defined(__LP64__)
	*compat = "i";          /* i386 ... i686 */
	return "x86_64";
#elif defined(__aarch64__) && defined(__LP64__)
	*compat = "armv";
#ifdef __AARCH64EB__
	return "aarch64_be";
#else
	return "aarch64";
#endif
#elif defined(__powerpc64__)
	*compat = "ppc";
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return "ppc64le";
#else
	return "ppc64";
#endif
#elif defined(__s390x__)
	*compat = "s390";
	return "s390x";
#elif defined(__sparc__) && defined(__arch64__)
	*compat = "sparc";
	return "sparc64";
#else
	*compat = NULL;
	return NULL;
#endif
}

static void read_uname(struct host_facts *h)
{
	struct utsname u;
	int persona = personality(0xffffffff);
	bool linux32 = persona != -1 && (persona & PER_MASK) == PER_LINUX32;
	bool lifted = linux32 &&
		      personality(((unsigned)persona & ~(unsigned)PER_MASK) | PER_LINUX) != -1;
	int rc = uname(&u), e = errno;
	if (lifted)
		personality((unsigned long)persona);
	h->personality_machine[0] = 0;
	if (rc == 0 && !lifted) {
		/*
		 * The personality could not be read or lifted (a sandbox refuses
		 * personality()): uname may name the personality's machine.  For
		 * a 64-bit build the kernel's is known all the same.
		 */
		const char *compat, *native = build_kernel_machine(&compat);
		if (native && strcmp(u.machine, native) != 0 &&
		    strncmp(u.machine, compat, strlen(compat)) == 0) {
			snprintf(h->personality_machine, sizeof(h->personality_machine), "%s",
				 u.machine);
			snprintf(u.machine, sizeof(u.machine), "%s", native);
			linux32 = true;
		}
	} else if (lifted) {
		/* What the personality makes uname say: asked again, as the process sees it. */
		struct utsname seen;
		if (uname(&seen) == 0 && strcmp(seen.machine, u.machine) != 0)
			snprintf(h->personality_machine, sizeof(h->personality_machine), "%s",
				 seen.machine);
	}
	h->linux32_personality = linux32 && h->personality_machine[0];
	if (rc != 0) {
		fact_unknown(&h->uname, "uname", e);
		snprintf(h->kernel_release, sizeof(h->kernel_release), "unknown (uname: %s)",
			 errno_name(e));
		snprintf(h->kernel_version, sizeof(h->kernel_version), "%s", h->kernel_release);
		snprintf(h->machine, sizeof(h->machine), "%s", h->kernel_release);
		return;
	}
	fact_set_text(&h->uname, "uname", u.release);
	snprintf(h->kernel_release, sizeof(h->kernel_release), "%s", u.release);
	snprintf(h->kernel_version, sizeof(h->kernel_version), "%s", u.version);
	snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
}

const char *host_kernel_text(const struct host_facts *h)
{
	char *buf = scratch();
	if (h->uname.known)
		snprintf(buf, 400, "%s %s", h->kernel_release, h->machine);
	else
		snprintf(buf, 400, "(kernel unknown: %s)", fact_reason(&h->uname));
	return buf;
}

void host_facts_read(struct host_facts *h)
{
	memset(h, 0, sizeof(*h));
	read_uname(h);
	read_first_line(&h->clocksource,
			"/sys/devices/system/clocksource/clocksource0/current_clocksource");
	read_first_line(&h->available_clocksources,
			"/sys/devices/system/clocksource/clocksource0/available_clocksource");
	read_cpu_model(&h->cpu_model);
	h->auxv_sysinfo_ehdr = getauxval(AT_SYSINFO_EHDR);
	int error = read_mappings(h->mappings, HOST_MAX_MAPPINGS, &h->mapping_count);
	if (error)
		fact_unknown(&h->maps, "/proc/self/maps", error);
	else
		fact_set_number(&h->maps, "/proc/self/maps", h->mapping_count);
	read_status(h);
	read_time_namespace(h);
}

bool host_print_unknowns(FILE *out, const struct host_facts *h, const char *indent)
{
	const struct { const char *name; const struct host_fact *f; } facts[] = {
		{ "kernel release", &h->uname },
		{ "clocksource", &h->clocksource },
		{ "available clocksources", &h->available_clocksources },
		{ "CPU model", &h->cpu_model },
		{ "vDSO mappings", &h->maps },
		{ "seccomp mode", &h->seccomp_mode },
		{ "time namespace", &h->time_ns },
		{ "time namespace offsets", &h->monotonic_offset_s },
	};
	bool any = false;
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (facts[i].f->known)
			continue;
		fprintf(out, "%s%s unknown: %s\n", indent, facts[i].name, fact_reason(facts[i].f));
		any = true;
	}
	return any;
}

void json_host(struct json_writer *w, const struct host_facts *h, int init_result)
{
	json_key(w, "host");
	json_object_begin(w);
	json_kv_string(w, "kernel_release", h->uname.known ? h->kernel_release : NULL);
	json_kv_string(w, "kernel_version", h->uname.known ? h->kernel_version : NULL);
	json_kv_string(w, "machine", h->uname.known ? h->machine : NULL);
	json_kv_string(w, "library_arch", vdsokit_arch_name());
	json_kv_fact(w, "clocksource", &h->clocksource);
	json_kv_fact(w, "available_clocksources", &h->available_clocksources);
	json_kv_fact(w, "cpu_model", &h->cpu_model);
	json_kv_bool(w, "vdso_mapped", h->auxv_sysinfo_ehdr != 0);
	json_kv_bool(w, "vdso_usable", init_result == 0);
	json_kv_string(w, "vdsokit_init", init_result ? errno_name(-init_result) : "ok");
	/* Why each null above is null: {"clocksource": "/sys/…: No such file or directory"}. */
	json_key(w, "unknown");
	json_object_begin(w);
	const struct { const char *key; const struct host_fact *f; } facts[] = {
		{ "kernel_release", &h->uname },
		{ "clocksource", &h->clocksource },
		{ "available_clocksources", &h->available_clocksources },
		{ "cpu_model", &h->cpu_model },
		{ "mappings", &h->maps },
		{ "process_name", &h->process_name },
		{ "seccomp_mode", &h->seccomp_mode },
		{ "seccomp_filters", &h->seccomp_filters },
		{ "time_namespace", &h->time_ns },
		{ "init_time_namespace", &h->init_time_ns },
		{ "timens_offsets", &h->monotonic_offset_s },
	};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (!facts[i].f->known)
			json_kv_string(w, facts[i].key, fact_reason(facts[i].f));
	json_object_end(w);
	json_object_end(w);
}

unsigned allowed_cpus(int *cpus, unsigned max)
{
	cpu_set_t set;
	unsigned count = 0;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int cpu = 0; cpu < CPU_SETSIZE && count < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[count++] = cpu;
	return count;
}
