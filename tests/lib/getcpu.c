// SPDX-License-Identifier: MIT
/*
 * getcpu against the syscall, on every CPU this process may run on, after
 * migrations back and forth, in threads and in a forked child, through
 * both the header's inline path (vdsokit_getcpu) and the library function
 * ((vdsokit_getcpu), the macro suppressed), with and without node.  Where
 * the libc registered an rseq area (glibc 2.35+ does for every thread,
 * unless the kernel or an emulator refused it), the route must be "rseq",
 * and the node comes from it too where the kernel writes node_id there.
 * Then all of it again in a fresh run of this program with the libc's rseq
 * registration switched off (glibc.pthread.rseq=0): the vDSO's paths.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vdsokit.h"
#include "../tap.h"
#include "testutil.h"

/* glibc's rseq registration (weak: other libcs have none). */
extern const unsigned int __rseq_size __attribute__((weak));
extern const ptrdiff_t __rseq_offset __attribute__((weak));

static int pin_to(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

/*
 * Pinned to cpu: every way of calling getcpu says cpu, and the node the
 * syscall says.  1 on a disagreement (diagnosed), 0 on agreement, -1 when
 * the thread could not be put there (nothing compared).
 */
static int disagreements_on(int cpu, const char *where)
{
	unsigned want_cpu = ~0u, want_node = ~0u;
	if (pin_to(cpu) != 0 || sys_getcpu(&want_cpu, &want_node) != 0)
		return -1;
	int bad = 0;
	unsigned c1 = ~0u, c2 = ~0u, c3 = ~0u, n3 = ~0u, c4 = ~0u, n4 = ~0u, n5 = ~0u;
	int r1 = vdsokit_getcpu(&c1, NULL);
	int r2 = (vdsokit_getcpu)(&c2, NULL);
	int r3 = vdsokit_getcpu(&c3, &n3);
	int r4 = (vdsokit_getcpu)(&c4, &n4);
	int r5 = vdsokit_getcpu(NULL, &n5);
	if (r1 || r2 || r3 || r4 || r5 || c1 != want_cpu || c2 != want_cpu || c3 != want_cpu ||
	    c4 != want_cpu || n3 != want_node || n4 != want_node || n5 != want_node) {
		diag("%s, CPU %d: syscall cpu %u node %u; inline %d:%u, library %d:%u, "
		     "inline+node %d:%u/%u, library+node %d:%u/%u, node only %d:%u", where, cpu, want_cpu,
		     want_node, r1, c1, r2, c2, r3, c3, n3, r4, c4, n4, r5, n5);
		bad = 1;
	}
	/* Each path alone, and the bare entry the bench measures against. */
	static const enum vdsokit_route vias[] = { VDSOKIT_ROUTE_AUTO, VDSOKIT_ROUTE_VDSO, VDSOKIT_ROUTE_SYSCALL };
	static const char *const via_names[] = { "auto", "vdso", "syscall" };
	for (size_t i = 0; i < sizeof(vias) / sizeof(vias[0]); i++) {
		unsigned c = ~0u, n = ~0u;
		int r = vdsokit_getcpu_via(vias[i], &c, &n);
		if (r == -ENOSYS && vias[i] == VDSOKIT_ROUTE_VDSO)
			continue; /* no vDSO getcpu here: nothing to compare */
		if (r || c != want_cpu || n != want_node) {
			diag("%s, CPU %d: via %s %d:%u/%u, syscall cpu %u node %u", where, cpu, via_names[i], r,
			     c, n, want_cpu, want_node);
			bad = 1;
		}
	}
	const void *entry;
	if (vdsokit_bare_entry(VDSOKIT_FN_GETCPU, &entry, NULL) == 0) {
		unsigned c = ~0u, n = ~0u;
		int r = ((int (*)(unsigned *, unsigned *, void *))(uintptr_t)entry)(&c, &n, NULL);
		if (r || c != want_cpu || n != want_node) {
			diag("%s, CPU %d: bare vDSO entry %d:%u/%u, syscall cpu %u node %u", where, cpu, r, c,
			     n, want_cpu, want_node);
			bad = 1;
		}
	}
	return bad;
}

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * What the library relies on to take the node from the rseq area: the
 * kernel writes node_id (bytes 20-23) into the libc's registration, whatever
 * __rseq_size says (20 from glibc 2.40 and its backports, over the 32 bytes
 * every registration has).  Overwritten here, it must come back as the
 * syscall's node after a signal (the kernel rewrites the area on its way
 * back to user space), and the library must then answer the syscall's node
 * from it.  1 when the area serves the node, 0 when it cannot here (said).
 */
static int check_kernel_writes_node_id(void)
{
	unsigned long feature = getauxval(AT_RSEQ_FEATURE_SIZE);
	if (!&__rseq_size || !__rseq_size || !&__rseq_offset || feature < 24) {
		skip("node_id from the rseq area: the libc registered none, or the kernel's feature size "
		     "is %lu (node_id needs 24, Linux 6.3+)", feature);
		skip("route of getcpu with the node");
		return 0;
	}
	/* The kernel requires struct rseq 32-byte aligned: the cast is safe. */
	volatile uint32_t *area =
		(volatile uint32_t *)(void *)((char *)vdsokit_thread_pointer() + __rseq_offset);
	unsigned want_cpu, want_node, cpu = ~0u, node = ~0u;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, &old);
	uint32_t planted = 0x5eed0000u;
	area[5] = planted;
	raise(SIGUSR1);
	uint32_t seen = area[5];
	int r = vdsokit_getcpu(&cpu, &node);
	int rs = sys_getcpu(&want_cpu, &want_node);
	sigaction(SIGUSR1, &old, NULL);
	ok(seen != planted && rs == 0 && seen == want_node && r == 0 && node == want_node,
	   "the kernel rewrites node_id in the libc's rseq area (__rseq_size %u, feature size %lu): "
	   "%#x planted, %#x after a signal; the library's node %u, the syscall's %u",
	   __rseq_size, feature, planted, seen, node, want_node);
	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_GETCPU, 0, &p);
	ok(p.route == VDSOKIT_ROUTE_RSEQ && p.reason == VDSOKIT_REASON_RSEQ_AREA,
	   "getcpu with the node is read from the rseq area, not the vDSO: %s (%s)",
	   vdsokit_route_name(p.route), vdsokit_reason_text(p.reason));
	return 1;
}

