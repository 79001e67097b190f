/* SPDX-License-Identifier: MIT */
/*
 * vdsokit doctor: why a call is not on its fast path, with the evidence and
 * what to do about it.
 *
 * The causes, most common first: no vDSO at all (vdso=0, qemu-user,
 * valgrind), a clocksource the vDSO cannot read (hpet, acpi_pm: the vDSO
 * then makes the syscall itself, which only a measurement shows), a
 * function or clock this kernel or architecture serves in the kernel only.
 * The environment that changes the picture (seccomp, time namespaces,
 * 32-bit userspace, virtual machines) is reported alongside.
 */
#include <elf.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "checks/doctor.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"
#include "images/images.h"
#include "checks/reference.h"

/* A vDSO read within this factor of the syscall's cost is the syscall. */
#define FALLBACK_RATIO 2.0
/* How long doctor measures the clocksource's vDSO read against the syscall. */
#define DOCTOR_MEASURE_S 0.3

/* ---------------------------------------------------------------------- */
/* The vDSO itself                                                         */
/* ---------------------------------------------------------------------- */

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

/*
 * doctor --image FILE (a test aid): the library runs the file's code in
 * place of the vDSO, so the checks of the vDSO's functions and stack use
 * judge the file; what the kernel gave the process is not examined.
 */
static const char *doctor_image_file;

struct vdso_facts {
	bool mapped;            /* AT_SYSINFO_EHDR given to the process, or --image */
	bool usable;            /* the library accepted the image       */
	unsigned long address;
	size_t size;            /* of the [vdso] mapping, 0 if unknown  */
	const char *reason;     /* the likely reason when !mapped      */
	const char *reason_id;  /* "valgrind", "qemu-user", "cmdline", … */
};

static void check_vdso(struct doctor_report *r, const struct host_facts *host,
		       const struct doctor_env *env, int init_result, struct vdso_facts *v)
{
	const struct vdso_mapping *maps = host->mappings;
	unsigned n = host->mapping_count;
	memset(v, 0, sizeof(*v));
	v->mapped = host->auxv_sysinfo_ehdr != 0;
	v->usable = init_result == 0;
	v->address = host->auxv_sysinfo_ehdr;
	for (unsigned i = 0; i < n; i++)
		if (strcmp(maps[i].name, "[vdso]") == 0)
			v->size = maps[i].end - maps[i].start;

	if (doctor_image_file) {
		/* use_image_file() copied it into memory and the library took it. */
		const struct vdsokit_image *img = vdsokit_process_image();
		v->mapped = img != NULL;
		v->address = img ? (unsigned long)(uintptr_t)img->data : 0;
		v->size = img ? img->size : 0;
		struct doctor_finding *f = doctor_finding_add(r, "vdso-image", SEVERITY_INFO,
			"test aid: examining the vDSO image file %s (--image), not this kernel's vDSO",
			doctor_image_file);
		doctor_evidence(f, "mapped at %#lx, %zu bytes, %u dynamic symbols", v->address, v->size,
			 img ? img->symbol_count : 0);
		doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = %#lx: the kernel's vDSO, not examined",
			 host->auxv_sysinfo_ehdr);
		doctor_action(f, "the findings about the vDSO's functions, clocksource and stack use "
		       "describe the file; run without --image for this system's");
		return;
	}

	if (v->mapped && v->usable) {
		const struct vdsokit_image *img = vdsokit_process_image();
		char size[64];
		/* The size comes from the maps only: unknown when they cannot be read. */
		if (v->size)
			snprintf(size, sizeof(size), "%zu KiB", v->size / 1024);
		else
			snprintf(size, sizeof(size), "size unknown");
		struct doctor_finding *f = doctor_finding_add(r, "vdso", SEVERITY_OK,
			"vDSO mapped at %#lx (%s), %u dynamic symbols", v->address, size,
			img ? img->symbol_count : 0);
		doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = %#lx", v->address);
		if (!host->maps.known)
			doctor_evidence(f, "mapping size unknown: %s", fact_reason(&host->maps));
		for (unsigned i = 0; i < n; i++)
			doctor_evidence(f, "/proc/self/maps: %#lx-%#lx %s %s", (unsigned long)maps[i].start,
				 (unsigned long)maps[i].end, maps[i].perms, maps[i].name);
		return;
	}
	if (v->mapped) {
		struct doctor_finding *f = doctor_finding_add(r, "bad-image", SEVERITY_SLOW,
			"the vDSO at %#lx was rejected by the library: every call is a syscall",
			v->address);
		struct vdsokit_image img;
		doctor_evidence(f, "vdsokit_init() = %s", errno_name(-init_result));
		if (v->size) {
			int e = vdsokit_image_parse(&img, (const void *)v->address, v->size);
			doctor_evidence(f, "parsing the %zu-byte [vdso] mapping: %s", v->size,
				 e ? vdsokit_image_strerror(e) :
				 "parses, but lacks what this architecture needs");
		} else {
			doctor_evidence(f, "/proc/self/maps shows no [vdso] mapping at that address");
		}
		if (env->rr)
			doctor_evidence(f, "%s: rr replaces the vDSO with its own", env->rr_evidence);
		doctor_action(f, "run `vdsokit info` and `vdsokit dump -o vdso.so`, then report the image "
		       "(readelf -a vdso.so) to the vdsokit developers");
		return;
	}

	struct doctor_finding *f = doctor_finding_add(r, "no-vdso", SEVERITY_SLOW,
					"no vDSO is mapped in this process: every call is a syscall");
	doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = 0");
	if (env->auxv_file_readable)
		doctor_evidence(f, "/proc/self/auxv %s AT_SYSINFO_EHDR", env->auxv_file_has_vdso ?
			 "has an" : "has no");
	if (env->maps_readable)
		doctor_evidence(f, "/proc/self/maps has %s[vdso] mapping%s", env->maps_has_vdso ? "a " : "no ",
			 env->maps_has_vvar ? " (its [vvar] data pages are there)" : "");
	if (env->cmdline_readable)
		doctor_evidence(f, "/proc/cmdline: %s", env->cmdline_vdso[0] ? env->cmdline_vdso :
			 "no vdso=0 option");

	if (env->valgrind) {
		v->reason_id = "valgrind";
		v->reason = "running under valgrind, which does not pass the vDSO on to the program";
		doctor_action(f, "expected under valgrind; measure and verify without it");
	} else if (env->qemu_user) {
		v->reason_id = "qemu-user";
		v->reason = "running under qemu-user, which maps no vDSO for the emulated program";
		doctor_action(f, "expected under qemu-user; to use the vDSO of %s, run on a real kernel of that "
		       "architecture (or qemu-system)", vdsokit_arch_name());
	} else if (env->auxv_file_has_vdso) {
		/* The kernel's own auxv shows the entry: a vdso=0 it ignored is no cause. */
		v->reason_id = "loader";
		v->reason = "the kernel mapped a vDSO but AT_SYSINFO_EHDR did not reach the program "
			    "(a loader, tracer or sandbox removed it)";
		doctor_action(f, "run the program directly, without the tool that starts it");
	} else if (env->cmdline_vdso[0]) {
		v->reason_id = "cmdline";
		v->reason = "the kernel was booted with the vDSO disabled";
		doctor_action(f, "remove %s from the kernel command line (bootloader configuration) and "
		       "reboot", env->cmdline_vdso);
	} else if (arch_without_vdso(vdsokit_arch_name())) {
		v->reason_id = "arch";
		v->reason = "mainline kernels of this architecture have no vDSO";
		doctor_action(f, "none on this kernel: a kernel with a vDSO for %s would be needed",
		       vdsokit_arch_name());
	} else {
		v->reason_id = "unknown";
		v->reason = "unknown: a kernel built without a vDSO for this ABI (e.g. 32-bit compat "
			    "vDSO disabled), a sandbox such as gVisor, or an emulator not recognised";
		doctor_action(f, "check the kernel configuration (CONFIG_GENERIC_GETTIMEOFDAY, "
		       "CONFIG_COMPAT_VDSO) and what starts this program");
	}
	doctor_evidence(f, "likely reason: %s", v->reason);
}

