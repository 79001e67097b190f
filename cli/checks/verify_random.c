/* SPDX-License-Identifier: MIT */
/*
 * verify: getrandom returns the full length asked for and never the same
 * bytes twice, through the syscall, the raw vDSO and the library.
 *
 * Statistics are not the point (the kernel's generator is tested
 * elsewhere); a vDSO state that is reused, copied across calls or not
 * refilled is, and it shows as repeated or all-zero output.  So are a
 * state shared by two threads, and one that a forked child inherits
 * without the kernel wiping it: the library's outputs across threads and
 * across a fork must not repeat either.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/threads.h"
#include "host/child.h"
#include "checks/reference.h"

typedef ssize_t getrandom_path(void *buf, size_t len, unsigned flags);

static ssize_t random_raw(void *buf, size_t len, unsigned flags)
{
	return vdsokit_getrandom_via(VDSOKIT_ROUTE_VDSO, buf, len, flags);
}

static ssize_t random_syscall(void *buf, size_t len, unsigned flags)
{
	return reference_getrandom(buf, len, flags);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The getrandom syscall's refusal (seccomp), 0 when it answers: then the
 * vDSO's getrandom, which makes that syscall to set up its state, and the
 * library's fail too, and nothing says whether they would work.
 */
static int syscall_refusal;

static bool skip_if_refused(struct check_result *r, ssize_t result)
{
	if (!syscall_refusal || !syscall_refused((int)result))
		return false;
	check_set(r, CHECK_SKIP, "the getrandom syscall fails here: %s (refused, e.g. by a seccomp "
		  "filter), and this call returned %s: the vDSO's getrandom makes that syscall to "
		  "set up its state", errno_name(-syscall_refusal), errno_name((int)-result));
	return true;
}

/*
 * A refusal inside the loop, for flags or a length the first probe did not
 * ask (a filter on GRND_NONBLOCK): the syscall is asked the same; refused
 * too, the check is a skip with its reason.  Answered, the path's error
 * is its own and the caller fails it.
 */
static bool skip_if_refused_for(struct check_result *r, const char *who, size_t len, unsigned flags)
{
	unsigned char buf[16];
	ssize_t sys = random_syscall(buf, len < sizeof(buf) ? len : sizeof(buf), flags);
	if (!syscall_refused(sys))
		return false;
	char what[96];
	snprintf(what, sizeof(what), "flags %#x%s", flags, strcmp(who, "(syscall)") == 0 ? "" :
		 ", which the vDSO's getrandom makes when its state needs it");
	check_skip_reference(r, "getrandom", what, sys);
	return true;
}

/* Whether mainline gives this architecture's vDSO a getrandom at all. */
static bool vdso_getrandom_arch(const char *arch)
{
	static const char *const families[] = { "x86_64", "aarch64", "powerpc", "ppc", "s390",
						"loongarch", "riscv", "x32" };
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (strncmp(arch, families[i], strlen(families[i])) == 0)
			return true;
	return false;
}

