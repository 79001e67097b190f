// SPDX-License-Identifier: MIT
/*
 * "At any instant": the process's first call is single-stepped (x86's trap
 * flag), and at each instant a word of the route table that the calls read
 * changes, a SIGTRAP handler makes every clock and cpu call, on every clock
 * the vDSO reads in user space, under a seccomp filter that kills
 * every syscall but write, exit and sigreturn.  A call on a vDSO route must
 * make no syscall whichever resolution step it interrupts, and a first call
 * must end with the routes every resolution publishes.  Each (first call,
 * change) pair runs in a child of its own, as a filter cannot be taken
 * back.  On i386 (tests/hardening/i386.t runs it there), whose getres has
 * only a 32-bit-time entry on Linux 6.18, the 64-bit route let its clocks
 * go before the 32-bit one took them, and a getres in between made the
 * syscall (an outside review of 9d7ee79).  And vdsokit_use_image(NULL, 0)
 * ("no vDSO"), stepped the same way with a first call made at its N-th
 * instruction: it returns 0 only if the calls then take the syscall (the
 * image it gave), -EBUSY only if they keep the vDSO; 9d7ee79 returned 0
 * and kept the vDSO when the call came between its check and its stores.
 * Then use_image(A) stepped with use_image(B) made at its N-th instruction:
 * one of them returns 0, and its image is the one resolved (d12e4a2 let
 * both return 0 and resolved a mix of the two).  SKIP on other
 * architectures.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STEPPING_UNDER_SANITIZER 1 /* its runtime makes syscalls of its own, which the filter kills */
#else
#define STEPPING_UNDER_SANITIZER 0
#endif

#if (defined(__x86_64__) || defined(__i386__)) && defined(VDSOKIT_INLINE_GETTIME) && \
	__has_include(<linux/seccomp.h>) && __has_include(<linux/filter.h>) && !STEPPING_UNDER_SANITIZER
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

#define TIMEOUT_SECONDS 20
#define MAX_CHANGES 64

enum { PASSED, NO_CHANGE_LEFT, NO_FILTER };

static volatile sig_atomic_t stepping, acted, changes, target;
/*
 * The clocks the handler calls: every one x86's vDSO reads in user space.
 * A change counts when a word these calls read changes: their clocks'
 * slots and the other routes (the slots of the clocks left to the syscall,
 * which no call here may make, are not read).
 */
static const clockid_t vdso_clocks[] = { CLOCK_REALTIME,	 CLOCK_MONOTONIC,	 CLOCK_MONOTONIC_RAW,
					 CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME,
					 CLOCK_TAI };
#define VDSO_CLOCKS (sizeof(vdso_clocks) / sizeof(vdso_clocks[0]))
struct route_view {
	void *gettime[VDSO_CLOCKS], *getres[VDSO_CLOCKS];
	unsigned char rest[sizeof(struct vdsokit__routes_v3) - offsetof(struct vdsokit__routes_v3, time)];
};
static struct route_view seen;

static void view_routes(struct route_view *v)
{
	for (size_t i = 0; i < VDSO_CLOCKS; i++) {
		v->gettime[i] = (void *)(uintptr_t)vdsokit__routes_v3.gettime[vdso_clocks[i]];
		v->getres[i] = (void *)(uintptr_t)vdsokit__routes_v3.getres[vdso_clocks[i]];
	}
	memcpy(v->rest, &vdsokit__routes_v3.time, sizeof(v->rest));
}

/* Whether the routes the calls read changed since the last look. */
static int routes_changed(void)
{
	struct route_view now;
	view_routes(&now);
	if (memcmp(&now, &seen, sizeof(now)) == 0)
		return 0;
	seen = now;
	return 1;
}

/* Every clock and cpu call, the way a handler would make them. */
static void every_call(void)
{
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	unsigned cpu, node;
	for (size_t i = 0; i < VDSO_CLOCKS; i++) {
		vdsokit_clock_gettime(vdso_clocks[i], &ts);
		vdsokit_clock_getres(vdso_clocks[i], &ts);
	}
	vdsokit_time(&t);
	vdsokit_gettimeofday(&tv, NULL);
	vdsokit_getcpu(&cpu, &node);
	vdsokit_getcpu(&cpu, NULL);
}

static volatile sig_atomic_t steps, inner_result;
/* Two copies of the process's vDSO, for use_image against use_image. */
static void *copy_a, *copy_b;
static size_t copy_size;