/* ---------------------------------------------------------------------- */
/* Tools and emulators                                                     */
/* ---------------------------------------------------------------------- */

static void check_tools(struct doctor_report *r, const struct doctor_env *env, const struct host_facts *h)
{
	if (env->valgrind) {
		struct doctor_finding *f = doctor_finding_add(r, "valgrind", SEVERITY_SLOW,
			"running under valgrind: its CPU emulation replaces every fast path");
		for (unsigned i = 0; i < 2; i++)
			if (env->valgrind_evidence[i][0])
				doctor_evidence(f, "%s", env->valgrind_evidence[i]);
		if (h->process_name.known)
			doctor_evidence(f, "process name %s (/proc/self/status)", h->process_name.text);
		doctor_action(f, "figures and routes under valgrind say nothing about the real machine: "
		       "measure without it");
	}
	if (env->qemu_user) {
		struct doctor_finding *f = doctor_finding_add(r, "qemu-user", SEVERITY_SLOW,
			"emulated by qemu-user (%s code, host CPU %s): no vDSO", vdsokit_arch_name(),
			env->cpuinfo_family[0] ? env->cpuinfo_family : "unknown");
		for (unsigned i = 0; i < env->qemu_evidence_count; i++)
			doctor_evidence(f, "%s", env->qemu_evidence[i]);
		if (!h->auxv_sysinfo_ehdr)
			doctor_evidence(f, "getauxval(AT_SYSINFO_EHDR) = 0");
		doctor_action(f, "timings are emulated and every call is a syscall translated by qemu; run "
		       "under qemu-system with a real kernel to see the vDSO of %s", vdsokit_arch_name());
	}
	if (env->rr) {
		struct doctor_finding *f = doctor_finding_add(r, "rr", SEVERITY_WARNING,
			"running under rr: it remaps the vDSO and patches its calls");
		doctor_evidence(f, "%s", env->rr_evidence);
		doctor_action(f, "measure without rr");
	}
}

/* ---------------------------------------------------------------------- */
/* Functions and clocks                                                    */
/* ---------------------------------------------------------------------- */

/* The clocks the vDSO serves in user space on most architectures. */
static const long fast_clocks[] = {
	CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
	CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI,
};
#define FAST_CLOCK_COUNT (sizeof(fast_clocks) / sizeof(fast_clocks[0]))

/*
 * The library's word that the vDSO of this architecture reads MONOTONIC in
 * user space on no kernel, whatever the clocksource: its path sends the
 * clock to the syscall although the vDSO entry is in use.
 */
static bool monotonic_in_kernel(void)
{
	struct vdsokit_route_info p;
	return vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &p) == 0 &&
	       p.reason == VDSOKIT_REASON_CLOCK_IN_KERNEL;
}

/*
 * The entry this process's vDSO exports for fn, used by the library or not:
 * a defined global function named __<prefix>_<function> (__vdso_gettimeofday,
 * __kernel_getcpu).  The image is the evidence, not a list of architectures.
 */
static bool image_entry(enum vdsokit_func fn, struct vdsokit_symbol *found)
{
	const struct vdsokit_image *img = vdsokit_process_image();
	const char *want = cli_func_name(fn);
	size_t want_len = strlen(want);
	for (uint32_t i = 0; img && i < img->symbol_count; i++) {
		struct vdsokit_symbol sym;
		if (vdsokit_image_symbol(img, i, &sym) != 0 || !sym.name || sym.shndx == SHN_UNDEF ||
		    sym.type != STT_FUNC || (sym.bind != STB_GLOBAL && sym.bind != STB_WEAK))
			continue;
		size_t len = strlen(sym.name);
		if (strncmp(sym.name, "__", 2) == 0 && len > want_len + 2 &&
		    sym.name[len - want_len - 1] == '_' && strcmp(sym.name + len - want_len, want) == 0) {
			*found = sym;
			return true;
		}
	}
	return false;
}

/* The clock a function's vDSO entry reads, -1 for none. */
static long clock_read_by(enum vdsokit_func fn)
{
	return fn == VDSOKIT_FN_GETTIMEOFDAY ? CLOCK_REALTIME : -1;
}

/*
 * Why the library makes the syscall for fn although the image exports
 * entry: in the library's terms (its path for fn, or for the clock the
 * entry reads), never from the architecture's name.  False when the
 * library's path says nothing of what the entry would do.
 */
static bool entry_passed_by(char *buf, size_t size, enum vdsokit_func fn,
			    const struct vdsokit_route_info *p, const struct vdsokit_symbol *entry)
{
	char clock[32];
	struct vdsokit_route_info read;
	long c = clock_read_by(fn);
	doctor_append(buf, size, "%s%s: %s%s%s ", buf[0] ? "; " : "", cli_func_name(fn), entry->name,
	       entry->version ? "@" : "", entry->version ? entry->version : "");
	/* The most telling first: the clock it reads has no user-space read here. */
	if (c >= 0 && vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, (clockid_t)c, &read) == 0 &&
	    read.reason == VDSOKIT_REASON_CLOCK_IN_KERNEL) {
		doctor_append(buf, size, "is exported, but it reads CLOCK_%s, and vdsokit_route_of(%s(%s)) "
		       "says: %s; so the entry would only make the syscall, and the library makes "
		       "%s directly", clock_id_name(clock, sizeof(clock), c),
		       cli_func_name(VDSOKIT_FN_CLOCK_GETTIME), clock, vdsokit_reason_text(read.reason),
		       p->syscall ? p->syscall : "it");
		return true;
	}
	if (p->reason == VDSOKIT_REASON_ENTRY_IS_SYSCALL) {
		doctor_append(buf, size, "is exported, but %s (%s)", vdsokit_reason_text(p->reason),
		       p->syscall ? p->syscall : "the syscall");
		return true;
	}
	doctor_append(buf, size, "is exported, but the library does not call it on %s and makes %s "
	       "(vdsokit_route_of: route %s)", vdsokit_arch_name(),
	       p->syscall ? p->syscall : "the syscall", vdsokit_route_name(p->route));
	return false;
}

