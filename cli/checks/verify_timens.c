/* SPDX-License-Identifier: MIT */
/*
 * verify: the clock checks again inside a new time namespace with offsets.
 *
 * In a time namespace the vDSO reads the namespace's own data page and
 * adds the offsets itself; a vDSO that misses the page (or a libc caching
 * readings across the switch) returns host time and disagrees with the
 * syscall.  Linux's rules shape the dance:
 *   - unshare(CLONE_NEWTIME) moves the caller's *children* only, and the
 *     offsets (/proc/self/timens_offsets) can be written only before the
 *     first process enters, so: a helper unshares and writes the offsets,
 *     then forks the child that runs the checks;
 *   - it needs CAP_SYS_ADMIN; without it a new user namespace may grant
 *     it, where unprivileged user namespaces are allowed.
 * The helper keeps the namespace away from this process, whose later
 * children must stay on host time.  Results come back in shared memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "host/child.h"
#include "checks/reference.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define NSEC_PER_SEC 1000000000LL
/* Distinctive offsets: 10 and 20 days, plus odd nanoseconds. */
#define MONOTONIC_OFFSET_SEC 864000LL
#define MONOTONIC_OFFSET_NSEC 123456789LL
#define BOOTTIME_OFFSET_SEC 1728000LL
#define BOOTTIME_OFFSET_NSEC 987654321LL
#define MAX_RESULTS 96

/* The clocks a namespace shifts, and by which offset. */
static const struct {
	long clock;
	bool boottime;
} shifted_clocks[] = {
	{ CLOCK_MONOTONIC, false }, { CLOCK_MONOTONIC_RAW, false },
	{ CLOCK_MONOTONIC_COARSE, false }, { CLOCK_BOOTTIME, true },
};
#define SHIFTED_COUNT (sizeof(shifted_clocks) / sizeof(shifted_clocks[0]))

/* Readings in the namespace, in call order. */
struct shifted_reading {
	int rc_sys, rc_raw, rc_lib;
	int64_t sys_before, raw, lib, sys_after;
};

struct timens_shared {
	bool unshared;              /* the helper created the namespace   */
	bool via_user_namespace;    /* …inside a new user namespace       */
	char skip_reason[200];      /* why not, when !unshared            */
	bool child_ran;
	int child_status;           /* wait status of the child           */
	char host_ns[64], child_ns[64];
	int host_ns_error, child_ns_error; /* readlink's errno: the names are unknown */
	struct shifted_reading readings[SHIFTED_COUNT];
	unsigned result_count, dropped;
	struct check_result results[MAX_RESULTS];
};

/* 0, or the errno that kept the name from being read (a sandbox refusing readlink). */
static int read_ns_link(const char *path, char *buf, size_t size)
{
	ssize_t n = readlink(path, buf, size - 1);
	int e = n < 0 ? errno : n == 0 ? EIO : 0;
	buf[n > 0 ? n : 0] = 0;
	return e;
}

static int write_offsets(void)
{
	char text[128];
	int n = snprintf(text, sizeof(text), "%d %lld %lld\n%d %lld %lld\n",
			 CLOCK_MONOTONIC, MONOTONIC_OFFSET_SEC, MONOTONIC_OFFSET_NSEC,
			 CLOCK_BOOTTIME, BOOTTIME_OFFSET_SEC, BOOTTIME_OFFSET_NSEC);
	int fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t w = write(fd, text, (size_t)n);
	int e = w == n ? 0 : w < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

/* Runs in the child, inside the namespace. */
static void namespace_child(struct timens_shared *sh, double seconds)
{
	sh->child_ran = true;
	sh->child_ns_error = read_ns_link("/proc/self/ns/time", sh->child_ns, sizeof(sh->child_ns));
	for (unsigned i = 0; i < SHIFTED_COUNT; i++) {
		struct shifted_reading *r = &sh->readings[i];
		clockid_t id = (clockid_t)shifted_clocks[i].clock;
		struct vdsokit_timespec a, b, c, d;
		memset(&b, 0, sizeof(b));
		r->rc_sys = reference_clock_gettime(id, &a);
		r->rc_raw = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, id, &b);
		r->rc_lib = vdsokit_clock_gettime(id, &c);
		r->rc_sys |= reference_clock_gettime(id, &d);
		r->sys_before = timespec_ns(&a);
		r->raw = timespec_ns(&b);
		r->lib = timespec_ns(&c);
		r->sys_after = timespec_ns(&d);
	}
	struct check_list list = { sh->results, 0, MAX_RESULTS, 0 };
	verify_clock_gettime(&list, "timens", seconds * 0.6);
	verify_clock_getres(&list, "timens");
	verify_gettimeofday_and_time(&list, "timens", seconds * 0.4);
	sh->result_count = list.count;
	sh->dropped = list.dropped;
}

/* Whether CAP_SYS_ADMIN (bit 21) is in this process's effective set (/proc/self/status). */
static bool has_sys_admin(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[128];
	bool admin = false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "CapEff:", 7) == 0)
			admin = (strtoull(line + 7, NULL, 16) >> 21) & 1;
	fclose(f);
	return admin;
}