static void on_trap(int sig)
{
	(void)sig;
	if (stepping == 2) {
		/* vdsokit_use_image being stepped: the first call at its target-th instruction. */
		if (++steps == target && !acted) {
			acted = 1;
			int saved = errno;
			struct vdsokit_timespec ts;
			if (copy_b)
				inner_result = vdsokit_use_image(copy_b, copy_size);
			else
				vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts);
			errno = saved;
		}
		return;
	}
	if (!stepping || acted || !routes_changed())
		return;
	if (++changes < target)
		return;
	acted = 1;
	int saved = errno;
	every_call();
	errno = saved;
}

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int kill_every_other_syscall(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(__NR_write), ALLOW(__NR_exit_group), ALLOW(__NR_exit), ALLOW(__NR_rt_sigreturn),
#ifdef __NR_sigreturn
		ALLOW(__NR_sigreturn),
#endif
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

#ifdef __i386__
#define TRAP_FLAG_ON "pushf; orl $0x100, (%%esp); popf"
#define TRAP_FLAG_OFF "pushf; andl $~0x100, (%%esp); popf"
#else
#define TRAP_FLAG_ON "pushf; orl $0x100, (%%rsp); popf"
#define TRAP_FLAG_OFF "pushf; andl $~0x100, (%%rsp); popf"
#endif

enum first_call { GETTIME, GETRES, TIME, GETTIMEOFDAY, GETCPU, INIT, FIRST_CALLS };
static const char *const first_name[FIRST_CALLS] = { "clock_gettime", "clock_getres", "time",
						     "gettimeofday", "getcpu", "vdsokit_init" };

struct run {
	enum first_call first;
	int change;
};

/* PASSED, NO_CHANGE_LEFT (fewer changes than asked), NO_FILTER; killed by SIGSYS: a syscall. */
static int step_first_call(void *arg)
{
	const struct run *run = arg;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	if (sigaction(SIGTRAP, &sa, NULL))
		return NO_FILTER;
	view_routes(&seen);
	target = run->change;
	if (kill_every_other_syscall())
		return NO_FILTER;
	struct vdsokit_timespec ts;
	struct vdsokit_timeval tv;
	int64_t t;
	unsigned cpu, node;
	stepping = 1;
	__asm__ volatile(TRAP_FLAG_ON ::: "memory", "cc");
	switch (run->first) {
	case GETTIME: vdsokit_clock_gettime(CLOCK_MONOTONIC, &ts); break;
	case GETRES: vdsokit_clock_getres(CLOCK_MONOTONIC, &ts); break;
	case TIME: vdsokit_time(&t); break;
	case GETTIMEOFDAY: vdsokit_gettimeofday(&tv, NULL); break;
	case GETCPU: vdsokit_getcpu(&cpu, &node); break;
	default: vdsokit_init(); break;
	}
	__asm__ volatile(TRAP_FLAG_OFF ::: "memory", "cc");
	stepping = 0;
	/* And after it, under the same filter: every call of the routes it left. */
	every_call();
	return acted ? PASSED : NO_CHANGE_LEFT;
}

enum { AGREED = 0, USED_UNSAID = 1, REFUSED_BUT_USED = 2, NOT_REACHED = 3 };

/* vdsokit_use_image(NULL, 0) with a first call at its step-th instruction: does its answer hold? */
static int step_use_image(void *arg)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	if (sigaction(SIGTRAP, &sa, NULL))
		return NOT_REACHED;
	target = *(const int *)arg;
	stepping = 2;
	__asm__ volatile(TRAP_FLAG_ON ::: "memory", "cc");
	int r = vdsokit_use_image(NULL, 0);
	__asm__ volatile(TRAP_FLAG_OFF ::: "memory", "cc");
	stepping = 0;
	if (!acted)
		return NOT_REACHED;
	struct vdsokit_route_info route;
	if (vdsokit_route_of(VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC, &route) != 0)
		return REFUSED_BUT_USED;
	int no_vdso = route.reason == VDSOKIT_REASON_NO_VDSO;
	if (r == 0)
		return no_vdso ? AGREED : USED_UNSAID;
	return r == -EBUSY && !no_vdso ? AGREED : REFUSED_BUT_USED;
}

/* use_image(A) with use_image(B) at its step-th instruction: AGREED when exactly one won, and its image is used. */
static int step_two_images(void *arg)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	copy_a = vdso_copy(&copy_size);
	copy_b = vdso_copy(&copy_size);
	if (!copy_a || !copy_b || sigaction(SIGTRAP, &sa, NULL))
		return NOT_REACHED;
	target = *(const int *)arg;
	stepping = 2;
	__asm__ volatile(TRAP_FLAG_ON ::: "memory", "cc");
	int outer = vdsokit_use_image(copy_a, copy_size);
	__asm__ volatile(TRAP_FLAG_OFF ::: "memory", "cc");
	stepping = 0;
	if (!acted)
		return NOT_REACHED;
	/* Resolve now (nothing is called: the copies' code cannot read the kernel's data). */
	vdsokit_init();
	const struct vdsokit_image *img = vdsokit_process_image();
	const void *used = img ? img->data : NULL;
	if ((outer == 0) + (inner_result == 0) != 1)
		return USED_UNSAID;
	return used == (outer == 0 ? copy_a : copy_b) && img->size == copy_size ? AGREED : REFUSED_BUT_USED;
}