/* One finding for a group of calls that share a path: the title ends with their list. */
static void group_finding(struct doctor_report *r, const char *list, const char *id,
			  enum doctor_severity severity, const char *title, const char *path_says,
			  const char *todo)
{
	if (!list[0])
		return;
	struct doctor_finding *f = doctor_finding_add(r, id, severity, "%s: %s", title, list);
	doctor_evidence(f, "vdsokit_route_of: %s", path_says);
	doctor_action(f, "%s", todo);
}

/*
 * The libc's rseq registration, for the cpu-only finding: how much of
 * struct rseq it registered (glibc 2.35+; absent in musl and older glibc).
 */
extern const unsigned int __rseq_size __attribute__((weak));

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27 /* Linux 6.3+: how much of struct rseq the kernel fills */
#endif
/* struct rseq's node_id is bytes 20-23: an area that ends before 24 has none. */
#define RSEQ_NODE_ID_END 24

/*
 * getcpu reads cpu_id from the rseq area in one load, but the area has no
 * node_id: say what a call that asks for the node takes (the path's symbol
 * or syscall) and which side stops short, the kernel or the libc.
 */
static void report_rseq_cpu_only(struct doctor_report *r, const struct vdsokit_route_info *p)
{
	unsigned long kernel_fills = getauxval(AT_RSEQ_FEATURE_SIZE);
	char node_path[128];
	if (p->symbol)
		snprintf(node_path, sizeof(node_path), "the vDSO's %s%s%s", p->symbol,
			 p->version ? "@" : "", p->version ? p->version : "");
	else
		snprintf(node_path, sizeof(node_path), "the %s syscall", p->syscall ? p->syscall : "getcpu");
	struct doctor_finding *f = doctor_finding_add(r, "rseq-cpu-only", SEVERITY_INFO,
		"getcpu reads the CPU from the rseq area; a call that asks for the node takes %s",
		node_path);
	doctor_evidence(f, "vdsokit_route_of(getcpu): route %s, %s", vdsokit_route_name(p->route),
		 vdsokit_reason_text(p->reason));
	if (kernel_fills < RSEQ_NODE_ID_END)
		doctor_evidence(f, "getauxval(AT_RSEQ_FEATURE_SIZE) = %lu: this kernel keeps no node_id in "
			 "the rseq area (Linux 6.3 and later do)", kernel_fills);
	else
		doctor_evidence(f, "getauxval(AT_RSEQ_FEATURE_SIZE) = %lu: this kernel fills node_id, but "
			 "the libc registered %u bytes of the area (__rseq_size), which end before it",
			 kernel_fills, &__rseq_size ? __rseq_size : 0);
	doctor_action(f, "none: getcpu without the node (node NULL) is one load%s", p->symbol ?
	       ", and with it still runs in user space" :
	       "; where the node is asked for often, a kernel and libc that share node_id in the "
	       "rseq area make that one load too");
}

