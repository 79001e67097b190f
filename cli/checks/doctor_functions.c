/* SPDX-License-Identifier: MIT */
/*
 * doctor: the library's route for every function and clock
 * (vdsokit_route_of), read once into the report for the JSON's
 * functions[] and for the findings here: the calls that run in user
 * space, and one finding for each group of calls that do not, sorted by
 * the library's reason.
 */
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "checks/doctor.h"
#include "output/output.h"
#include "images/images.h"

static bool takes_clock(enum vdsokit_func fn)
{
	return fn == VDSOKIT_FN_CLOCK_GETTIME || fn == VDSOKIT_FN_CLOCK_GETRES;
}

void doctor_read_routes(struct doctor_report *r)
{
	r->route_count = 0;
	for (unsigned fn = 0; fn < VDSOKIT_FN_COUNT; fn++) {
		bool clocked = takes_clock((enum vdsokit_func)fn);
		for (long clock = 0; clock < (clocked ? 12 : 1); clock++) {
			struct doctor_route *route = &r->routes[r->route_count];
			if (vdsokit_route_of((enum vdsokit_func)fn, (clockid_t)clock, &route->info) != 0)
				continue;
			route->fn = (enum vdsokit_func)fn;
			route->clock = clocked ? clock : -1;
			r->route_count++;
		}
	}
}

/* The route of fn (with clock), or NULL when the library gave none. */
static const struct vdsokit_route_info *route_of(const struct doctor_report *r,
						 enum vdsokit_func fn, long clock)
{
	for (unsigned i = 0; i < r->route_count; i++)
		if (r->routes[i].fn == fn && r->routes[i].clock == clock)
			return &r->routes[i].info;
	return NULL;
}

/* The clocks the vDSO serves in user space on most architectures: those the findings sort. */
static bool fast_clock(long clock)
{
	return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC || clock == CLOCK_MONOTONIC_RAW ||
	       clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE ||
	       clock == CLOCK_BOOTTIME || clock == CLOCK_TAI;
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
	/* The clock the entry reads: gettimeofday's is REALTIME; the others read none. */
	long c = fn == VDSOKIT_FN_GETTIMEOFDAY ? CLOCK_REALTIME : -1;
	doctor_append(buf, size, "%s%s: %s%s%s ", buf[0] ? "; " : "", cli_func_name(fn), entry->name,
		      entry->version ? "@" : "", entry->version ? entry->version : "");
	/* The most telling first: the clock it reads has no user-space read here. */
	if (c >= 0 && vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, (clockid_t)c, &read) == 0 &&
	    read.reason == VDSOKIT_REASON_CLOCK_IN_KERNEL) {
		doctor_append(buf, size, "is exported, but it reads CLOCK_%s, and "
			      "vdsokit_route_of(%s(%s)) says: %s; so the entry would only make the "
			      "syscall, and the library makes %s directly",
			      clock_id_name(clock, sizeof(clock), c),
			      cli_func_name(VDSOKIT_FN_CLOCK_GETTIME), clock,
			      cli_reason_text(read.reason), p->syscall ? p->syscall : "it");
		return true;
	}
	if (p->reason == VDSOKIT_REASON_ENTRY_IS_SYSCALL) {
		doctor_append(buf, size, "is exported, but %s (%s)", cli_reason_text(p->reason),
			      p->syscall ? p->syscall : "the syscall");
		return true;
	}
	doctor_append(buf, size, "is exported, but the library does not call it on %s and makes %s "
		      "(vdsokit_route_of: route %s)", vdsokit_arch_name(),
		      p->syscall ? p->syscall : "the syscall", vdsokit_route_name(p->route));
	return false;
}

/* The calls, sorted by what their route says: comma- or semicolon-separated lists. */
struct route_groups {
	char fast[1024], user_space[512], absent[512], not_on_arch[512], kernel_clocks[512],
	     time32[512], untrusted[512], other[512], passed_by[1024], passed_by_names[256],
	     unavailable[256], vdso_kernel[256], no_state_memory[128];
	unsigned fast_count;
	bool absent_clock;                    /* a time function among absent: its calls are slow */
	bool passed_by_explained;
	struct vdsokit_route_info cpu_only;   /* getcpu's, when it reads cpu_id only */
};

/* Adds item to list, after sep unless it is the first. */
#define ADD(list, sep, ...) do { \
		doctor_append(list, sizeof(list), "%s", (list)[0] ? sep : ""); \
		doctor_append(list, sizeof(list), __VA_ARGS__); \
	} while (0)