/* Whether this kernel lets a process without privilege create a user namespace (its sysctls). */
static bool user_namespaces_allowed(void)
{
	long max = 0, debian_switch = 1;
	FILE *f = fopen("/proc/sys/user/max_user_namespaces", "re");
	if (!f || fscanf(f, "%ld", &max) != 1)
		max = 0;
	if (f)
		fclose(f);
	/* Debian's and Ubuntu's own switch, where the kernel has it. */
	f = fopen("/proc/sys/kernel/unprivileged_userns_clone", "re");
	if (f) {
		if (fscanf(f, "%ld", &debian_switch) != 1)
			debian_switch = 0;
		fclose(f);
	}
	return max > 0 && debian_switch == 1;
}

/* Runs in the helper: create the namespace, set the offsets, start the child. */
static void namespace_helper(struct timens_shared *sh, double seconds)
{
	if (unshare(CLONE_NEWTIME) != 0) {
		int first = errno;
		if (first == EPERM && unshare(CLONE_NEWUSER | CLONE_NEWTIME) == 0) {
			sh->via_user_namespace = true;
		} else if (first == EPERM && errno == EPERM && user_namespaces_allowed()) {
			/* The kernel grants them to anyone here: something refuses the call. */
			snprintf(sh->skip_reason, sizeof(sh->skip_reason), "%s",
				 "unshare is refused (EPERM), also for a new user namespace, which this "
				 "kernel grants without privilege: a seccomp filter or a security module "
				 "refuses it");
			return;
		} else {
			/* With CAP_SYS_ADMIN, EPERM is a refusal (seccomp, an LSM), not a lack. */
			bool admin = has_sys_admin();
			snprintf(sh->skip_reason, sizeof(sh->skip_reason), "%s",
				 first == EINVAL ? "this kernel has no time namespaces "
						   "(CONFIG_TIME_NS, Linux 5.6+)" :
				 first == EPERM && admin ?
				 "unshare(CLONE_NEWTIME) is refused (EPERM) although this process has "
				 "CAP_SYS_ADMIN: a seccomp filter or a security module refuses it" :
				 first == EPERM ? "creating a time namespace needs CAP_SYS_ADMIN, "
						  "and no user namespace could grant it" :
				 first == ENOSYS ? "the unshare syscall is refused here (ENOSYS, e.g. "
						   "by a seccomp filter)" :
				 strerror(first));
			return;
		}
	}
	int e = write_offsets();
	if (e) {
		snprintf(sh->skip_reason, sizeof(sh->skip_reason),
			 "cannot set the offsets in /proc/self/timens_offsets: %s", strerror(-e));
		return;
	}
	sh->unshared = true;
	pid_t child = child_start();
	if (child < 0) {
		snprintf(sh->skip_reason, sizeof(sh->skip_reason),
			 "cannot fork into the namespace: %s", child_start_why());
		sh->unshared = false;
		return;
	}
	if (child == 0) {
		namespace_child(sh, seconds);
		_exit(0);
	}
	int status = 0;
	child_wait(child, &status);
	sh->child_status = status;
}

/*
 * The new namespace's offsets count from the initial namespace, not from
 * ours: run inside a namespace that has offsets of its own (unshare -T
 * --monotonic N), ours are taken out of the expected shift.
 */
static void check_offsets(struct check_list *out, const struct timens_shared *sh,
			  const int64_t *host_before, const int64_t *host_after,
			  const struct timens_offsets *ours)
{
	for (unsigned i = 0; i < SHIFTED_COUNT; i++) {
		char name[32];
		const struct shifted_reading *r = &sh->readings[i];
		int64_t offset = shifted_clocks[i].boottime ?
			BOOTTIME_OFFSET_SEC * NSEC_PER_SEC + BOOTTIME_OFFSET_NSEC - ours->boottime_ns :
			MONOTONIC_OFFSET_SEC * NSEC_PER_SEC + MONOTONIC_OFFSET_NSEC - ours->monotonic_ns;
		int64_t low = host_before[i] + offset, high = host_after[i] + offset;
		struct check_result *c = check_add(out, "timens", "offset %s",
			clock_id_name(name, sizeof(name), shifted_clocks[i].clock));
		if (syscall_refused(r->rc_sys)) {
			/* No figure: the readings around a refused call mean nothing. */
			check_skip_refused(c, "clock_gettime", r->rc_sys);
			continue;
		}
		bool have_raw = r->rc_raw != -ENOSYS;
		int64_t raw = have_raw ? r->raw : r->lib;
		check_number(c, "offset", "ns", offset);
		check_number(c, "host_before", "ns", host_before[i]);
		check_number(c, "syscall", "ns", r->sys_before);
		check_number(c, "vdso", "ns", have_raw ? r->raw : 0);
		check_number(c, "library", "ns", r->lib);
		check_number(c, "host_after", "ns", host_after[i]);
		if (r->rc_sys || (have_raw && r->rc_raw) || r->rc_lib) {
			check_set(c, CHECK_FAIL, "a call failed in the namespace: syscall %d, vDSO %d, "
				  "library %d", r->rc_sys, r->rc_raw, r->rc_lib);
		} else if (!(low <= r->sys_before && r->sys_before <= raw && raw <= r->lib &&
			     r->lib <= r->sys_after && r->sys_after <= high)) {
			check_set(c, CHECK_FAIL, "expected host + %lld ns: host %lld..%lld, syscall "
				  "%lld, vDSO %lld, library %lld, syscall %lld ns",
				  (long long)offset, (long long)host_before[i], (long long)host_after[i],
				  (long long)r->sys_before, (long long)raw, (long long)r->lib,
				  (long long)r->sys_after);
		} else {
			check_set(c, CHECK_PASS, "%s include the %+.9f s offset (reading %lld ns "
				  "after the host's first)", have_raw ? "vDSO, library and syscall" :
				  "library and syscall (no vDSO symbol)", offset / 1e9,
				  (long long)(raw - offset - host_before[i]));
		}
	}
}

