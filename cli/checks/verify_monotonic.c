/* SPDX-License-Identifier: MIT */
/*
 * verify: monotonic clocks never go backwards, within one thread and
 * across threads on different CPUs.
 *
 * Across threads: each clock has a shared maximum.  A thread loads it,
 * then reads the clock.  The maximum was stored by a reading that had
 * completed before the load, so the new reading must not be smaller: if
 * it is, time went backwards between two CPUs (unsynchronised TSCs, a
 * vDSO that mixes clock bases).  The paths are mixed in one chain
 * (raw vDSO, library, an occasional syscall) so that the vDSO is also held
 * against the kernel's own reading.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"
#include "host/threads.h"
#include "checks/reference.h"

static const long monotonic_clocks[] = {
	CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, CLOCK_MONOTONIC_COARSE,
};
#define CLOCK_COUNT (sizeof(monotonic_clocks) / sizeof(monotonic_clocks[0]))
#define MAX_CPUS 1024

/*
 * The shared maxima: 64-bit atomics where the CPU has them lock-free; a
 * mutex on the others (m68k, 32-bit powerpc and mips), whose compilers
 * would otherwise call libatomic.  Either way the load happens before the
 * clock is read, which is all the check needs.
 */
#if ATOMIC_LLONG_LOCK_FREE == 2
#define SHARED_MAX_LOCK_FREE 1
typedef _Atomic int64_t shared_max;
#else
#define SHARED_MAX_LOCK_FREE 0
typedef int64_t shared_max;
static pthread_mutex_t shared_max_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static int64_t shared_max_load(shared_max *m)
{
#if SHARED_MAX_LOCK_FREE
	return atomic_load(m);
#else
	pthread_mutex_lock(&shared_max_lock);
	int64_t v = *m;
	pthread_mutex_unlock(&shared_max_lock);
	return v;
#endif
}

/* Raises *m to v unless it is already higher. */
static void shared_max_raise(shared_max *m, int64_t v)
{
#if SHARED_MAX_LOCK_FREE
	int64_t cur = atomic_load(m);
	while (cur < v && !atomic_compare_exchange_weak(m, &cur, v))
		;
#else
	pthread_mutex_lock(&shared_max_lock);
	if (*m < v)
		*m = v;
	pthread_mutex_unlock(&shared_max_lock);
#endif
}

static void shared_max_init(shared_max *m, int64_t v)
{
#if SHARED_MAX_LOCK_FREE
	atomic_init(m, v);
#else
	*m = v;
#endif
}

struct shared_state {
	shared_max latest[CLOCK_COUNT];
	atomic_uint ready;
	atomic_bool stop;    /* set by the thread that started them, when the time is up */
	bool have_raw[CLOCK_COUNT];
	long sys_error[CLOCK_COUNT]; /* the syscall refused (seccomp): left out */
	int cpus[MAX_CPUS];
	unsigned cpu_count;
};

struct thread_stats {
	struct shared_state *shared;
	unsigned index;
	int pin_error;
	long long reads[CLOCK_COUNT];
	long long back_within[CLOCK_COUNT];  /* below this thread's last reading  */
	long long back_across[CLOCK_COUNT];  /* below another thread's earlier one */
	int64_t worst_ns[CLOCK_COUNT];       /* largest step back, either kind    */
	long long failures[CLOCK_COUNT];     /* a call returned an error          */
	long sys_refused[CLOCK_COUNT];       /* the syscall refused in this thread */
};

static int read_clock(unsigned n, long clock, bool have_raw, bool have_sys,
		      struct vdsokit_timespec *ts)
{
	/* Mostly the vDSO; every 16th reading the kernel's, where it answers. */
	switch (n & 15) {
	case 15:
		if (have_sys)
			return reference_clock_gettime((clockid_t)clock, ts);
		return vdsokit_clock_gettime((clockid_t)clock, ts);
	case 1: case 3: case 5: case 7: case 9: case 11: case 13:
		if (have_raw)
			return vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, (clockid_t)clock, ts);
		/* fall through */
	default:
		return vdsokit_clock_gettime((clockid_t)clock, ts);
	}
}

static void *monotonic_thread(void *arg)
{
	struct thread_stats *t = arg;
	struct shared_state *s = t->shared;
	int64_t last[CLOCK_COUNT];

	if (s->cpu_count)
		t->pin_error = bench_pin_to_cpu(s->cpus[t->index % s->cpu_count]);
	for (unsigned c = 0; c < CLOCK_COUNT; c++)
		last[c] = INT64_MIN;
	/* Start together, so that the threads overlap for the whole run. */
	atomic_fetch_add(&s->ready, 1);
	while (atomic_load(&s->ready) != 0)
		sched_yield();

	for (unsigned n = 0;; n++) {
		if ((n & 1023) == 0 && atomic_load(&s->stop))
			break;
		for (unsigned c = 0; c < CLOCK_COUNT; c++) {
			struct vdsokit_timespec ts;
			int64_t seen = shared_max_load(&s->latest[c]);
			bool have_sys = !s->sys_error[c] && !t->sys_refused[c];
			int rc = read_clock(n, monotonic_clocks[c], s->have_raw[c], have_sys, &ts);
			if (rc != 0 && have_sys && (n & 15) == 15 && syscall_refused(rc)) {
				/* Refused only now (a filter on this clock): its readings are left out. */
				t->sys_refused[c] = rc;
				continue;
			}
			if (rc != 0) {
				t->failures[c]++;
				continue;
			}
			int64_t now = timespec_ns(&ts);
			t->reads[c]++;
			if (now < last[c]) {
				t->back_within[c]++;
				if (last[c] - now > t->worst_ns[c])
					t->worst_ns[c] = last[c] - now;
			}
			if (now < seen) {
				t->back_across[c]++;
				if (seen - now > t->worst_ns[c])
					t->worst_ns[c] = seen - now;
			}
			last[c] = now;
			if (now > seen)
				shared_max_raise(&s->latest[c], now);
		}
	}
	return NULL;
}