/* Findings from vdsokit_route_of for every function (and clock). */
static void check_functions(struct doctor_report *r, const struct vdso_facts *v)
{
	char fast[1024] = "", absent[512] = "", not_on_arch[512] = "", kernel_clocks[512] = "",
	     time32[512] = "", untrusted[512] = "", other[512] = "", passed_by[1024] = "",
	     passed_by_names[256] = "", user_space[512] = "", unavailable[256] = "",
	     vdso_kernel[256] = "", no_state_memory[128] = "";
	char label[64], title[96];
	struct vdsokit_route_info p, cpu_only = { .route = VDSOKIT_ROUTE_NONE };
	struct vdsokit_symbol entry;
	unsigned fast_count = 0;
	bool passed_by_explained = true;

	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		bool clocked = fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
		unsigned n = clocked ? FAST_CLOCK_COUNT : 1;
		for (unsigned i = 0; i < n; i++) {
			long clock = clocked ? fast_clocks[i] : 0;
			if (vdsokit_route_of((enum vdsokit_func)fn, (clockid_t)clock, &p) != 0)
				continue;
			doctor_call_label((enum vdsokit_func)fn, clock, label, sizeof(label));
			/*
			 * The route first: only the vDSO and syscall routes have
			 * reasons that sort them further.  A register or the rseq
			 * area is one load, faster than any vDSO call, whatever
			 * the vDSO's state (its reasons are no fallback).
			 */
			switch (p.route) {
			case VDSOKIT_ROUTE_RSEQ:
				if (p.reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY)
					cpu_only = p;
				/* fall through */
			case VDSOKIT_ROUTE_REGISTER:
				fast_count++;
				doctor_append(user_space, sizeof(user_space), "%s%s", user_space[0] ? ", " : "",
				       label);
				doctor_append(fast, sizeof(fast), "%s%s -> %s", fast[0] ? "; " : "", label,
				       p.route == VDSOKIT_ROUTE_RSEQ ? "the rseq area" : "a CPU register");
				continue;
			case VDSOKIT_ROUTE_VDSO_KERNEL:
				/* A vDSO entry, but it enters the kernel: no user-space path. */
				doctor_append(vdso_kernel, sizeof(vdso_kernel), "%s%s -> %s", vdso_kernel[0] ?
				       "; " : "", label, p.symbol ? p.symbol : "?");
				continue;
			case VDSOKIT_ROUTE_NONE:
				/* Neither a vDSO entry nor a syscall: nothing to fall back to. */
				doctor_append(unavailable, sizeof(unavailable), "%s%s", unavailable[0] ? ", " : "",
				       label);
				continue;
			case VDSOKIT_ROUTE_AUTO: /* never an answer of vdsokit_route_of */
			case VDSOKIT_ROUTE_VDSO:
			case VDSOKIT_ROUTE_SYSCALL:
				break;
			}
			switch (p.reason) {
			case VDSOKIT_REASON_OK:
				fast_count++;
				if (fn != VDSOKIT_FN_CLOCK_GETRES) /* getres reads no clock */
					doctor_append(user_space, sizeof(user_space), "%s%s",
					       user_space[0] ? ", " : "", label);
				if (p.route == VDSOKIT_ROUTE_VDSO && (!clocked || clock == CLOCK_MONOTONIC))
					doctor_append(fast, sizeof(fast), "%s%s -> %s%s%s", fast[0] ? "; " : "",
					       clocked ? cli_func_name((enum vdsokit_func)fn) : label,
					       p.symbol ? p.symbol : "?", p.version ? "@" : "",
					       p.version ? p.version : "");
				break;
			case VDSOKIT_REASON_SYMBOL_ABSENT:
				doctor_append(absent, sizeof(absent), "%s%s", absent[0] ? ", " : "", label);
				break;
			case VDSOKIT_REASON_NOT_ON_ARCH:
			case VDSOKIT_REASON_ENTRY_IS_SYSCALL:
				if (image_entry((enum vdsokit_func)fn, &entry)) {
					/* The kernel has the entry: say why it goes unused. */
					passed_by_explained &= entry_passed_by(passed_by,
						sizeof(passed_by), (enum vdsokit_func)fn, &p, &entry);
					doctor_append(passed_by_names, sizeof(passed_by_names), "%s%s (%s)",
					       passed_by_names[0] ? ", " : "", label, entry.name);
				} else if (p.reason == VDSOKIT_REASON_NOT_ON_ARCH) {
					doctor_append(not_on_arch, sizeof(not_on_arch), "%s%s",
					       not_on_arch[0] ? ", " : "", label);
				} else {
					doctor_append(other, sizeof(other), "%s%s (%s)", other[0] ? "; " : "",
					       label, vdsokit_reason_text(p.reason));
				}
				break;
			case VDSOKIT_REASON_CLOCK_IN_KERNEL:
				doctor_append(kernel_clocks, sizeof(kernel_clocks), "%s%s",
				       kernel_clocks[0] ? ", " : "", label);
				break;
			case VDSOKIT_REASON_TIME32:
				fast_count++;
				doctor_append(time32, sizeof(time32), "%s%s", time32[0] ? ", " : "", label);
				break;
			case VDSOKIT_REASON_UNTRUSTED:
				doctor_append(untrusted, sizeof(untrusted), "%s%s", untrusted[0] ? ", " : "", label);
				break;
			case VDSOKIT_REASON_NO_STATE_MEMORY:
				doctor_append(no_state_memory, sizeof(no_state_memory), "%s%s",
					      no_state_memory[0] ? ", " : "", label);
				break;
			case VDSOKIT_REASON_NO_VDSO:
			case VDSOKIT_REASON_BAD_IMAGE:
				break; /* said once by check_vdso */
			default:
				/* A reason newer than this file: say it as the library does. */
				doctor_append(other, sizeof(other), "%s%s (%s)", other[0] ? "; " : "", label,
				       vdsokit_reason_text(p.reason));
				break;
			}
		}
	}
	if (!v->mapped || !v->usable)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "functions", SEVERITY_OK,
					"%u function/clock routes run in user space", fast_count);
	doctor_evidence(f, "%s", fast);
	group_finding(r, absent, "symbol-absent", SEVERITY_INFO, "this kernel's vDSO lacks",
		      vdsokit_reason_text(VDSOKIT_REASON_SYMBOL_ABSENT),
		      "a newer kernel has them (getrandom: Linux 6.11 on x86_64, 6.12 on arm64, "
		      "powerpc, s390); until then the library makes the syscall");
	if (passed_by[0]) {
		f = doctor_finding_add(r, "entry-is-syscall", SEVERITY_INFO,
				"vDSO entries the library passes by, making the syscall itself: %s",
				passed_by_names);
		doctor_evidence(f, "%s", passed_by);
		doctor_action(f, "%s", passed_by_explained ?
		       "none: these entries would make the same syscall after a detour through "
		       "the vDSO; the library makes it directly" :
		       "none needed: the library's syscall is correct; `vdsokit bench` shows whether "
		       "the entry would be faster");
	}
	snprintf(title, sizeof(title), "no vDSO entry on %s for", vdsokit_arch_name());
	group_finding(r, not_on_arch, "not-on-arch", SEVERITY_INFO, title,
		      vdsokit_reason_text(VDSOKIT_REASON_NOT_ON_ARCH),
		      "none: the syscall is the only route for these on this architecture");
	if (kernel_clocks[0]) {
		f = doctor_finding_add(r, "kernel-clocks", SEVERITY_INFO,
				"the vDSO of this architecture has no user-space read for: %s",
				kernel_clocks);
		doctor_evidence(f, "vdsokit_route_of: %s", vdsokit_reason_text(VDSOKIT_REASON_CLOCK_IN_KERNEL));
		if (monotonic_in_kernel())
			doctor_action(f, "none: the vDSO of %s has no user-space read for MONOTONIC whatever "
			       "the clocksource, so it would make these syscalls itself and MONOTONIC "
			       "gains nothing: the library makes them directly; in user space run: %s",
			       vdsokit_arch_name(), user_space[0] ? user_space : "nothing");
		else
			doctor_action(f, "none: the library makes the syscall directly, saving the vDSO's "
			       "detour");
	}
	group_finding(r, time32, "time32", SEVERITY_INFO, "only 32-bit-time vDSO entries for",
		      vdsokit_reason_text(VDSOKIT_REASON_TIME32),
		      "fine until 2038; the library checks each result and takes the 64-bit "
		      "syscall once the seconds overflow");
	group_finding(r, untrusted, "untrusted", SEVERITY_SLOW, "vDSO entries present but not used",
		      vdsokit_reason_text(VDSOKIT_REASON_UNTRUSTED),
		      "a kernel from 5.8 on exports both entries and fixes the 64-bit one");
	if (cpu_only.route == VDSOKIT_ROUTE_RSEQ)
		report_rseq_cpu_only(r, &cpu_only);
	group_finding(r, vdso_kernel, "vdso-kernel", SEVERITY_INFO,
		      "vDSO entries that enter the kernel", "route vdso-kernel",
		      "none: the entry is this kernel's way to serve the call; it costs about "
		      "a syscall");
	snprintf(title, sizeof(title), "not available on %s at all (no vDSO entry, no syscall)",
		 vdsokit_arch_name());
	group_finding(r, unavailable, "unavailable", SEVERITY_INFO, title, "route none",
		      "none: nothing on this architecture serves these calls");
	group_finding(r, no_state_memory, "no-state-memory", SEVERITY_SLOW,
		      "the vDSO serves these, but without its state they take the syscall",
		      vdsokit_reason_text(VDSOKIT_REASON_NO_STATE_MEMORY),
		      "a seccomp filter or sandbox refuses madvise (MADV_WIPEONFORK) or mmap, which "
		      "libvdsokit needs once per process for getrandom's states: allow them in its policy");
	group_finding(r, other, "fallback", SEVERITY_WARNING, "calls that fall back to the syscall",
		      "the reason given with each call", "see the reason given for each");
}

/*
 * Calls the library makes that fail here: a seccomp filter or sandbox that
 * refuses a syscall the call needs (the fallback, the CPU-time clocks, or
 * the one the vDSO's getrandom makes to set up its state).  What a call
 * returns is the evidence, whatever its route says.
 */
static void check_failing_calls(struct doctor_report *r, const struct host_facts *h)
{
	static const long clocks[] = {
		CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE,
		CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI, CLOCK_PROCESS_CPUTIME_ID,
		CLOCK_THREAD_CPUTIME_ID,
	};
	char failing[512] = "", label[64];
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		bool clocked = fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
		unsigned n = clocked ? sizeof(clocks) / sizeof(clocks[0]) : 1;
		for (unsigned i = 0; i < n; i++) {
			struct bench_case c;
			bench_case_init(&c, (enum vdsokit_func)fn, clocked ? clocks[i] : 16);
			long result = bench_call_once(&c, BENCH_LIBRARY);
			if (!syscall_refused(result))
				continue;
			doctor_call_label((enum vdsokit_func)fn, clocked ? clocks[i] : 0, label, sizeof(label));
			doctor_append(failing, sizeof(failing), "%s%s (%s)", failing[0] ? ", " : "", label,
			       errno_name((int)-result));
		}
	}
	if (!failing[0])
		return;
	struct doctor_finding *f = doctor_finding_add(r, "calls-fail", SEVERITY_SLOW, "calls that fail here: %s",
					failing);
	doctor_evidence(f, "one call of each through libvdsokit returned these errors");
	if (h->seccomp_mode.known)
		doctor_evidence(f, "%s: Seccomp: %lld%s, Seccomp_filters: %s", h->seccomp_mode.source,
			 h->seccomp_mode.value, h->seccomp_mode.value == 2 ? " (filter)" :
			 h->seccomp_mode.value == 1 ? " (strict)" : "", fact_text(&h->seccomp_filters));
	else
		doctor_evidence(f, "seccomp mode unknown: %s", fact_reason(&h->seccomp_mode));
	doctor_action(f, "%s refuses the syscalls these calls need: allow them in its policy (the "
	       "vDSO's getrandom needs the getrandom syscall to set up its state)",
	       h->seccomp_mode.known && h->seccomp_mode.value == 2 ? "the seccomp filter" :
	       "a seccomp filter or sandbox");
}