/*
 * A route that is no vDSO or syscall route; true when sorted.  A register
 * or the rseq area is one load, faster than any vDSO call, whatever the
 * vDSO's state (its reasons are no fallback).
 */
static bool sort_by_route(struct route_groups *g, const struct vdsokit_route_info *p,
			  const char *label)
{
	switch (p->route) {
	case VDSOKIT_ROUTE_RSEQ:
		if (p->reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY)
			g->cpu_only = *p;
		/* fall through */
	case VDSOKIT_ROUTE_REGISTER:
		g->fast_count++;
		ADD(g->user_space, ", ", "%s", label);
		ADD(g->fast, "; ", "%s -> %s", label,
		    p->route == VDSOKIT_ROUTE_RSEQ ? "the rseq area" : "a CPU register");
		return true;
	case VDSOKIT_ROUTE_VDSO_KERNEL:
		/* A vDSO entry, but it enters the kernel: no user-space path. */
		ADD(g->vdso_kernel, "; ", "%s -> %s", label, p->symbol ? p->symbol : "?");
		return true;
	case VDSOKIT_ROUTE_NONE:
		/* Neither a vDSO entry nor a syscall: nothing to fall back to. */
		ADD(g->unavailable, ", ", "%s", label);
		return true;
	case VDSOKIT_ROUTE_AUTO: /* never an answer of vdsokit_route_of */
	case VDSOKIT_ROUTE_VDSO:
	case VDSOKIT_ROUTE_SYSCALL:
		break;
	}
	return false;
}

/* A vDSO entry the library does not use: passed by if the image has it, else why not. */
static void sort_unused_entry(struct route_groups *g, const struct doctor_route *route,
			      const char *label)
{
	const struct vdsokit_route_info *p = &route->info;
	struct vdsokit_symbol entry;
	if (image_entry(route->fn, &entry)) {
		/* The kernel has the entry: say why it goes unused. */
		g->passed_by_explained &= entry_passed_by(g->passed_by, sizeof(g->passed_by),
							  route->fn, p, &entry);
		ADD(g->passed_by_names, ", ", "%s (%s)", label, entry.name);
	} else if (p->reason == VDSOKIT_REASON_NOT_ON_ARCH) {
		ADD(g->not_on_arch, ", ", "%s", label);
	} else {
		ADD(g->other, "; ", "%s (%s)", label, cli_reason_text(p->reason));
	}
}

/* A vDSO or syscall route, by the library's reason. */
static void sort_by_reason(struct route_groups *g, const struct doctor_route *route,
			   const char *label)
{
	const struct vdsokit_route_info *p = &route->info;
	bool clocked = route->clock >= 0;
	switch (p->reason) {
	case VDSOKIT_REASON_OK:
		g->fast_count++;
		if (route->fn != VDSOKIT_FN_CLOCK_GETRES) /* getres reads no clock */
			ADD(g->user_space, ", ", "%s", label);
		/* One line a function: a clocked one by its MONOTONIC entry. */
		if (p->route == VDSOKIT_ROUTE_VDSO && (!clocked || route->clock == CLOCK_MONOTONIC))
			ADD(g->fast, "; ", "%s -> %s%s%s",
			    clocked ? cli_func_name(route->fn) : label, p->symbol ? p->symbol : "?",
			    p->version ? "@" : "", p->version ? p->version : "");
		break;
	case VDSOKIT_REASON_SYMBOL_ABSENT:
		ADD(g->absent, ", ", "%s", label);
		/* getcpu and getrandom came late to the vDSO; time always was there. */
		if (route->fn != VDSOKIT_FN_GETCPU && route->fn != VDSOKIT_FN_GETRANDOM)
			g->absent_clock = true;
		break;
	case VDSOKIT_REASON_NOT_ON_ARCH:
	case VDSOKIT_REASON_ENTRY_IS_SYSCALL:
		sort_unused_entry(g, route, label);
		break;
	case VDSOKIT_REASON_CLOCK_IN_KERNEL:
		ADD(g->kernel_clocks, ", ", "%s", label);
		break;
	case VDSOKIT_REASON_TIME32:
		g->fast_count++;
		ADD(g->time32, ", ", "%s", label);
		break;
	case VDSOKIT_REASON_UNTRUSTED:
		ADD(g->untrusted, ", ", "%s", label);
		break;
	case VDSOKIT_REASON_NO_STATE_MEMORY:
		ADD(g->no_state_memory, ", ", "%s", label);
		break;
	case VDSOKIT_REASON_NO_VDSO:
	case VDSOKIT_REASON_BAD_IMAGE:
		break; /* said once by the vDSO's own check */
	default:
		/* A reason newer than this file: say it as the library does. */
		ADD(g->other, "; ", "%s (%s)", label, cli_reason_text(p->reason));
		break;
	}
}

