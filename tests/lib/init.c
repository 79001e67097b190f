// SPDX-License-Identifier: MIT
/*
 * The first call, as the library promises it (vdsokit_init(3)): whoever finds
 * the library unresolved resolves it, without a system call, and nothing
 * that happens meanwhile can leave it half-done:
 *   - errno is left as it was, even where the libc's getauxval sets it
 *     (glibc: ENOENT for a type the kernel did not pass, such as
 *     AT_RSEQ_FEATURE_SIZE before Linux 6.3, or AT_SYSINFO_EHDR with vdso=0);
 *   - a signal handler that leaves the resolution by siglongjmp leaves the
 *     library on the vDSO route at its next call;
 *   - under a seccomp filter that allows nothing but exit, each first call
 *     the vDSO serves in user space runs (a syscall would kill it); a call
 *     the vDSO answers with a syscall of its own (HPET, say) is skipped.
 * The getauxval the library calls is this program's (below), which can
 * clobber errno and interrupt.  Each scenario runs in a fresh child.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<linux/seccomp.h>) && __has_include(<linux/filter.h>)
#include <linux/filter.h>
#include <linux/seccomp.h>
#define HAVE_SECCOMP 1
#else
#define HAVE_SECCOMP 0
#endif

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

/* A sanitizer build's runtime makes system calls: a filter that allows only
 * exit cannot show the library's first call makes none. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define TIMEOUT_SECONDS 20

/* ---- getauxval, interposed ------------------------------------------ */

static unsigned long auxv[2 * 64];

__attribute__((constructor(101))) static void read_auxv(void)
{
	FILE *f = fopen("/proc/self/auxv", "re");
	if (!f)
		return;
	size_t n = fread(auxv, sizeof(auxv[0]), sizeof(auxv) / sizeof(auxv[0]) - 2, f);
	fclose(f);
	auxv[n & ~(size_t)1] = 0; /* AT_NULL */
}

enum interposer { PLAIN, CLOBBER_ERRNO, HIDE_VDSO, JUMP_OUT };
static enum interposer mode;
static sigjmp_buf out_of_resolution;
static volatile sig_atomic_t jumped;

static void leave(int sig)
{
	(void)sig;
	jumped = 1;
	siglongjmp(out_of_resolution, 1);
}

unsigned long getauxval(unsigned long type)
{
	if (mode == JUMP_OUT && type == AT_SYSINFO_EHDR && !jumped)
		raise(SIGUSR1); /* the handler leaves the library's resolution by siglongjmp */
	if (mode == HIDE_VDSO && type == AT_SYSINFO_EHDR) {
		errno = ENOENT;
		return 0;
	}
	for (size_t i = 0; auxv[i] != 0; i += 2)
		if (auxv[i] == type) {
			if (mode == CLOBBER_ERRNO)
				errno = ENOENT; /* worse than glibc, which sets it only on a miss */
			return auxv[i + 1];
		}
	errno = ENOENT;
	return 0;
}

/* ---- the calls --------------------------------------------------------- */

static const char *const call_names[] = {
	"vdsokit_clock_gettime(MONOTONIC_COARSE)", "vdsokit_clock_getres(MONOTONIC)",
	"vdsokit_gettimeofday", "vdsokit_time", "vdsokit_getcpu(cpu, NULL)", "vdsokit_thread_pointer",
	"vdsokit_init", "vdsokit_route_of", "vdsokit_getrandom",
};
#define CALLS (sizeof(call_names) / sizeof(call_names[0]))
#define CALL_GETRANDOM (CALLS - 1)

/* Call i, as a process's first call of the library: its result, < 0 on failure. */
static long first_call(size_t i)
{
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	struct vdsokit_route_info info;
	int64_t t;
	unsigned cpu;
	unsigned char buf[16];
	switch (i) {
	case 0: return vdsokit_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	case 1: return vdsokit_clock_getres(CLOCK_MONOTONIC, &ts);
	case 2: return vdsokit_gettimeofday(&tv, NULL);
	case 3: return vdsokit_time(&t);
	case 4: return vdsokit_getcpu(&cpu, NULL);
	case 5: return vdsokit_thread_pointer() ? 0 : -1;
	case 6: return vdsokit_init();
	case 7: return vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &info);
	default: {
		/* NONBLOCK: a guest's first getrandom of the boot may wait for the
		 * CRNG (m68k's 6.1 has no cycle counter to seed it quickly). */
		long r = vdsokit_getrandom(buf, sizeof(buf), GRND_NONBLOCK);
		return r == -EAGAIN ? 0 : r;
	}
	}
}