/* CPU-time clocks: the kernel keeps the counters, so every architecture goes there. */
static void check_cputime(struct doctor_report *r)
{
	static const long clocks[] = { CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };
	struct doctor_finding *f = doctor_finding_add(r, "cputime-syscall", SEVERITY_INFO,
					"CPU-time clocks always take a syscall");
	for (unsigned i = 0; i < 2; i++) {
		struct vdsokit_route_info p;
		char name[32];
		if (vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, (clockid_t)clocks[i], &p) != 0)
			continue;
		doctor_evidence(f, "clock_gettime(%s): route %s, %s%s%s", clock_id_name(name, sizeof(name),
			 clocks[i]), vdsokit_route_name(p.route), vdsokit_reason_text(p.reason),
			 p.syscall ? ", syscall " : "", p.syscall ? p.syscall : "");
	}
	doctor_action(f, "expected: only the kernel knows a task's CPU time; to time code cheaply, take "
	       "CLOCK_MONOTONIC differences");
}

/* ---------------------------------------------------------------------- */
/* Clocksource                                                             */
/* ---------------------------------------------------------------------- */

/* Whether the vDSO can read a clocksource in user space: 1 yes, 0 no, -1 unknown. */
static int clocksource_vdso_capable(const char *name)
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

struct clocksource_facts {
	int capable;                 /* of the current one, as clocksource_vdso_capable */
	bool measured;               /* both paths, so the ratio stands         */
	bool vdso_measured;          /* the vDSO's figure alone (vdso_ns)       */
	long syscall_refused;        /* the reference's -errno when refused     */
	double vdso_ns, syscall_ns, ratio;
	bool fallback;               /* the measurement (or the name) proves it */
};

static void measure_monotonic(struct clocksource_facts *cs, double seconds)
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
	if (!results[BENCH_VDSO].available || results[BENCH_VDSO].refused ||
	    results[BENCH_VDSO].first_result != 0 || !isfinite(results[BENCH_VDSO].median_ns))
		return;
	cs->vdso_measured = true;
	cs->vdso_ns = results[BENCH_VDSO].median_ns;
	/* A refused syscall is no figure: nothing to divide by. */
	if (results[BENCH_SYSCALL].refused) {
		cs->syscall_refused = results[BENCH_SYSCALL].refused;
		return;
	}
	if (!results[BENCH_SYSCALL].available || !isfinite(results[BENCH_SYSCALL].median_ns))
		return;
	cs->measured = true;
	cs->vdso_ns = results[BENCH_VDSO].median_ns;
	cs->syscall_ns = results[BENCH_SYSCALL].median_ns;
	cs->ratio = cs->vdso_ns > 0 ? cs->syscall_ns / cs->vdso_ns : NAN;
}

static void check_clocksource(struct doctor_report *r, const struct host_facts *h,
			      const struct doctor_env *env, const struct vdso_facts *v,
			      struct clocksource_facts *cs, double measure_s)
{
	memset(cs, 0, sizeof(*cs));
	/* Where the library itself sends MONOTONIC to the kernel, no clocksource is read. */
	bool arch_reads_none = v->mapped && v->usable && monotonic_in_kernel();
	cs->capable = arch_reads_none ? 0 :
		      h->clocksource.known ? clocksource_vdso_capable(h->clocksource.text) : -1;
	if (v->mapped && v->usable)
		measure_monotonic(cs, measure_s);
	const char *name = fact_text(&h->clocksource);
	const char *foreign = env->qemu_user ? " (the host kernel's: this program is emulated)" : "";

	if (cs->measured)
		cs->fallback = cs->ratio < FALLBACK_RATIO;
	else
		cs->fallback = v->mapped && v->usable && cs->capable == 0;

