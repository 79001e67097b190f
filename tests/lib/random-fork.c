// SPDX-License-Identifier: MIT
/*
 * fork() while another thread is growing getrandom's state pool, and while
 * threads take their first states: the child's threads still get states
 * (their getrandom makes no syscall) and nothing in the child hangs.
 *
 * The growth window is made certain, not hoped for: the growing thread's
 * mmap goes to the main thread as a seccomp notification (syscall-count.h),
 * and the main thread forks while that mmap waits — the pool's lock held.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "crng-ready.h"
#include "syscall-count.h"
#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_FORK_UNSAFE 1
#else
#define SANITIZER_FORK_UNSAFE 0
#endif

#define FORKS 200
#define CHILD_TIMEOUT_SECONDS 10

/* Exit codes of the scenarios' processes. */
enum { PASSED, SYSCALL_TAKEN, CALL_FAILED, NO_SECCOMP, SETUP_FAILED, VDSO_TOOK_SYSCALL, GRANDCHILD_DIED };

/* libvdsokit's test hook (src/random.c); weak, so that older builds link too. */
void *vdsokit__random_thread_state(size_t *len) __attribute__((weak));

static void *getrandom_counting_syscalls(void *arg)
{
	struct syscall_counter counter;
	const long nr = SYS_getrandom;
	if (counter_start(&counter, &nr, 1)) {
		*(int *)arg = NO_SECCOMP;
		return NULL;
	}
	/*
	 * The vDSO itself makes a getrandom syscall to seed a state it has not
	 * seen (or has seen before a fork): only the second call must make none.
	 */
	unsigned char buf[16];
	vdsokit_getrandom(buf, sizeof(buf), 0);
	counter_on(&counter);
	ssize_t r = vdsokit_getrandom(buf, sizeof(buf), 0);
	int syscalls = counter_off(&counter);
	/* With a state, a syscall is the vDSO's own doing (its generator reseeded, say). */
	int had_state = vdsokit__random_thread_state && vdsokit__random_thread_state(NULL);
	*(int *)arg = syscalls ? (had_state ? VDSO_TOOK_SYSCALL : SYSCALL_TAKEN)
			       : r != (ssize_t)sizeof(buf) ? CALL_FAILED : PASSED;
	return NULL;
}

/* In a forked child: a new thread's getrandom must get a state. */
static int child_checks_new_thread(void *unused)
{
	(void)unused;
	int verdict = SETUP_FAILED;
	pthread_t t;
	if (pthread_create(&t, NULL, getrandom_counting_syscalls, &verdict) == 0)
		pthread_join(t, NULL);
	return verdict;
}

/* What a scenario's exit code says; NULL for a code none of them exits with. */
static const char *verdict_text(int code)
{
	switch (code) {
	case PASSED: return "a new thread's getrandom made no syscall";
	case SYSCALL_TAKEN: return "a new thread's getrandom took the syscall: no state";
	case CALL_FAILED: return "getrandom failed";
	case NO_SECCOMP: return "no seccomp";
	case SETUP_FAILED: return "setup failed";
	case VDSO_TOOK_SYSCALL: return "a new thread had a state, but the vDSO made a getrandom syscall";
	case GRANDCHILD_DIED: return "the child forked during the growth crashed or hung";
	default: return NULL;
	}
}

/* How a scenario's child ended, in words: its verdict, or how it crashed or hung. */
static struct wait_status_text outcome_text(int status)
{
	const char *verdict = child_exited(status) ? verdict_text(WEXITSTATUS(status)) : NULL;
	struct wait_status_text t = wait_status_text(status);
	if (verdict)
		snprintf(t.text, sizeof(t.text), "%s", verdict);
	return t;
}

/* ---- fork with the pool's growth in progress ------------------------- */

static int growth_listener = -1; /* atomic: the grower's filter's fd, -2: none */

static void *grower(void *arg)
{
	const long nrs[] = {
#ifdef SYS_mmap
		SYS_mmap,
#endif
#ifdef SYS_mmap2
		SYS_mmap2,
#endif
	};
	int fd = counter_install_filter(nrs, sizeof(nrs) / sizeof(nrs[0]));
	__atomic_store_n(&growth_listener, fd < 0 ? -2 : fd, __ATOMIC_RELEASE);
	if (fd < 0)
		return NULL;
	unsigned char buf[16];
	*(int *)arg = vdsokit_getrandom(buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) ? PASSED
										 : CALL_FAILED;
	return NULL;
}