/* The function whose route says whether call i is served in user space; -1: none. */
static int func_of(size_t i)
{
	static const int funcs[] = { VDSOKIT_FN_CLOCK_GETTIME, VDSOKIT_FN_CLOCK_GETRES,
				     VDSOKIT_FN_GETTIMEOFDAY, VDSOKIT_FN_TIME, VDSOKIT_FN_GETCPU,
				     VDSOKIT_FN_THREAD_POINTER, -1, -1, VDSOKIT_FN_GETRANDOM };
	return funcs[i];
}

/* ---- errno --------------------------------------------------------------- */

static size_t errno_call;

/* 0: errno as it was after the call; 1: changed; 2: the call failed. */
static int errno_kept(void *arg)
{
	mode = (enum interposer)(intptr_t)arg;
	errno = 4242;
	long r = first_call(errno_call);
	int after = errno;
	if (after != 4242) {
		printf("# %s: errno %d after the call\n", call_names[errno_call], after);
		return 1;
	}
	return r < 0 && errno_call != 6 ? 2 : 0;
}

/* ---- siglongjmp out of the resolution ---------------------------------- */

/* 0: on the vDSO route after the jump; 1: not; 2: no jump happened; 3: setup. */
static int jump_out_of_resolution(void *unused)
{
	(void)unused;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = leave;
	if (sigaction(SIGUSR1, &sa, NULL))
		return 3;
	mode = JUMP_OUT;
	struct vdsokit_timespec ts;
	if (sigsetjmp(out_of_resolution, 1) == 0)
		vdsokit_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	if (!jumped)
		return 2;
	/* Interrupted: the next calls resolve again, and take the vDSO. */
	if (vdsokit_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
		return 1;
	struct vdsokit_route_info info;
	if (vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC_COARSE, &info) ||
	    info.route != VDSOKIT_ROUTE_VDSO || !vdsokit_process_image()) {
		printf("# after the jump: %s (%s)\n", vdsokit_route_name(info.route),
		       vdsokit_reason_text(info.reason));
		return 1;
	}
	/* The inlined call reads a route to the vDSO's entry: its 64-bit-time
	 * one, or on ILP32, where a 32-bit-time one is all there is, the
	 * library's function that widens it. */
	const void *slot = (const void *)(uintptr_t)vdsokit__routes_v3.gettime[CLOCK_MONOTONIC_COARSE];
	if (slot == info.address)
		return 0;
	if (info.reason == VDSOKIT_REASON_TIME32 && slot != NULL &&
	    slot != (const void *)(uintptr_t)vdsokit__routes_v3.gettime[CLOCK_PROCESS_CPUTIME_ID])
		return 0;
	printf("# after the jump: the inline routes do not lead to %p\n", info.address);
	return 1;
}

/* ---- a filter that allows nothing but exit ----------------------------- */

#if HAVE_SECCOMP
static int allow_only_exit(void)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = { (unsigned short)(sizeof(prog) / sizeof(prog[0])), prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) ? -1 : 0;
}
#endif

static size_t sandboxed_call;

/*
 * Exits 0 when the call worked; killed by SIGSYS when it made a syscall.
 * resolved: the library resolved first, so only the call itself is under
 * the filter (killed when the vDSO makes the syscall itself: a clocksource
 * it cannot read, say).
 */
static int call_sandboxed(void *resolved)
{
#if HAVE_SECCOMP
	if (resolved)
		vdsokit_init();
	if (allow_only_exit())
		return 3;
	_exit(first_call(sandboxed_call) < 0 && sandboxed_call != 6 ? 1 : 0);
#else
	(void)resolved;
	return 3;
#endif
}

/*
 * Whether this C library's thread-local storage costs a system call: the
 * library keeps the caller's errno, a TLS variable, across getauxval, and
 * m68k's glibc reads the thread pointer with get_thread_area unless it
 * takes it from the vDSO (tests/qemu/glibc/m68k-vdso).  Such a syscall is
 * the C library's, not one of ours: the test says so rather than failing.
 * 0 when errno can be read and written under the filter, 1 when that was
 * killed, -1 when there are no filters.
 */
static volatile int errno_seen;
static int touch_errno_sandboxed(void *unused)
{
	(void)unused;
#if HAVE_SECCOMP
	if (allow_only_exit())
		return 3;
	errno_seen = errno;
	errno = errno_seen + 1;
	_exit(0);
#else
	return 3;
#endif
}

static int tls_is_syscall(void)
{
	int status = run_in_child(touch_errno_sandboxed, NULL, TIMEOUT_SECONDS);
	if (child_exited(status))
		return WEXITSTATUS(status) == 0 ? 0 : -1;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS ? 1 : -1;
}