void verify_time_namespace(struct check_list *out, double seconds)
{
	struct timens_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		struct check_result *r = check_add(out, "timens", "time namespace");
		check_set(r, CHECK_SKIP, "no shared memory for the child's results: %s",
			  strerror(errno));
		return;
	}
	memset(sh, 0, sizeof(*sh));
	sh->host_ns_error = read_ns_link("/proc/self/ns/time", sh->host_ns, sizeof(sh->host_ns));

	int64_t host_before[SHIFTED_COUNT], host_after[SHIFTED_COUNT];
	struct vdsokit_timespec ts;
	for (unsigned i = 0; i < SHIFTED_COUNT; i++) {
		reference_clock_gettime((clockid_t)shifted_clocks[i].clock, &ts);
		host_before[i] = timespec_ns(&ts);
	}
	pid_t helper = child_start();
	if (helper < 0) {
		struct check_result *r = check_add(out, "timens", "time namespace");
		check_set(r, CHECK_SKIP, "no helper process: %s", child_start_why());
		munmap(sh, sizeof(*sh));
		return;
	}
	if (helper == 0) {
		namespace_helper(sh, seconds);
		_exit(0);
	}
	int status = 0;
	progress_waitpid(helper, &status);
	for (unsigned i = 0; i < SHIFTED_COUNT; i++) {
		reference_clock_gettime((clockid_t)shifted_clocks[i].clock, &ts);
		host_after[i] = timespec_ns(&ts);
	}

	struct check_result *r = check_add(out, "timens", "time namespace");
	if (!sh->unshared && !sh->skip_reason[0] && WIFSIGNALED(status)) {
		char sig[16];
		check_set(r, CHECK_SKIP, "the helper process was killed by %s before creating the "
			  "namespace%s", signal_name(WTERMSIG(status), sig, sizeof(sig)),
			  WTERMSIG(status) == SIGSYS ? ": a seccomp filter refuses unshare or "
			  "/proc/self/timens_offsets' open or write" : "");
	} else if (!sh->unshared) {
		check_set(r, CHECK_SKIP, "%s", sh->skip_reason[0] ? sh->skip_reason :
			  "the helper process died before creating the namespace");
	} else if (!sh->child_ran || sh->result_count == 0 || sh->child_status != 0) {
		char sig[16];
		check_set(r, CHECK_FAIL, "the child in the namespace did not finish its checks (%s)",
			  WIFSIGNALED(sh->child_status) ?
			  signal_name(WTERMSIG(sh->child_status), sig, sizeof(sig)) : "no results");
	} else if (!sh->host_ns_error && !sh->child_ns_error &&
		   strcmp(sh->host_ns, sh->child_ns) == 0) {
		check_set(r, CHECK_FAIL, "the child is still in the host's time namespace %s",
			  sh->host_ns);
	} else {
		int e = sh->host_ns_error ? sh->host_ns_error : sh->child_ns_error;
		if (e)
			/* Two unread names prove nothing either way: the offsets below tell. */
			check_set(r, CHECK_SKIP, "the namespaces' names cannot be read (readlink "
				  "/proc/self/ns/time: %s, in the %s): the offset checks tell whether "
				  "the child is in its own namespace", errno_name(e),
				  sh->host_ns_error ? "tool" : "child");
		else
			check_set(r, CHECK_PASS, "child in %s (host %s)%s, monotonic %+lld s, "
				  "boottime %+lld s", sh->child_ns, sh->host_ns,
				  sh->via_user_namespace ? " inside a new user namespace" : "",
				  MONOTONIC_OFFSET_SEC, BOOTTIME_OFFSET_SEC);
		struct timens_offsets ours;
		timens_offsets_read(&ours);
		check_offsets(out, sh, host_before, host_after, &ours);
		for (unsigned i = 0; i < sh->result_count && i < MAX_RESULTS; i++) {
			struct check_result *copy = check_add(out, "timens", "%s", sh->results[i].name);
			*copy = sh->results[i];
		}
		if (sh->dropped) {
			struct check_result *d = check_add(out, "timens", "results");
			check_set(d, CHECK_FAIL, "%u results did not fit the shared page", sh->dropped);
		}
	}
	munmap(sh, sizeof(*sh));
}