/* scenario at each instruction of the use_image it steps, in a child each, until it reaches none: one check. */
static void use_image_sweep(int (*scenario)(void *), const char *at, const char *unsaid, const char *refused,
			    const char *check)
{
	int step = 1, disagreed = 0;
	for (; step <= 4096; step++) {
		int status = run_in_child(scenario, &step, TIMEOUT_SECONDS);
		int code = child_exited(status) ? WEXITSTATUS(status) : -1;
		if (code == NOT_REACHED)
			break;
		if (code != AGREED) {
			diag("%s %d: %s", at, step,
			     code == USED_UNSAID ? unsaid : code == REFUSED_BUT_USED ? refused : "the child crashed");
			disagreed = 1;
		}
	}
	ok(!disagreed && step > 1, check, step - 1);
}

/* Whether the routes' calls make no syscall here at all (a vDSO with each of them), asked in a child. */
static int all_on_vdso(void *unused)
{
	(void)unused;
	static const enum vdsokit_func fns[] = { VDSOKIT_FN_CLOCK_GETTIME, VDSOKIT_FN_CLOCK_GETRES, VDSOKIT_FN_TIME,
						 VDSOKIT_FN_GETTIMEOFDAY };
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct vdsokit_route_info r;
		if (vdsokit_route_of(fns[i], CLOCK_MONOTONIC, &r) != 0 || r.route != VDSOKIT_ROUTE_VDSO)
			return 1;
	}
	struct vdsokit_route_info r;
	if (vdsokit_route_of(VDSOKIT_FN_GETCPU, 0, &r) != 0 || r.route == VDSOKIT_ROUTE_SYSCALL)
		return 1;
	return 0;
}

/* Resolved, then under the filter: every call answered without a syscall (not so where the vDSO itself falls back, hpet). */
static int vdso_answers_alone(void *unused)
{
	(void)unused;
	vdsokit_init();
	if (kill_every_other_syscall())
		return 1;
	every_call();
	return 0;
}

int main(void)
{
	if (!child_passed(run_in_child(all_on_vdso, NULL, TIMEOUT_SECONDS)) ||
	    !child_passed(run_in_child(vdso_answers_alone, NULL, TIMEOUT_SECONDS))) {
		printf("1..0 # SKIP the clock and cpu calls are not all answered by the vDSO here without a syscall "
		       "(no vDSO, an old one, or a clocksource it cannot read)\n");
		return 0;
	}
	for (int first = 0; first < FIRST_CALLS; first++) {
		int change = 1, failed = 0, filter_refused = 0;
		for (; change <= MAX_CHANGES; change++) {
			struct run run = { (enum first_call)first, change };
			int status = run_in_child(step_first_call, &run, TIMEOUT_SECONDS);
			if (child_exited(status) && WEXITSTATUS(status) == NO_CHANGE_LEFT)
				break;
			if (child_exited(status) && WEXITSTATUS(status) == NO_FILTER) {
				filter_refused = 1;
				break;
			}
			if (!child_passed(status)) {
				diag("first call %s, at the route table's change %d: %s", first_name[first], change,
				     child_exited(status) ? "exit status" : signal_name(WTERMSIG(status)));
				failed = 1;
			}
		}
		if (filter_refused) {
			skip("first call %s: no seccomp filter could be installed", first_name[first]);
			continue;
		}
		ok(!failed && change > 1,
		   "first call %s, interrupted at each of its %d changes of the route table: every call of the "
		   "handler and after it makes no syscall", first_name[first], change - 1);
	}
	use_image_sweep(step_use_image, "a first call at vdsokit_use_image's instruction",
			"it returned 0, but the calls kept the vDSO", "it returned -EBUSY, but the calls took its image",
			"vdsokit_use_image(NULL, 0) with a first call at each of its %d instructions: "
			"0 only when its image is the one used, -EBUSY only when it is not");
	use_image_sweep(step_two_images, "use_image(B) at use_image(A)'s instruction", "not exactly one returned 0",
			"the image resolved is not the winner's",
			"vdsokit_use_image(A) with use_image(B) at each of its %d instructions: exactly one returns 0, "
			"and its image is the one resolved");
	return done_testing();
}
#else
int main(void)
{
	printf("1..0 # SKIP single-stepping with the trap flag: x86 with the inline calls and the kernel's seccomp "
	       "headers only, and no sanitizer (its runtime's own syscalls)\n");
	return 0;
}
#endif