void verify_monotonic(struct check_list *out, const char *group, double seconds, unsigned threads)
{
	struct shared_state *s = calloc(1, sizeof(*s));
	struct thread_stats *stats = calloc(threads, sizeof(*stats));
	pthread_t *ids = calloc(threads, sizeof(*ids));
	unsigned started = 0;
	int create_error = 0;

	if (!s || !stats || !ids) {
		struct check_result *r = check_add(out, group, "monotonic clocks");
		check_set(r, CHECK_SKIP, "out of memory");
		goto done;
	}
	const char *cannot_wait = threads_cannot_wait();
	if (cannot_wait) {
		struct check_result *r = check_add(out, group, "monotonic clocks across threads");
		check_set(r, CHECK_SKIP, "%s", cannot_wait);
		goto done;
	}
	s->cpu_count = allowed_cpus(s->cpus, MAX_CPUS);
	/*
	 * Going backwards needs no reference: a refused syscall only leaves
	 * its readings out, and the detail says so.  Asked per clock: a
	 * filter may refuse one clock and not the others.
	 */
	for (unsigned c = 0; c < CLOCK_COUNT; c++) {
		struct vdsokit_timespec ts;
		int sys = reference_clock_gettime((clockid_t)monotonic_clocks[c], &ts);
		s->sys_error[c] = syscall_refused(sys) ? sys : 0;
		s->have_raw[c] = vdsokit_clock_gettime_via(VDSOKIT_ROUTE_VDSO, (clockid_t)monotonic_clocks[c],
							&ts) != -ENOSYS;
		shared_max_init(&s->latest[c], INT64_MIN);
	}
	atomic_init(&s->ready, 0);
	atomic_init(&s->stop, false);
	for (unsigned i = 0; i < threads; i++) {
		stats[i].shared = s;
		stats[i].index = i;
		int e = pthread_create(&ids[i], NULL, monotonic_thread, &stats[i]);
		if (e) {
			create_error = e;
			break;
		}
		started++;
	}
	/* Release them once all are waiting (or as many as could start). */
	while (atomic_load(&s->ready) < started)
		sched_yield();
	double deadline_ns = bench_now_ns() + seconds * 1e9;
	atomic_store(&s->ready, 0);
	/*
	 * The workers never draw or read the time to stop: this thread does,
	 * while they run, and counts its naps too, so that a clock that stands
	 * still cannot keep them going.
	 */
	for (unsigned naps = 0; naps < seconds * 100 + 100 && bench_now_ns() < deadline_ns; naps++) {
		progress_tick();
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	atomic_store(&s->stop, true);
	for (unsigned i = 0; i < started; i++)
		pthread_join(ids[i], NULL);

	for (unsigned c = 0; c < CLOCK_COUNT; c++) {
		char name[32];
		struct check_result *r = check_add(out, group, "monotonic %s",
						   clock_id_name(name, sizeof(name), monotonic_clocks[c]));
		long long reads = 0, within = 0, across = 0, failures = 0;
		long sys_error = s->sys_error[c];
		int64_t worst = 0;
		for (unsigned i = 0; i < started; i++) {
			if (!sys_error)
				sys_error = stats[i].sys_refused[c];
			reads += stats[i].reads[c];
			within += stats[i].back_within[c];
			across += stats[i].back_across[c];
			failures += stats[i].failures[c];
			if (stats[i].worst_ns[c] > worst)
				worst = stats[i].worst_ns[c];
		}
		check_number(r, "threads", "", started);
		check_number(r, "reads", "calls", reads);
		check_number(r, "backwards_within_thread", "", within);
		check_number(r, "backwards_across_threads", "", across);
		check_number(r, "worst_step_back", "ns", worst);
		check_number(r, "errors", "", failures);
		if (started == 0)
			check_set(r, CHECK_SKIP, "no thread could be started: %s", errno_name(create_error));
		else if (within || across)
			check_set(r, CHECK_FAIL, "went backwards %lld times within a thread and %lld "
				  "times across threads (worst %lld ns) in %lld reads by %u threads",
				  within, across, (long long)worst, reads, started);
		else if (failures)
			check_set(r, CHECK_FAIL, "%lld readings failed", failures);
		else {
			char why[200] = "";
			if (sys_error)
				reference_why("clock_gettime", sys_error, why, sizeof(why));
			check_set(r, CHECK_PASS, "never backwards in %lld reads by %u threads on %u "
				  "CPU%s (vDSO, library%s readings mixed%s%s)", reads, started,
				  s->cpu_count < started ? s->cpu_count : started,
				  (s->cpu_count < started ? s->cpu_count : started) == 1 ? "" : "s",
				  sys_error ? "" : " and syscall",
				  sys_error ? "; none from the syscall: " : "", why);
		}
	}
done:
	free(s);
	free(stats);
	free(ids);
}