/* Which calls the vDSO serves here, asked in a child (the parent stays unresolved). */
static int routes_in_user_space(void *unused)
{
	(void)unused;
	int mask = 0;
	for (size_t i = 0; i < CALLS; i++) {
		struct vdsokit_route_info info;
		int fn = func_of(i);
		clockid_t clock = i == 0 ? CLOCK_MONOTONIC_COARSE : CLOCK_MONOTONIC;
		if (fn < 0) {
			mask |= vdsokit_process_image() ? 1 << i : 0; /* init, route_of: no syscall either */
			continue;
		}
		if (vdsokit_route_of((enum vdsokit_func)fn, clock, &info) == 0 &&
		    (info.route == VDSOKIT_ROUTE_VDSO || info.route == VDSOKIT_ROUTE_REGISTER ||
		     info.route == VDSOKIT_ROUTE_RSEQ))
			mask |= 1 << i;
	}
	return mask;
}

/*
 * Every clock slot moves at the first call, from the first-call function
 * to its final route, the syscall's included: a slot left on the first-call
 * function would send each of its calls through the resolution's check (on
 * powerpc every syscall slot once did).
 */
static int slots_all_move(void *unused)
{
	(void)unused;
	enum { N = sizeof(vdsokit__routes_v3.gettime) / sizeof(vdsokit__routes_v3.gettime[0]) };
	const void *before[2][N];
	for (int i = 0; i < N; i++) {
		before[0][i] = (const void *)(uintptr_t)vdsokit__routes_v3.gettime[i];
		before[1][i] = (const void *)(uintptr_t)vdsokit__routes_v3.getres[i];
	}
	struct vdsokit_timespec ts;
	(void)(vdsokit_clock_gettime)(CLOCK_MONOTONIC, &ts);
	int stayed = 0;
	for (int i = 0; i < N; i++) {
		const void *now[2] = { (const void *)(uintptr_t)vdsokit__routes_v3.gettime[i],
				       (const void *)(uintptr_t)vdsokit__routes_v3.getres[i] };
		for (int f = 0; f < 2; f++)
			if (now[f] == NULL || now[f] == before[f][i]) {
				printf("# clock_%s slot %d still holds %p\n", f ? "getres" : "gettime", i, now[f]);
				stayed++;
			}
	}
	return stayed != 0;
}

/*
 * A program that reads only clocks resolves only their entries: after the
 * first clock_gettime and clock_getres every other route is still unset.
 * vdsokit_init() then resolves the rest and leaves each clock slot as the
 * clock calls published it: the two resolutions publish the same.
 */
static int clocks_resolve_alone(void *unused)
{
	(void)unused;
	struct vdsokit_timespec ts;
	(void)(vdsokit_clock_gettime)(CLOCK_MONOTONIC, &ts);
	(void)(vdsokit_clock_getres)(CLOCK_MONOTONIC, &ts);
	static const struct vdsokit__routes_v3 unset;
	struct vdsokit__routes_v3 after_clocks;
	memcpy(&after_clocks, &vdsokit__routes_v3, sizeof(after_clocks));
	size_t clocks = offsetof(struct vdsokit__routes_v3, time);
	if (memcmp((const char *)&after_clocks + clocks, (const char *)&unset + clocks, sizeof(unset) - clocks)) {
		printf("# a route besides the clocks' was set by a clock call\n");
		return 1;
	}
	vdsokit_init();
	if (memcmp(&after_clocks, &vdsokit__routes_v3, clocks)) {
		printf("# vdsokit_init() changed a clock slot the clock calls had published\n");
		return 1;
	}
	return 0;
}

/*
 * The image is parsed once: the whole resolution after the clock calls'
 * reads the image they kept.  The image is a copy of the vDSO whose header
 * is wiped after the first clock call (on a clock the syscall serves, so no
 * entry of the copy is called): vdsokit_init() still finds it whole.
 */
static int parsed_once(void *unused)
{
	(void)unused;
	size_t size;
	unsigned char *copy = vdso_copy(&size);
	if (!copy || vdsokit_use_image(copy, size) != 0)
		return 2;
	struct vdsokit_timespec ts;
	(void)(vdsokit_clock_gettime)(CLOCK_PROCESS_CPUTIME_ID, &ts);
	memset(copy, 0, 64);
	int err = vdsokit_init();
	const struct vdsokit_image *img = vdsokit_process_image();
	if (err || !img || img->data != copy) {
		printf("# vdsokit_init() = %d after the header was wiped: it parsed the image again\n", err);
		return 1;
	}
	return 0;
}