static int cpu_count(void)
{
	cpu_set_t all;
	if (sched_getaffinity(0, sizeof(all), &all) != 0)
		return 1;
	int last = 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &all))
			last = i;
	return last + 1;
}

static cpu_set_t original;
static int ncpus;

/*
 * Every allowed CPU in turn, then 200 moves from one allowed CPU to the
 * next (migrations), then free again.  The disagreements; a run that
 * compared on no CPU counts as one.
 */
static int disagreements_everywhere(const char *where)
{
	int allowed[CPU_SETSIZE], nallowed = 0, bad = 0, compared = 0;
	for (int i = 0; i < ncpus; i++)
		if (CPU_ISSET(i, &original))
			allowed[nallowed++] = i;
	for (int k = 0; k < nallowed + 200; k++) {
		int r = disagreements_on(allowed[k % nallowed], where);
		if (r >= 0) {
			bad += r;
			compared++;
		}
	}
	sched_setaffinity(0, sizeof(original), &original);
	if (compared == 0) {
		diag("%s: could not be pinned to any of the %d allowed CPUs", where, nallowed);
		return 1;
	}
	return bad;
}

static void *thread_main(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)disagreements_everywhere("thread");
}

static int child_main(void *arg)
{
	(void)arg;
	return disagreements_everywhere("forked child") ? 1 : 0;
}

#define NO_RSEQ_TUNABLE "glibc.pthread.rseq=0"

/*
 * This program again, without the libc's rseq area: every call takes the
 * vDSO's getcpu (the header's inline path calling it too).  Its TAP lines
 * are shown as diagnostics; its exit status is one test.
 */
static void check_without_rseq(void)
{
	const char *tunables = getenv("GLIBC_TUNABLES");
	if (tunables && strstr(tunables, NO_RSEQ_TUNABLE))
		return; /* this is that run */
	if (!&__rseq_size || !__rseq_size) {
		skip("a run without the libc's rseq area: there is none in this one already");
		return;
	}
	int fd[2];
	if (pipe(fd) != 0) {
		ok(0, "a run without the libc's rseq area: pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("GLIBC_TUNABLES", NO_RSEQ_TUNABLE, 1);
		execl("/proc/self/exe", "getcpu.t", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char out[16384];
	size_t used = 0;
	ssize_t n;
	while (used < sizeof(out) - 1 && (n = read(fd[0], out + used, sizeof(out) - 1 - used)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(fd[0]);
	int status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	int failed = strstr(out, "\nnot ok") != NULL || strncmp(out, "not ok", 6) == 0;
	ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && !failed && strstr(out, "\nok ") != NULL,
	   "again without the libc's rseq area (GLIBC_TUNABLES=%s): getcpu equals the syscall "
	   "through the vDSO on every path", NO_RSEQ_TUNABLE);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		diag("  %s", line);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sched_getaffinity(0, sizeof(original), &original);
	ncpus = cpu_count();
	printf("# %d CPU ids, glibc rseq area: %s (size %u)\n", ncpus,
	       &__rseq_size && __rseq_size ? "registered" : "none", &__rseq_size ? __rseq_size : 0);

	ok(disagreements_everywhere("main thread") == 0,
	   "main thread: getcpu equals the syscall on each of the %d allowed CPUs, and over 200 moves among them",
	   CPU_COUNT(&original));

	struct vdsokit_route_info p;
	vdsokit_route_of(VDSOKIT_FN_GETCPU, 0, &p);
	int libc_rseq = &__rseq_size && __rseq_size >= 8 && &__rseq_offset;
	if (libc_rseq)
		ok(p.route == VDSOKIT_ROUTE_RSEQ && (p.reason == VDSOKIT_REASON_RSEQ_AREA ||
						     p.reason == VDSOKIT_REASON_RSEQ_AREA_CPU_ONLY),
		   "the libc registered an rseq area: getcpu's route is %s (%s)", vdsokit_route_name(p.route),
		   vdsokit_reason_text(p.reason));
	else
		ok(p.route != VDSOKIT_ROUTE_RSEQ, "no rseq area from the libc: getcpu's route is %s",
		   vdsokit_route_name(p.route));

	enum { THREADS = 4 };
	const char *cannot = threads_cannot_wait();
	if (cannot) {
		skip("%d threads: %s", THREADS, cannot);
	} else {
		pthread_t t[THREADS];
		int started = 0, bad = 0;
		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&t[i], NULL, thread_main, NULL) == 0)
				started++;
		for (int i = 0; i < started; i++) {
			void *ret;
			pthread_join(t[i], &ret);
			bad += (int)(intptr_t)ret;
		}
		ok(started == THREADS && bad == 0,
		   "%d threads: getcpu equals the syscall on every CPU id (%d wrong)", started, bad);
	}

	int status = run_in_child(child_main, NULL, 0);
	ok(child_passed(status), "forked child: getcpu equals the syscall on every CPU id (%s)",
	   wait_status_text(status).text);
	check_kernel_writes_node_id();
	check_without_rseq();
	return done_testing();
}