/*
 * In a fresh process, so that the grower's is the first state claimed: its
 * verdict, or the wait status's reason why there is none.
 */
static int fork_during_growth(void *unused)
{
	(void)unused;
	int grower_verdict = SETUP_FAILED;
	pthread_t g;
	if (pthread_create(&g, NULL, grower, &grower_verdict))
		return SETUP_FAILED;
	int fd;
	while ((fd = __atomic_load_n(&growth_listener, __ATOMIC_ACQUIRE)) == -1)
		sched_yield();
	if (fd < 0) {
		pthread_join(g, NULL);
		return NO_SECCOMP;
	}
	struct seccomp_notif req;
	if (counter_receive(fd, &req)) /* the grower now waits inside its mmap */
		return SETUP_FAILED;
	int status = run_in_child(child_checks_new_thread, NULL, CHILD_TIMEOUT_SECONDS);
	counter_continue(fd, &req);
	/* Any later mmap of the grower's growth runs too. */
	while (counter_receive(fd, &req) == 0)
		counter_continue(fd, &req);
	pthread_join(g, NULL);
	if (!child_exited(status)) {
		diag("fork during growth: the grandchild %s", wait_status_text(status).text);
		return GRANDCHILD_DIED;
	}
	return WEXITSTATUS(status) ? WEXITSTATUS(status) : grower_verdict;
}

/* ---- many forks while threads take and leave states ------------------ */

static volatile int churning = 1;

static void *take_state_and_exit(void *arg)
{
	unsigned char buf[16];
	vdsokit_getrandom(buf, sizeof(buf), 0);
	return arg;
}

static void *churn(void *arg)
{
	(void)arg;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while (churning) {
		pthread_t t[16];
		int n = 0;
		for (; n < 16; n++)
			if (pthread_create(&t[n], &attr, take_state_and_exit, NULL))
				break;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	return NULL;
}

static void forks_during_first_use(void)
{
	if (SANITIZER_FORK_UNSAFE) {
		/* Seen with gcc 12: the child hangs in the sanitizer's allocator lock. */
		skip("forks during first use: the sanitizer's allocator is not fork-safe in a "
		     "multithreaded process");
		return;
	}
	pthread_t churners[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&churners[i], NULL, churn, NULL);
	int bad = 0, first_bad_status = 0;
	for (int i = 0; i < FORKS; i++) {
		int status = run_in_child(child_checks_new_thread, NULL, CHILD_TIMEOUT_SECONDS);
		if (!child_passed(status)) {
			if (!bad++)
				first_bad_status = status;
		}
		usleep(i % 5 * 100);
	}
	churning = 0;
	for (int i = 0; i < 2; i++)
		pthread_join(churners[i], NULL);
	ok(bad == 0, "%d forks while 2 threads churn through first uses: %d bad children%s%s", FORKS,
	   bad, bad ? ", first: " : "", bad ? outcome_text(first_bad_status).text : "");
}

int main(void)
{
	wait_for_crng_ready();
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_GETRANDOM, 0, &p);
	if (p.route != VDSOKIT_ROUTE_VDSO) {
		skip("getrandom is not served by the vDSO here (%s): no state pool to fork around",
		     vdsokit_reason_text(p.reason));
		return done_testing();
	}
	if (SANITIZER_FORK_UNSAFE) {
		/* Their runtimes map memory themselves: the first mmap trapped is not ours. */
		skip("fork during growth: under a sanitizer the growing thread's first mmap is the runtime's");
		forks_during_first_use();
		return done_testing();
	}
	int status = run_in_child(fork_during_growth, NULL, CHILD_TIMEOUT_SECONDS * 2);
	if (child_exited(status) && WEXITSTATUS(status) == NO_SECCOMP) {
		skip("no seccomp filters here: the growth window cannot be pinned");
		return done_testing();
	}
	ok(child_passed(status), "fork while another thread grows the state pool (lock held): %s",
	   outcome_text(status).text);
	forks_during_first_use();
	return done_testing();
}