/* Every function, and the clocks the vDSO commonly serves, into their groups. */
static void sort_routes(const struct doctor_report *r, struct route_groups *g)
{
	memset(g, 0, sizeof(*g));
	g->passed_by_explained = true;
	g->cpu_only.route = VDSOKIT_ROUTE_NONE;
	for (unsigned i = 0; i < r->route_count; i++) {
		const struct doctor_route *route = &r->routes[i];
		char label[64];
		if (route->clock >= 0 && !fast_clock(route->clock))
			continue;
		doctor_call_label(route->fn, route->clock, label, sizeof(label));
		if (!sort_by_route(g, &route->info, label))
			sort_by_reason(g, route, label);
	}
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

static void passed_by_finding(struct doctor_report *r, const struct route_groups *g)
{
	if (!g->passed_by[0])
		return;
	struct doctor_finding *f = doctor_finding_add(r, "entry-is-syscall", SEVERITY_INFO,
		"vDSO entries the library passes by, making the syscall itself: %s",
		g->passed_by_names);
	doctor_evidence(f, "%s", g->passed_by);
	doctor_action(f, "%s", g->passed_by_explained ?
		      "none: these entries would make the same syscall after a detour through "
		      "the vDSO; the library makes it directly" :
		      "none needed: the library's syscall is correct; `vdsokit bench` shows whether "
		      "the entry would be faster");
}

static void kernel_clocks_finding(struct doctor_report *r, const struct route_groups *g)
{
	if (!g->kernel_clocks[0])
		return;
	struct doctor_finding *f = doctor_finding_add(r, "kernel-clocks", SEVERITY_INFO,
		"the vDSO of this architecture has no user-space read for: %s", g->kernel_clocks);
	doctor_evidence(f, "vdsokit_route_of: %s",
			cli_reason_text(VDSOKIT_REASON_CLOCK_IN_KERNEL));
	if (doctor_monotonic_in_kernel())
		doctor_action(f, "none: the vDSO of %s has no user-space read for MONOTONIC "
			      "whatever the clocksource, so it would make these syscalls itself and "
			      "MONOTONIC gains nothing: the library makes them directly; in user "
			      "space run: %s", vdsokit_arch_name(),
			      g->user_space[0] ? g->user_space : "nothing");
	else
		doctor_action(f, "none: the library makes the syscall directly, saving the vDSO's "
			      "detour");
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
static void rseq_cpu_only_finding(struct doctor_report *r, const struct route_groups *g)
{
	const struct vdsokit_route_info *p = &g->cpu_only;
	if (p->route != VDSOKIT_ROUTE_RSEQ)
		return;
	unsigned long kernel_fills = getauxval(AT_RSEQ_FEATURE_SIZE);
	char node_path[128];
	if (p->symbol)
		snprintf(node_path, sizeof(node_path), "the vDSO's %s%s%s", p->symbol,
			 p->version ? "@" : "", p->version ? p->version : "");
	else
		snprintf(node_path, sizeof(node_path), "the %s syscall",
			 p->syscall ? p->syscall : "getcpu");
	struct doctor_finding *f = doctor_finding_add(r, "rseq-cpu-only", SEVERITY_INFO,
		"getcpu reads the CPU from the rseq area; a call that asks for the node takes %s",
		node_path);
	doctor_evidence(f, "vdsokit_route_of(getcpu): route %s, %s", vdsokit_route_name(p->route),
			cli_reason_text(p->reason));
	if (kernel_fills < RSEQ_NODE_ID_END)
		doctor_evidence(f, "getauxval(AT_RSEQ_FEATURE_SIZE) = %lu: this kernel keeps no "
				"node_id in the rseq area (Linux 6.3 and later do)", kernel_fills);
	else
		doctor_evidence(f, "getauxval(AT_RSEQ_FEATURE_SIZE) = %lu: this kernel fills node_id, "
				"but the libc registered %u bytes of the area (__rseq_size), which "
				"end before it", kernel_fills, &__rseq_size ? __rseq_size : 0);
	doctor_action(f, "none: getcpu without the node (node NULL) is one load%s", p->symbol ?
		      ", and with it still runs in user space" :
		      "; where the node is asked for often, a kernel and libc that share node_id "
		      "in the rseq area make that one load too");
}

void doctor_check_functions(struct doctor_report *r)
{
	static struct route_groups g;
	char title[96];
	if (!r->vdso.mapped || !r->vdso.usable)
		return;   /* no vDSO: the vDSO's own check said so, once */
	sort_routes(r, &g);
	struct doctor_finding *f = doctor_finding_add(r, "functions", SEVERITY_OK,
		"%u function/clock routes run in user space", g.fast_count);
	doctor_evidence(f, "%s", g.fast);
	/*
	 * A missing time function sends its calls to the syscall: not the fast
	 * path.  With --image it is the file that lacks them, not the kernel.
	 */
	const char *lacks = r->image_file ? "the image lacks" : "this kernel's vDSO lacks";
	const char *absent_todo = r->image_file ?
		"none for this system: the library makes the syscall for these calls with "
		"this image; run without --image for this kernel's vDSO" :
		g.absent_clock ? "these calls take the syscall: a kernel whose vDSO exports "
		"them (every current one) serves them in user space" :
		"a newer kernel has them (getrandom: Linux 6.11 on x86_64, 6.12 on arm64, "
		"powerpc, s390); until then the library makes the syscall";
	if (g.absent_clock)
		group_finding(r, g.absent, "symbol-absent", SEVERITY_SLOW, lacks,
			      cli_reason_text(VDSOKIT_REASON_SYMBOL_ABSENT), absent_todo);
	else
		group_finding(r, g.absent, "symbol-absent", SEVERITY_INFO, lacks,
			      cli_reason_text(VDSOKIT_REASON_SYMBOL_ABSENT), absent_todo);
	passed_by_finding(r, &g);
	snprintf(title, sizeof(title), "no vDSO entry on %s for", vdsokit_arch_name());
	group_finding(r, g.not_on_arch, "not-on-arch", SEVERITY_INFO, title,
		      cli_reason_text(VDSOKIT_REASON_NOT_ON_ARCH),
		      "none: the syscall is the only route for these on this architecture");
	kernel_clocks_finding(r, &g);
	group_finding(r, g.time32, "time32", SEVERITY_INFO, "only 32-bit-time vDSO entries for",
		      cli_reason_text(VDSOKIT_REASON_TIME32),
		      "fine until 2038; the library checks each result and takes the 64-bit "
		      "syscall once the seconds overflow");
	group_finding(r, g.untrusted, "untrusted", SEVERITY_SLOW, "vDSO entries present but not used",
		      cli_reason_text(VDSOKIT_REASON_UNTRUSTED),
		      "a kernel from 5.8 on exports both entries and fixes the 64-bit one");
	rseq_cpu_only_finding(r, &g);
	group_finding(r, g.vdso_kernel, "vdso-kernel", SEVERITY_INFO,
		      "vDSO entries that enter the kernel", "route vdso-kernel",
		      "none: the entry is this kernel's way to serve the call; it costs about "
		      "a syscall");
	snprintf(title, sizeof(title), "not available on %s at all (no vDSO entry, no syscall)",
		 vdsokit_arch_name());
	group_finding(r, g.unavailable, "unavailable", SEVERITY_INFO, title, "route none",
		      "none: nothing on this architecture serves these calls");
	group_finding(r, g.no_state_memory, "no-state-memory", SEVERITY_SLOW,
		      "the vDSO serves these, but without its state they take the syscall",
		      cli_reason_text(VDSOKIT_REASON_NO_STATE_MEMORY),
		      "a seccomp filter or sandbox refuses mmap, which libvdsokit needs for "
		      "getrandom's states: allow it in its policy");
	group_finding(r, g.other, "fallback", SEVERITY_WARNING, "calls that fall back to the syscall",
		      "the reason given with each call", "see the reason given for each");
}

/* CPU-time clocks: the kernel keeps the counters, so every architecture goes there. */
void doctor_check_cputime(struct doctor_report *r)
{
	static const long clocks[] = { CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };
	struct doctor_finding *f = doctor_finding_add(r, "cputime-syscall", SEVERITY_INFO,
		"CPU-time clocks always take a syscall");
	for (unsigned i = 0; i < 2; i++) {
		const struct vdsokit_route_info *p = route_of(r, VDSOKIT_FN_CLOCK_GETTIME, clocks[i]);
		char name[32];
		if (!p)
			continue;
		doctor_evidence(f, "clock_gettime(%s): route %s, %s%s%s",
				clock_id_name(name, sizeof(name), clocks[i]),
				vdsokit_route_name(p->route), cli_reason_text(p->reason),
				p->syscall ? ", syscall " : "", p->syscall ? p->syscall : "");
	}
	doctor_action(f, "expected: only the kernel knows a task's CPU time; to time code cheaply, "
		      "take CLOCK_MONOTONIC differences");
}