static void check_path(struct check_list *out, const char *group, const char *who,
		       getrandom_path *call)
{
	static const size_t lengths[] = { 1, 16, 32, 255, 256, 4096, 65536 };
	static const unsigned flags[] = { 0, GRND_NONBLOCK };
	struct check_result *r = check_add(out, group, "getrandom %s", who);
	unsigned char *a = malloc(65536), *b = malloc(65536);
	if (!a || !b) {
		check_set(r, CHECK_SKIP, "out of memory");
		goto done;
	}
	unsigned char probe[8];
	ssize_t p = call(probe, sizeof(probe), 0);
	if (skip_if_refused(r, p))
		goto done;
	if (p == -ENOSYS) {
		/* The cause found here, not the usual one. */
		if (!vdsokit_process_image())
			check_set(r, CHECK_SKIP, "no vDSO in this process: nothing to check");
		else if (!vdso_getrandom_arch(vdsokit_arch_name()))
			check_set(r, CHECK_SKIP, "no getrandom in the vDSO of %s: mainline adds it only "
				  "to x86_64, arm64, powerpc, s390, loongarch and riscv",
				  vdsokit_arch_name());
		else
			check_set(r, CHECK_SKIP, "this kernel's vDSO has no getrandom (it came in Linux "
				  "6.11-6.16, depending on the architecture)");
		goto done;
	}
	unsigned calls = 0;
	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
			size_t len = lengths[i];
			memset(a, 0, len);
			memset(b, 0, len);
			ssize_t ra = call(a, len, flags[f]), rb = call(b, len, flags[f]);
			calls += 2;
			if (syscall_refused(ra != (ssize_t)len ? ra : rb) &&
			    skip_if_refused_for(r, who, len, flags[f]))
				goto done;
			if (ra != (ssize_t)len || rb != (ssize_t)len) {
				check_set(r, CHECK_FAIL, "asked %zu bytes (flags %#x), got %zd and %zd",
					  len, flags[f], ra, rb);
				goto done;
			}
			/* 16 bytes or more: a repeat or all zeros means a broken generator. */
			if (len >= 16 && (memcmp(a, b, len) == 0 || all_zero(a, len))) {
				check_set(r, CHECK_FAIL, "two %zu-byte outputs (flags %#x) are %s", len,
					  flags[f], all_zero(a, len) ? "all zero" : "identical");
				goto done;
			}
		}
	}
	check_number(r, "calls", "calls", calls);
	check_set(r, CHECK_PASS, "full lengths 1 to 65536 bytes, with and without GRND_NONBLOCK, "
		  "outputs distinct, in %u calls", calls);
done:
	free(a);
	free(b);
}

enum { RANDOM_THREADS = 16, RANDOM_CALLS = 2000, RANDOM_OUT = 32 };

struct random_thread {
	unsigned char (*out)[RANDOM_OUT];
	unsigned short_reads;
	ssize_t first_error;       /* of a short read: a negative errno */
};

static void *random_thread_main(void *arg)
{
	struct random_thread *t = arg;
	for (unsigned i = 0; i < RANDOM_CALLS; i++) {
		ssize_t got = vdsokit_getrandom(t->out[i], RANDOM_OUT, 0);
		if (got != RANDOM_OUT && t->short_reads++ == 0)
			t->first_error = got;
	}
	return NULL;
}

static int compare_outputs(const void *a, const void *b)
{
	return memcmp(a, b, RANDOM_OUT);
}