int main(void)
{
	static const char *const mode_names[] = { "", "a getauxval that sets errno even when it finds",
						  "a getauxval that finds no vDSO (ENOENT)" };
	/*
	 * getrandom blocks until the kernel's generator is initialised: in a
	 * freshly booted m68k guest (6.1, no vDSO) that took longer than a
	 * scenario's timeout, and getrandom's first errno scenario was killed
	 * as a hang.  Wait once here, with the raw syscall: a library call
	 * would resolve the library in the parent the children inherit.
	 */
	unsigned char byte;
	while (syscall(SYS_getrandom, &byte, 1, 0) < 0 && errno == EINTR)
		;
	for (int m = CLOBBER_ERRNO; m <= HIDE_VDSO; m++)
		for (errno_call = 0; errno_call < CALLS; errno_call++) {
			int status = run_in_child(errno_kept, (void *)(intptr_t)m, TIMEOUT_SECONDS);
			ok(child_passed(status), "%s, first call, %s: errno as it was (%s)",
			   call_names[errno_call], mode_names[m], wait_status_text(status).text);
		}

	int moved = run_in_child(slots_all_move, NULL, TIMEOUT_SECONDS);
	ok(child_passed(moved), "the first call moves every clock slot off the first-call function, "
	   "the syscall's too (%s)", wait_status_text(moved).text);
	int alone = run_in_child(clocks_resolve_alone, NULL, TIMEOUT_SECONDS);
	ok(child_passed(alone), "the first clock calls resolve the clocks alone; vdsokit_init() then "
	   "resolves the rest and keeps their slots (%s)", wait_status_text(alone).text);
	int once = run_in_child(parsed_once, NULL, TIMEOUT_SECONDS);
	if (child_exited(once) && WEXITSTATUS(once) == 2)
		skip("the image parsed once: no [vdso] in /proc/self/maps to copy here");
	else
		ok(child_passed(once), "the image is parsed once: vdsokit_init() after a clock call reads "
		   "the image it kept (%s)", wait_status_text(once).text);

	if (!getauxval(AT_SYSINFO_EHDR)) {
		skip("siglongjmp out of the resolution: no vDSO in this process");
		skip("first calls under a filter that allows only exit: no vDSO in this process");
		printf("1..%d\n", tap_count);
		return tap_failed != 0;
	}
	int status = run_in_child(jump_out_of_resolution, NULL, TIMEOUT_SECONDS);
	ok(child_passed(status), "a signal handler leaves the first call's resolution by siglongjmp: the "
	   "next call is on the vDSO route, inlined too (%s)", wait_status_text(status).text);

	status = run_in_child(routes_in_user_space, NULL, TIMEOUT_SECONDS);
	int user_space = child_exited(status) ? WEXITSTATUS(status) : 0;
	int libc_tls_syscall = tls_is_syscall() == 1;
	for (sandboxed_call = 0; sandboxed_call < CALLS; sandboxed_call++) {
		if (sandboxed_call == CALL_GETRANDOM) {
			/* A thread's first getrandom takes its state: it maps and blocks signals. */
			continue;
		}
		if (libc_tls_syscall && (user_space >> sandboxed_call & 1)) {
			skip("%s, first call under a filter that allows only exit: this C library's "
			     "errno (TLS) is a system call (get_thread_area on m68k glibc without the "
			     "vDSO), and the first call keeps the caller's errno",
			     call_names[sandboxed_call]);
			continue;
		}
		if (!(user_space >> sandboxed_call & 1)) {
			skip("%s, first call under a filter that allows only exit: not served in user "
			     "space here", call_names[sandboxed_call]);
			continue;
		}
		if (SANITIZED) {
			/* The sanitizer's runtime makes system calls of its own. */
			skip("%s, first call under a filter that allows only exit: a sanitizer build",
			     call_names[sandboxed_call]);
			continue;
		}
		status = run_in_child(call_sandboxed, (void *)1, TIMEOUT_SECONDS);
		if (!child_passed(status) && !(child_exited(status) && WEXITSTATUS(status) == 3)) {
			skip("%s, first call under a filter that allows only exit: the call makes a "
			     "system call here even once resolved (%s)", call_names[sandboxed_call],
			     wait_status_text(status).text);
			continue;
		}
		status = run_in_child(call_sandboxed, NULL, TIMEOUT_SECONDS);
		if (child_exited(status) && WEXITSTATUS(status) == 3)
			skip("%s, first call under a filter: no seccomp filters here",
			     call_names[sandboxed_call]);
		else
			ok(child_passed(status), "%s, first call under a filter that allows only exit: no "
			   "system call (%s)", call_names[sandboxed_call], wait_status_text(status).text);
	}
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