	/*
	 * The title says why only when the name proves it (hpet, acpi_pm: no
	 * vDSO read at all); otherwise the measurement speaks for itself: a
	 * counter read that traps (MIPS rdhwr emulated by the kernel) makes the
	 * vDSO as slow as a syscall, or slower, without any fallback.
	 */
	struct doctor_finding *f;
	if (arch_reads_none) {
		/* Nothing to gain: the library already avoids the vDSO's detour. */
		f = doctor_finding_add(r, "clocksource", SEVERITY_INFO,
				"clocksource %s has no user-space read on %s: clock_gettime(MONOTONIC) "
				"is a syscall, which the library makes directly", name,
				vdsokit_arch_name());
	} else if (cs->fallback && cs->capable == 0) {
		f = doctor_finding_add(r, "clocksource-fallback", SEVERITY_SLOW,
				"clocksource %s cannot be read from user space: clock_gettime falls "
				"back to the syscall inside the vDSO", name);
	} else if (cs->fallback) {
		f = doctor_finding_add(r, "clocksource-fallback", SEVERITY_SLOW,
				"clock_gettime through the vDSO is no cheaper than the syscall with "
				"clocksource %s (measured)", name);
	} else if (cs->measured && cs->capable == 0) {
		/* Two facts that cannot both hold: say both, believe neither. */
		char x[32];
		f = doctor_finding_add(r, "clocksource-contradiction", SEVERITY_WARNING,
				"sysfs names clocksource %s, which the vDSO cannot read, yet "
				"clock_gettime through the vDSO measures %s cheaper than the syscall",
				name, fmt_ratio(x, sizeof(x), cs->ratio));
		doctor_action(f, "one of the two is wrong: a stale or substituted sysfs (a container's "
		       "/sys), or a clocksource switched during the run; read %s again and "
		       "compare with `vdsokit bench`",
		       "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	} else if (v->mapped && v->usable && h->clocksource.known) {
		f = doctor_finding_add(r, "clocksource", SEVERITY_OK,
				"clocksource %s is read in user space by the vDSO", name);
	} else if (v->mapped && v->usable && cs->measured) {
		/* The measurement speaks; the name is not known, so it is not named. */
		f = doctor_finding_add(r, "clocksource", SEVERITY_OK,
				"clock_gettime(MONOTONIC) runs in user space (measured); the "
				"clocksource is %s", name);
	} else {
		f = doctor_finding_add(r, "clocksource", SEVERITY_INFO, "clocksource %s%s", name, foreign);
	}
	if (cs->measured) {
		char a[32], b[32], x[32];
		fmt_duration_ns(a, sizeof(a), cs->vdso_ns);
		fmt_duration_ns(b, sizeof(b), cs->syscall_ns);
		if (arch_reads_none)
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): the vDSO's own entry %s, the "
				 "syscall %s per call%s", a, b, cs->fallback ?
				 ": the entry only makes the syscall" : "");
		else if (!cs->fallback)
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s, syscall %s per call: "
				 "the vDSO is %s cheaper", a, b, fmt_ratio(x, sizeof(x), cs->ratio));
		else if (cs->ratio >= 1)
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s, syscall %s per call: "
				 "the vDSO is only %s cheaper (below %.0f%s): it costs a syscall", a, b,
				 fmt_ratio(x, sizeof(x), cs->ratio), FALLBACK_RATIO, cli_times_sign());
		else
			doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s, syscall %s per call: "
				 "the vDSO is %s slower than the syscall", a, b,
				 fmt_ratio(x, sizeof(x), 1 / cs->ratio));
	} else if (cs->vdso_measured && cs->syscall_refused) {
		char a[32], why[240];
		fmt_duration_ns(a, sizeof(a), cs->vdso_ns);
		doctor_evidence(f, "measured clock_gettime(MONOTONIC): vDSO %s per call; no comparison: %s",
			 a, reference_why("clock_gettime", cs->syscall_refused, why, sizeof(why)));
	} else if (v->mapped && v->usable) {
		doctor_evidence(f, "not measured: no vDSO clock_gettime here");
	} else {
		doctor_evidence(f, "not measured: no vDSO in this process");
	}
	doctor_evidence(f, "current clocksource: %s (/sys/devices/system/clocksource/clocksource0/"
		 "current_clocksource)%s", name, foreign);
	doctor_evidence(f, "available: %s", fact_text(&h->available_clocksources));
	if (arch_reads_none)
		doctor_evidence(f, "vdsokit_route_of(clock_gettime(MONOTONIC)): route syscall, %s: the "
			 "library's table of what the vDSO of %s reads, whatever the clocksource",
			 vdsokit_reason_text(VDSOKIT_REASON_CLOCK_IN_KERNEL), vdsokit_arch_name());
	else
		doctor_evidence(f, "%s %s", name, cs->capable == 1 ? "is a clocksource the vDSO can read" :
			 cs->capable == 0 ? "has no vDSO read: the vDSO hands every read to the kernel" :
			 "is not in vdsokit's list of clocksources: the measurement decides");
	if (env->cmdline_clocksource[0])
		doctor_evidence(f, "kernel command line: %s", env->cmdline_clocksource);
	if (arch_reads_none) {
		doctor_action(f, "none: switching the clocksource cannot help, the vDSO of %s reads none "
		       "of them in user space", vdsokit_arch_name());
		return;
	}
	if (!cs->fallback)
		return;

	/* The way out: another clocksource the kernel offers that the vDSO can read. */
	char better[128] = "";
	char list[256];
	snprintf(list, sizeof(list), "%s", h->available_clocksources.text);
	for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (clocksource_vdso_capable(tok) == 1 && strcmp(tok, name) != 0 && !better[0])
			snprintf(better, sizeof(better), "%s", tok);
	if (better[0])
		doctor_action(f, "switch to %s: echo %s > /sys/devices/system/clocksource/clocksource0/"
		       "current_clocksource (as root)%s%s%s", better, better,
		       env->cmdline_clocksource[0] ? ", and drop " : "",
		       env->cmdline_clocksource[0] ? env->cmdline_clocksource : "",
		       env->cmdline_clocksource[0] ? " from the kernel command line" : "");
	else if (strcmp(env->build_family, "x86") == 0)
		doctor_action(f, "no vDSO-capable clocksource is available: the TSC was rejected "
		       "(dmesg | grep -i tsc); in a VM enable kvm-clock or an invariant TSC%s%s",
		       env->cmdline_clocksource[0] ? "; the command line forces " : "",
		       env->cmdline_clocksource[0] ? env->cmdline_clocksource : "");
	else
		doctor_action(f, "no other clocksource is offered: the counter read of %s is slow from user "
		       "space (trapped or emulated, e.g. MIPS rdhwr before R2), so the syscall is "
		       "the cheaper path on this machine", name);
}

/* ---------------------------------------------------------------------- */
/* The vDSO's stack use                                                    */
/* ---------------------------------------------------------------------- */

/*
 * More than this below the stack pointer breaks callers on small stacks:
 * Go called the vDSO on goroutine stacks with 104 bytes to spare.
 */
#define VDSO_STACK_WARN_BYTES 1024

static void check_vdso_stack(struct doctor_report *r, const struct vdso_facts *v)
{
	if (!v->mapped || !v->usable)
		return;
	static struct vdso_stack_use use[VDSOKIT_FN_COUNT];
	size_t deepest = 0;
	int deepest_fn = -1;
	unsigned measured = 0, over = 0;
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		vdso_stack_measure((enum vdsokit_func)fn, &use[fn]);
		if (!use[fn].measured)
			continue;
		measured++;
		over += use[fn].deepest > VDSO_STACK_WARN_BYTES;
		if (deepest_fn < 0 || use[fn].deepest > deepest) {
			deepest = use[fn].deepest;
			deepest_fn = (int)fn;
		}
	}
	if (measured == 0)
		return;
	struct doctor_finding *f;
	if (over == 0) {
		f = doctor_finding_add(r, "vdso-stack", SEVERITY_OK,
				"the vDSO's entries touch at most %zu bytes below the stack pointer (%s)",
				deepest, cli_func_name((enum vdsokit_func)deepest_fn));
	} else {
		f = doctor_finding_add(r, "vdso-stack-deep", SEVERITY_WARNING,
				"the vDSO touches more than %d bytes below the stack pointer: %u "
				"function%s, up to %s%zu bytes (%s)", VDSO_STACK_WARN_BYTES, over,
				over == 1 ? "" : "s", use[deepest_fn].page_granular ? "about " : "",
				deepest, cli_func_name((enum vdsokit_func)deepest_fn));
		doctor_action(f, "callers on small stacks (goroutines, green threads, coroutines, signal "
		       "handlers on a sigaltstack) can overrun them: Go's runtime corrupted memory "
		       "on such kernels (golang/go#20427). The likely cause is stack probes: a "
		       "kernel built with -fstack-check or -fstack-clash-protection; build it with "
		       "-fstack-check=no as CoreOS did (coreos/coreos-overlay#1359), or call the "
		       "vDSO on a large stack");
	}
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		char clock[32];
		const struct vdso_stack_use *u = &use[fn];
		if (!u->measured || (over && u->deepest <= VDSO_STACK_WARN_BYTES))
			continue;
		doctor_evidence(f, "%s: %s%zu bytes%s%s%s (%zu written; painted stack, %s)",
			 cli_func_name((enum vdsokit_func)fn), u->page_granular ? "at most " : "",
			 u->deepest, u->deepest_clock >= 0 ? " with CLOCK_" : "",
			 u->deepest_clock >= 0 ? clock_id_name(clock, sizeof(clock), u->deepest_clock) :
			 "", u->through_library ? " through vdsokit_*_via(VDSO)" : "",
			 u->written, u->page_granular ?
			 "the deepest touch wrote nothing: a stack probe's mark" : "exact");
	}
}

/* ---------------------------------------------------------------------- */
/* Environment                                                             */
/* ---------------------------------------------------------------------- */

static bool machine_is_64bit(const char *machine)
{
	static const char *const names[] = { "x86_64", "aarch64", "ppc64", "s390x", "mips64",
					     "sparc64", "riscv64", "loongarch64", "parisc64" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(machine, names[i], strlen(names[i])) == 0)
			return true;
	return false;
}

