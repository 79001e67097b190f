// SPDX-License-Identifier: MIT
/*
 * getrandom under a seccomp filter that refuses what a first state needs,
 * as some sandboxes do: mmap (the states' memory: VDSOKIT_REASON_NO_STATE_MEMORY)
 * or rt_sigprocmask (a state is claimed with signals blocked:
 * VDSOKIT_REASON_NO_STATE).  No thread then gets a state, vdsokit_route_of()
 * says so (the syscall route and its reason) whether asked before or after
 * a call, every call still fills its buffer, and once the refusal is known
 * a call is one syscall: getrandom, not another try.  A filter that refuses
 * madvise takes nothing away (the states need none since 0.5.0).  Each
 * scenario runs in a child of its own (a filter cannot be taken back).  SKIP
 * where the vDSO has no getrandom (Linux < 6.11, i386, qemu-user) or
 * seccomp filters cannot be installed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "vdsokit.h"
#include "../tap.h"
#include "syscall-count.h"
#include "testutil.h"

#define TIMEOUT_SECONDS 20
/* The mmap the library makes: mmap2 on the 32-bit ABIs that have it. */
#if defined(SYS_mmap2)
#define MMAP_NR SYS_mmap2
#else
#define MMAP_NR SYS_mmap
#endif

void *vdsokit_lib_random_thread_state(size_t *len);

enum outcome { PASSED, ROUTE_WRONG, CALL_FAILED, GOT_STATE, TOO_MANY_SYSCALLS, NO_FILTER };

static const char *const outcome_text[] = {
	[PASSED] = "passed",
	[ROUTE_WRONG] = "vdsokit_route_of does not say the route and reason expected",
	[CALL_FAILED] = "a call did not fill its buffer",
	[GOT_STATE] = "a thread got a state",
	[TOO_MANY_SYSCALLS] = "a call after the refusal made more than its getrandom syscall",
	[NO_FILTER] = "no seccomp filter could be installed",
};

struct scenario {
	long nr;         /* the syscall refused                                */
	int err;         /* its refusal                                        */
	int call_first;  /* a getrandom call before vdsokit_route_of is asked   */
	enum vdsokit_reason reason; /* what route_of must say; OK: the vDSO route */
};

static int route_says(const struct scenario *s)
{
	struct vdsokit_route_info p;
	if (vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p) != 0)
		return 0;
	if (s->reason == VDSOKIT_REASON_OK)
		return p.route == VDSOKIT_ROUTE_VDSO && p.reason == VDSOKIT_REASON_OK;
	return p.route == VDSOKIT_ROUTE_SYSCALL && p.reason == s->reason && p.syscall &&
	       strcmp(p.syscall, "getrandom") == 0;
}

static int draw(void)
{
	unsigned char buf[64];
	memset(buf, 0, sizeof(buf));
	if (vdsokit_getrandom(buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return -1;
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i])
			return 0;
	return -1;
}

static int refused(void *arg)
{
	const struct scenario *s = arg;
	if (seccomp_refuse(s->nr, s->err))
		return NO_FILTER;
	if (s->call_first && draw())
		return CALL_FAILED;
	if (!route_says(s))
		return ROUTE_WRONG;
	for (int i = 0; i < 3; i++)
		if (draw())
			return CALL_FAILED;
	if (s->reason == VDSOKIT_REASON_OK)
		return vdsokit_lib_random_thread_state(NULL) ? PASSED : ROUTE_WRONG;
	if (vdsokit_lib_random_thread_state(NULL))
		return GOT_STATE;
	/* Counted: every syscall of one call, now that the refusal is known. */
	struct syscall_counter counter;
	if (counter_start(&counter, NULL, 0) == 0) {
		counter_on(&counter);
		int failed = draw();
		int n = counter_off(&counter);
		if (failed)
			return CALL_FAILED;
		if (n != 1 || counter.last_nr != SYS_getrandom)
			return TOO_MANY_SYSCALLS;
	}
	return route_says(s) ? PASSED : ROUTE_WRONG;
}

/*
 * A filter is the thread's own (no TSYNC): one thread refused mmap takes the
 * syscall, and the thread that never was still gets a state, and is told so.
 */
static void *sandboxed_thread(void *arg)
{
	const struct scenario *s = arg;
	if (seccomp_refuse(s->nr, s->err))
		return (void *)(intptr_t)NO_FILTER;
	if (draw())
		return (void *)(intptr_t)CALL_FAILED;
	if (!route_says(s))
		return (void *)(intptr_t)ROUTE_WRONG;
	return (void *)(intptr_t)(vdsokit_lib_random_thread_state(NULL) ? GOT_STATE : PASSED);
}

__attribute__((unused)) static int refused_in_one_thread(void *arg)
{
	pthread_t t;
	void *r;
	if (pthread_create(&t, NULL, sandboxed_thread, arg) || pthread_join(t, &r))
		return NO_FILTER;
	if ((intptr_t)r != PASSED)
		return (int)(intptr_t)r;
	static const struct scenario free_thread = { 0, 0, 0, VDSOKIT_REASON_OK };
	if (draw())
		return CALL_FAILED;
	return vdsokit_lib_random_thread_state(NULL) && route_says(&free_thread) ? PASSED : ROUTE_WRONG;
}