/* Threads at once, each with its own state: no two outputs alike. */
static void check_threads(struct check_list *out, const char *group)
{
	struct check_result *r = check_add(out, group, "getrandom across threads (library)");
	unsigned char probe[RANDOM_OUT];
	if (skip_if_refused(r, vdsokit_getrandom(probe, sizeof(probe), 0)))
		return;
	const char *cannot_wait = threads_cannot_wait();
	if (cannot_wait) {
		check_set(r, CHECK_SKIP, "%s", cannot_wait);
		return;
	}
	size_t n = (size_t)RANDOM_THREADS * RANDOM_CALLS;
	unsigned char (*all)[RANDOM_OUT] = calloc(n, RANDOM_OUT);
	struct random_thread threads[RANDOM_THREADS];
	pthread_t ids[RANDOM_THREADS];
	unsigned started = 0, short_reads = 0;
	ssize_t first_error = 0;
	if (!all) {
		check_set(r, CHECK_SKIP, "out of memory");
		return;
	}
	for (unsigned t = 0; t < RANDOM_THREADS; t++) {
		threads[t] = (struct random_thread){ .out = all + (size_t)t * RANDOM_CALLS };
		if (pthread_create(&ids[t], NULL, random_thread_main, &threads[t]) == 0)
			started++;
		else
			break;
	}
	for (unsigned t = 0; t < started; t++) {
		pthread_join(ids[t], NULL);
		short_reads += threads[t].short_reads;
		if (!first_error)
			first_error = threads[t].first_error;
	}
	n = (size_t)started * RANDOM_CALLS;
	qsort(all, n, RANDOM_OUT, compare_outputs);
	size_t repeats = 0;
	for (size_t i = 1; i < n; i++)
		/* An output a failed call left unwritten (zeros) is a short read, not a repeat. */
		repeats += memcmp(all[i - 1], all[i], RANDOM_OUT) == 0 && !all_zero(all[i], RANDOM_OUT);
	free(all);
	check_number(r, "threads", "", started);
	check_number(r, "calls", "calls", (long long)n);
	check_number(r, "repeats", "", (long long)repeats);
	if (started < 2)
		check_set(r, CHECK_SKIP, "could not start the threads");
	else if (short_reads || repeats)
		check_set(r, CHECK_FAIL, "%u threads x %u calls of %u bytes: %u short reads%s%s%s, "
			  "%zu repeated outputs", started, RANDOM_CALLS, RANDOM_OUT, short_reads,
			  first_error < 0 ? " (first: " : "",
			  first_error < 0 ? errno_name((int)-first_error) : "",
			  first_error < 0 ? ")" : "", repeats);
	else
		check_set(r, CHECK_PASS, "%u threads x %u calls of %u bytes: all full, no output twice",
			  started, RANDOM_CALLS, RANDOM_OUT);
}

/* A forked child must not replay the parent's state: their next outputs differ. */
static void check_fork(struct check_list *out, const char *group)
{
	struct check_result *r = check_add(out, group, "getrandom across fork (library)");
	unsigned char before[RANDOM_OUT], parent[RANDOM_OUT], child[RANDOM_OUT];
	int fd[2];
	/* This thread's state is now in use. */
	if (skip_if_refused(r, vdsokit_getrandom(before, sizeof(before), 0)))
		return;
	if (pipe(fd)) {
		check_set(r, CHECK_SKIP, "pipe: %s", strerror(errno));
		return;
	}
	pid_t pid = child_start();
	char no_child[200] = "";
	if (pid < 0)
		snprintf(no_child, sizeof(no_child), "no child process: %s", child_start_why());
	if (pid == 0) {
		unsigned char mine[RANDOM_OUT];
		int good = vdsokit_getrandom(mine, sizeof(mine), 0) == (ssize_t)sizeof(mine) &&
			   write(fd[1], mine, sizeof(mine)) == (ssize_t)sizeof(mine);
		_exit(good ? 0 : 1);
	}
	close(fd[1]);
	ssize_t got = pid > 0 ? read(fd[0], child, sizeof(child)) : -1;
	close(fd[0]);
	if (pid > 0)
		child_wait(pid, NULL);
	ssize_t mine = vdsokit_getrandom(parent, sizeof(parent), 0);
	if (pid < 0)
		check_set(r, CHECK_SKIP, "%s", no_child);
	else if (got != RANDOM_OUT)
		check_set(r, CHECK_SKIP, "the child could not report its output");
	else if (mine != RANDOM_OUT || memcmp(parent, child, RANDOM_OUT) == 0 ||
		 memcmp(before, child, RANDOM_OUT) == 0)
		check_set(r, CHECK_FAIL, "the child's first output repeats the parent's");
	else
		check_set(r, CHECK_PASS, "parent and child produce different outputs after fork");
}

void verify_getrandom(struct check_list *out, const char *group)
{
	unsigned char probe[8];
	ssize_t p = random_syscall(probe, sizeof(probe), 0);
	syscall_refusal = syscall_refused((int)p) ? (int)p : 0;
	check_path(out, group, "(syscall)", random_syscall);
	check_path(out, group, "(vDSO)", random_raw);
	check_path(out, group, "(library)", vdsokit_getrandom);
	check_threads(out, group);
	check_fork(out, group);
}