static void check_environment(struct doctor_report *r, const struct host_facts *h,
			      const struct doctor_env *env)
{
	struct doctor_finding *f;
	(void)env;
	if (h->seccomp_mode.known && h->seccomp_mode.value == 2) {
		f = doctor_finding_add(r, "seccomp", SEVERITY_INFO,
				"seccomp filters are active: every syscall fallback runs them too");
		doctor_evidence(f, "/proc/self/status: Seccomp: 2, Seccomp_filters: %s",
			 fact_text(&h->seccomp_filters));
		doctor_action(f, "vDSO calls never enter the kernel and are not filtered; syscall routes "
		       "(CPU-time clocks, missing symbols) pay for the filters and may be denied");
	} else if (h->seccomp_mode.known && h->seccomp_mode.value == 1) {
		f = doctor_finding_add(r, "seccomp", SEVERITY_WARNING,
				"seccomp strict mode: any syscall but read, write, exit and sigreturn "
				"kills the process");
		doctor_evidence(f, "/proc/self/status: Seccomp: 1");
		doctor_action(f, "only vDSO routes are safe here; the syscall fallbacks are fatal");
	}

	bool other_ns = h->time_ns.known && h->init_time_ns.known &&
			strcmp(h->time_ns.text, h->init_time_ns.text) != 0;
	bool offsets = h->monotonic_offset_s.known &&
		       (h->monotonic_offset_s.value || h->boottime_offset_s.value);
	if (other_ns || offsets) {
		f = doctor_finding_add(r, "time-namespace", SEVERITY_INFO,
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

	if (sizeof(void *) == 4 && machine_is_64bit(h->machine)) {
		f = doctor_finding_add(r, "compat-32bit", SEVERITY_INFO,
				"32-bit userspace (%s) on a 64-bit kernel (%s)", vdsokit_arch_name(),
				h->machine);
		doctor_evidence(f, "uname -m: %s; this program: %s, %zu-bit pointers", h->machine,
			 vdsokit_arch_name(), sizeof(void *) * 8);
		doctor_action(f, "the kernel maps its compat vDSO; the library prefers its 64-bit-time "
		       "entries (clock_gettime64) so results stay right after 2038");
	}

	if (env->hypervisor[0] && !env->qemu_user) {
		f = doctor_finding_add(r, "virtual-machine", SEVERITY_INFO,
				"running in a virtual machine: %s", env->hypervisor);
		doctor_evidence(f, "clocksource %s; available: %s", fact_text(&h->clocksource),
			 fact_text(&h->available_clocksources));
		if (h->clocksource.known && clocksource_vdso_capable(h->clocksource.text) == 1)
			doctor_action(f, "none: %s is read in user space inside this VM too",
			       h->clocksource.text);
		else if (strcmp(env->build_family, "x86") == 0)
			doctor_action(f, "in a VM the vDSO is fast only with a paravirtual or stable TSC "
			       "clocksource (kvm-clock, tsc, hyperv_clocksource_tsc_page)");
		else
			doctor_action(f, "check that the VM gives the guest a clocksource its vDSO can read");
	}
}

/* ---------------------------------------------------------------------- */
/* Output                                                                  */
/* ---------------------------------------------------------------------- */

/* What could not be read, as a finding of its own: no silence about a masked /proc. */
static bool check_unreadable(struct doctor_report *r, const struct host_facts *h)
{
	const struct host_fact *facts[] = {
		&h->clocksource, &h->maps, &h->seccomp_mode, &h->time_ns, &h->monotonic_offset_s,
	};
	static const char *const names[] = {
		"clocksource", "vDSO mappings", "seccomp mode", "time namespace",
		"time namespace offsets",
	};
	struct doctor_finding *f = NULL;
	for (unsigned i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (facts[i]->known)
			continue;
		if (!f)
			f = doctor_finding_add(r, "unreadable", SEVERITY_WARNING,
					"facts about this process could not be read: their checks "
					"were not made");
		doctor_evidence(f, "%s unknown: %s", names[i], fact_reason(facts[i]));
	}
	if (f)
		doctor_action(f, "run where /proc and /sys are mounted (a container that masks them hides "
		       "the seccomp, namespace and clocksource findings)");
	return f != NULL;
}

static void print_text(const struct doctor_report *r, const struct host_facts *h, bool unreadable)
{
	printf("vdsokit doctor: Linux %s, library %s, clocksource %s%s%s\n\n", host_kernel_text(h),
	       vdsokit_arch_name(), fact_text(&h->clocksource),
	       cli_image_path() ? ", image " : "", cli_image_path() ? cli_image_path() : "");
	for (unsigned i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];
		static const char *const tags[] = { "ok  ", "info", "warn", "SLOW" };
		printf("  %s  %s\n", tags[f->severity], f->title);
		if (f->severity == SEVERITY_OK && i + 1 < r->count) {
			/* Healthy facts: one line of evidence is enough. */
			if (f->evidence_count)
				printf("        %s\n", f->evidence[0]);
			continue;
		}
		for (unsigned e = 0; e < f->evidence_count; e++)
			printf("        evidence: %s\n", f->evidence[e]);
		if (f->action[0])
			printf("        action:   %s\n", f->action);
	}
	unsigned slow = doctor_slow_count(r);
	if (slow == 0 && unreadable) {
		printf("\nVerdict: no call found off its fast path, but what could not be read "
		       "was not checked:\n");
		host_print_unknowns(stdout, h, "  ");
	} else if (slow == 0) {
		printf("\nVerdict: every call is on its fast path.\n");
	} else {
		printf("\nVerdict: not on the fast path (");
		for (unsigned i = 0, n = 0; i < r->count; i++)
			if (r->findings[i].severity == SEVERITY_SLOW)
				printf("%s%s", n++ ? ", " : "", r->findings[i].id);
		printf(").\n");
	}
}

static void json_path_list(struct json_writer *w)
{
	json_key(w, "functions");
	json_array_begin(w);
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		bool clocked = fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
		for (long clock = 0; clock < (clocked ? 12 : 1); clock++) {
			struct vdsokit_route_info p;
			char name[32];
			if (vdsokit_route_of((enum vdsokit_func)fn, (clockid_t)clock, &p) != 0)
				continue;
			json_object_begin(w);
			json_kv_string(w, "function", cli_func_name((enum vdsokit_func)fn));
			if (clocked)
				json_kv_string(w, "clock", clock_id_name(name, sizeof(name), clock));
			json_kv_string(w, "route", vdsokit_route_name(p.route));
			json_kv_string(w, "reason", vdsokit_reason_text(p.reason));
			json_kv_string(w, "symbol", p.symbol);
			json_kv_string(w, "version", p.version);
			json_kv_string(w, "syscall", p.syscall);
			json_object_end(w);
		}
	}
	json_array_end(w);
}