/*
 * mmap refused to a thread when free states are listed (the main thread's
 * first call mapped a block): asked first, route_of says the vDSO, and the
 * thread gets one of them; a call maps only when none is listed.
 */
static void *sandboxed_with_states_listed(void *arg)
{
	const struct scenario *s = arg;
	static const struct scenario listed = { 0, 0, 0, VDSOKIT_REASON_OK };
	if (seccomp_refuse(s->nr, s->err))
		return (void *)(intptr_t)NO_FILTER;
	if (!route_says(&listed))
		return (void *)(intptr_t)ROUTE_WRONG;
	if (draw())
		return (void *)(intptr_t)CALL_FAILED;
	return (void *)(intptr_t)(vdsokit_lib_random_thread_state(NULL) ? PASSED : ROUTE_WRONG);
}

__attribute__((unused)) static int refused_with_states_listed(void *arg)
{
	pthread_t t;
	void *r;
	if (draw() || !vdsokit_lib_random_thread_state(NULL))
		return CALL_FAILED;
	if (pthread_create(&t, NULL, sandboxed_with_states_listed, arg) || pthread_join(t, &r))
		return NO_FILTER;
	return (int)(intptr_t)r;
}

/* Whether this process's vDSO has getrandom with usable states, asked in a child. */
static int vdso_serves_getrandom(void *unused)
{
	(void)unused;
	struct vdsokit_route_info p;
	return vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p) == 0 && p.route == VDSOKIT_ROUTE_VDSO ? 0 : 1;
}

int main(void)
{
	if (!child_passed(run_in_child(vdso_serves_getrandom, NULL, TIMEOUT_SECONDS))) {
		printf("1..0 # SKIP no vDSO getrandom here (Linux < 6.11, i386, or no vDSO)\n");
		return 0;
	}
	static const struct {
		struct scenario s;
		const char *what;
	} cases[] = {
		{ { MMAP_NR, EPERM, 0, VDSOKIT_REASON_NO_STATE_MEMORY }, "mmap refused with EPERM, route asked first" },
		{ { MMAP_NR, EPERM, 1, VDSOKIT_REASON_NO_STATE_MEMORY }, "mmap refused with EPERM, a call first" },
		{ { MMAP_NR, ENOSYS, 0, VDSOKIT_REASON_NO_STATE_MEMORY }, "mmap refused with ENOSYS, route asked first" },
		{ { MMAP_NR, EACCES, 1, VDSOKIT_REASON_NO_STATE_MEMORY }, "mmap refused with EACCES, a call first" },
		{ { SYS_rt_sigprocmask, EPERM, 0, VDSOKIT_REASON_NO_STATE }, "rt_sigprocmask refused with EPERM, route asked first" },
		{ { SYS_rt_sigprocmask, EPERM, 1, VDSOKIT_REASON_NO_STATE }, "rt_sigprocmask refused with EPERM, a call first" },
		{ { SYS_madvise, EPERM, 1, VDSOKIT_REASON_OK }, "madvise refused with EPERM: states need none" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
		if (cases[i].s.nr == MMAP_NR) {
			skip("%s: a sanitizer's runtime cannot run without mmap", cases[i].what);
			continue;
		}
#endif
		int status = run_in_child(refused, (void *)&cases[i].s, TIMEOUT_SECONDS);
		int code = child_exited(status) ? WEXITSTATUS(status) : -1;
		if (code == NO_FILTER) {
			skip("%s: %s", cases[i].what, outcome_text[NO_FILTER]);
			continue;
		}
		if (!ok(code == PASSED, "%s: the %s route, said and taken; every call fills its buffer",
			cases[i].what, cases[i].s.reason == VDSOKIT_REASON_OK ? "vDSO" : "syscall"))
			diag("%s", code >= 0 && code <= NO_FILTER ? outcome_text[code] : "the child crashed or hung");
	}
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	static const struct scenario one_thread = { MMAP_NR, EPERM, 1, VDSOKIT_REASON_NO_STATE_MEMORY };
	int status = run_in_child(refused_in_one_thread, (void *)&one_thread, TIMEOUT_SECONDS);
	int code = child_exited(status) ? WEXITSTATUS(status) : -1;
	if (code == NO_FILTER)
		skip("mmap refused in one thread only: %s", outcome_text[NO_FILTER]);
	else if (!ok(code == PASSED, "mmap refused in one thread only: that thread takes the syscall and is told "
				     "so, the other gets a state and is told the vDSO"))
		diag("%s", code >= 0 && code <= NO_FILTER ? outcome_text[code] : "the child crashed or hung");
	status = run_in_child(refused_with_states_listed, (void *)&one_thread, TIMEOUT_SECONDS);
	code = child_exited(status) ? WEXITSTATUS(status) : -1;
	if (code == NO_FILTER)
		skip("mmap refused with free states listed: %s", outcome_text[NO_FILTER]);
	else if (!ok(code == PASSED, "mmap refused to a thread while free states are listed: route_of, asked first, "
				     "says the vDSO, and the thread gets one"))
		diag("%s", code >= 0 && code <= NO_FILTER ? outcome_text[code] : "the child crashed or hung");
#endif
	return done_testing();
}