static void print_json(const struct doctor_report *r, const struct host_facts *h,
		       const struct doctor_env *env, const struct vdso_facts *v,
		       const struct clocksource_facts *cs, int init_result, bool unreadable)
{
	struct json_writer w;
	json_document_begin(&w, stdout, "doctor");
	json_host(&w, h, init_result);
	json_kv_string(&w, "image", cli_image_path());

	json_key(&w, "vdso");
	json_object_begin(&w);
	json_kv_bool(&w, "mapped", v->mapped);
	json_kv_bool(&w, "usable", v->usable);
	json_kv_hex(&w, "address", v->address);
	json_key(&w, "size");
	if (v->size)
		json_uint(&w, v->size);
	else
		json_null(&w);
	json_kv_string(&w, "missing_reason", v->reason_id);
	json_kv_string(&w, "image_file", doctor_image_file);
	json_object_end(&w);

	json_key(&w, "clocksource");
	json_object_begin(&w);
	json_kv_fact(&w, "current", &h->clocksource);
	json_kv_fact(&w, "available", &h->available_clocksources);
	json_kv_string(&w, "vdso_capable", cs->capable == 1 ? "yes" : cs->capable == 0 ? "no" :
		       "unknown");
	json_kv_bool(&w, "measured", cs->measured);
	json_kv_double(&w, "vdso_ns", cs->measured ? cs->vdso_ns : NAN);
	json_kv_double(&w, "syscall_ns", cs->measured ? cs->syscall_ns : NAN);
	json_kv_double(&w, "syscall_over_vdso", cs->measured ? cs->ratio : NAN);
	json_kv_bool(&w, "fallback", cs->fallback);
	json_object_end(&w);

	json_key(&w, "environment");
	json_object_begin(&w);
	json_kv_string(&w, "emulator", env->qemu_user ? "qemu-user" : env->valgrind ? "valgrind" :
		       env->rr ? "rr" : NULL);
	json_kv_string(&w, "cmdline", env->cmdline_readable ? env->cmdline : NULL);
	json_kv_string(&w, "cmdline_vdso", env->cmdline_vdso[0] ? env->cmdline_vdso : NULL);
	json_kv_string(&w, "cmdline_clocksource",
		       env->cmdline_clocksource[0] ? env->cmdline_clocksource : NULL);
	json_kv_string(&w, "cpuinfo_family", env->cpuinfo_family[0] ? env->cpuinfo_family : NULL);
	json_kv_fact(&w, "process_name", &h->process_name);
	json_kv_fact_int(&w, "seccomp_mode", &h->seccomp_mode);
	json_kv_fact_int(&w, "seccomp_filters", &h->seccomp_filters);
	json_kv_fact(&w, "time_namespace", &h->time_ns);
	json_kv_fact(&w, "init_time_namespace", &h->init_time_ns);
	json_kv_fact_int(&w, "monotonic_offset_s", &h->monotonic_offset_s);
	json_kv_fact_int(&w, "boottime_offset_s", &h->boottime_offset_s);
	json_kv_string(&w, "hypervisor", env->hypervisor[0] ? env->hypervisor : NULL);
	json_object_end(&w);

	json_path_list(&w);

	json_key(&w, "findings");
	json_array_begin(&w);
	for (unsigned i = 0; i < r->count; i++) {
		const struct doctor_finding *f = &r->findings[i];
		json_object_begin(&w);
		json_kv_string(&w, "id", f->id);
		json_kv_string(&w, "severity", doctor_severity_name(f->severity));
		json_kv_string(&w, "title", f->title);
		json_key(&w, "evidence");
		json_array_begin(&w);
		for (unsigned e = 0; e < f->evidence_count; e++)
			json_string(&w, f->evidence[e]);
		json_array_end(&w);
		json_kv_string(&w, "action", f->action[0] ? f->action : NULL);
		json_object_end(&w);
	}
	json_array_end(&w);

	json_key(&w, "verdict");
	json_object_begin(&w);
	/* Unknown, not true, when facts it needs could not be read. */
	json_key(&w, "fast");
	if (doctor_slow_count(r) == 0 && unreadable)
		json_null(&w);
	else
		json_bool(&w, doctor_slow_count(r) == 0);
	json_key(&w, "slow");
	json_array_begin(&w);
	for (unsigned i = 0; i < r->count; i++)
		if (r->findings[i].severity == SEVERITY_SLOW)
			json_string(&w, r->findings[i].id);
	json_array_end(&w);
	json_object_end(&w);
	json_document_end(&w);
}

/* Every check, in the order the text shows them; the facts each drew on stay in env, v, cs. */
static void examine(struct doctor_report *r, const struct host_facts *host, int init_result,
		    double measure_s, struct doctor_env *env, struct vdso_facts *v,
		    struct clocksource_facts *cs)
{
	memset(r, 0, sizeof(*r));
	doctor_env_read(env, host);
	check_vdso(r, host, env, init_result, v);
	check_tools(r, env, host);
	check_clocksource(r, host, env, v, cs, measure_s);
	check_functions(r, v);
	check_cputime(r);
	check_vdso_stack(r, v);
	check_failing_calls(r, host);
	check_environment(r, host, env);
	doctor_check_time32(r);
	doctor_check_libc_clock(r);
	r->unreadable = check_unreadable(r, host);
}

void doctor_examine(struct doctor_report *r, const struct host_facts *host, int init_result,
		    double measure_s)
{
	static struct doctor_env env;
	struct vdso_facts v;
	struct clocksource_facts cs;
	examine(r, host, init_result, measure_s, &env, &v, &cs);
}

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s doctor [--json] [--image FILE]\n"
		"\n"
		"Explains why a call is not on its fast path, with the evidence and a\n"
		"suggested action: no vDSO mapped (vdso=0, qemu-user, valgrind, rr), a\n"
		"function this kernel's vDSO lacks, a clocksource the vDSO cannot read\n"
		"(measured: a vDSO clock_gettime within %.0fx of the syscall's cost is the\n"
		"syscall), CPU-time clocks, seccomp, time namespaces, 32-bit userspace on a\n"
		"64-bit kernel, virtual machines.\n"
		"\n"
		"Options:\n"
		"  --json        machine-readable output (schema vdsokit-doctor)\n"
		"  --image FILE  test aid: examine this vDSO image file instead of the\n"
		"                process's vDSO (e.g. its stack use: vdso-stack-deep);\n"
		"                refused (exit 2) as by verify --image\n"
		"  -h, --help    this help\n"
		"\n"
		"Exit status: 0 every call is on its fast path, 1 otherwise, 2 usage error.\n",
		CLI_PROGRAM, FALLBACK_RATIO);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "image", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *image_file = NULL;
	int c;
	while ((c = cli_getopt(argc, argv, "h", options)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'i':
			image_file = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return CLI_EXIT_OK;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
	if (image_file && use_image_file(argv[0], image_file) != 0)
		return CLI_EXIT_USAGE;
	doctor_image_file = image_file;

	struct host_facts host;
	static struct doctor_env env;
	static struct doctor_report report;
	struct vdso_facts vdso;
	struct clocksource_facts clocksource;
	host_facts_read(&host);
	int init_result = vdsokit_init();
	examine(&report, &host, init_result, DOCTOR_MEASURE_S, &env, &vdso, &clocksource);
	if (json)
		print_json(&report, &host, &env, &vdso, &clocksource, init_result, report.unreadable);
	else
		print_text(&report, &host, report.unreadable);
	return doctor_slow_count(&report) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
