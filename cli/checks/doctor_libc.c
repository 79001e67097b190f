/* SPDX-License-Identifier: MIT */
/*
 * doctor: a C library clock_gettime replaced by another object (LD_PRELOAD,
 * /etc/ld.so.preload: a libfaketime-style shim).  Programs calling libc's
 * clock_gettime then get the shim's code, often a syscall or worse, and
 * bench shows libc many times slower than the vDSO; doctor must not say
 * every call is on its fast path.  Found by asking the dynamic linker
 * which object the name resolves to, against the C library's own symbol,
 * for every C library function bench measures (gettimeofday and time as
 * much as clock_gettime).  A shim whose clock stands still is named as
 * such: the evidence is its reading before and after a few ms of
 * libvdsokit's clock, which no preloaded object can replace.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "checks/doctor.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"

/*
 * The C library's functions bench measures (its libc column): a shim may
 * replace any of them, not only clock_gettime.
 */
static const char *const measured_names[] = {
	"clock_gettime", "clock_getres", "gettimeofday", "time",
	"sched_getcpu", "getcpu", "getrandom",
};
#define MEASURED_COUNT (sizeof(measured_names) / sizeof(measured_names[0]))

/* The C library's own function `name`, and the object the default lookup finds. */
static void *libc_own(const char *name)
{
	static const char *const names[] = { "libc.so.6", "libc.so", "libc.musl-x86_64.so.1" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			void *own = dlsym(h, name);
			dlclose(h);
			if (own)
				return own;
		}
	}
	return NULL;
}

/* The first line of /etc/ld.so.preload, if it names anything. */
static bool preload_file(char *line, size_t size)
{
	FILE *f = fopen("/etc/ld.so.preload", "re");
	if (!f)
		return false;
	bool any = false;
	while (!any && fgets(line, (int)size, f)) {
		line[strcspn(line, "\n")] = 0;
		any = line[strspn(line, " \t")] != 0;
	}
	fclose(f);
	return any;
}

/* A sanitizer's interceptor (libasan.so, libtsan.so, ...): not a preloaded shim. */
static bool sanitizer_runtime(const char *object)
{
	static const char *const sanitizers[] = { "libasan", "libtsan", "liblsan", "libubsan",
						  "libhwasan", "libmsan" };
	const char *base = strrchr(object, '/') ? strrchr(object, '/') + 1 : object;
	for (size_t i = 0; i < sizeof(sanitizers) / sizeof(sanitizers[0]); i++)
		if (strncmp(base, sanitizers[i], strlen(sanitizers[i])) == 0)
			return true;
	return false;
}

/*
 * The object whose function `name` a program calling the C library's gets
 * (*seen, in place of the C library's *own), or NULL when it is the C
 * library's own, this program's (static) or a sanitizer's.
 */
static const char *interposer(const char *name, void **seen, void **own)
{
	Dl_info info, self;
	*seen = dlsym(RTLD_DEFAULT, name);
	*own = libc_own(name);
	if (!*seen || !*own || *seen == *own)
		return NULL;   /* static, or the C library's own: nothing interposed */
	const char *object = dladdr(*seen, &info) && info.dli_fname ? info.dli_fname :
			     "an unknown object";
	/* An interceptor linked into this program, as a sanitizer's runtime is. */
	if (dladdr((void *)interposer, &self) && self.dli_fbase == info.dli_fbase)
		return NULL;
	return sanitizer_runtime(object) ? NULL : object;
}

/* What the interposer costs: libc's clock_gettime(MONOTONIC) against libvdsokit's. */
static void cost_evidence(struct doctor_finding *f)
{
	struct bench_case c;
	struct bench_result results[BENCH_PATH_COUNT];
	bool wanted[BENCH_PATH_COUNT] = { false };
	struct bench_config config = {
		.seconds = 0.1, .batch_ns = 20e3, .min_batches = 31, .max_batches = 200,
	};
	wanted[BENCH_LIBC] = wanted[BENCH_LIBRARY] = true;
	bench_case_init(&c, VDSOKIT_FN_CLOCK_GETTIME, CLOCK_MONOTONIC);
	bench_measure(&c, wanted, &config, results);
	const struct bench_result *libc = &results[BENCH_LIBC], *lib = &results[BENCH_LIBRARY];
	if (!libc->available || !lib->available || libc->refused || lib->refused ||
	    !isfinite(libc->median_ns) || !isfinite(lib->median_ns) || lib->median_ns <= 0)
		return;
	char a[32], b[32];
	fmt_duration_ns(a, sizeof(a), libc->median_ns);
	fmt_duration_ns(b, sizeof(b), lib->median_ns);
	doctor_evidence(f, "measured clock_gettime(MONOTONIC): libc %s, libvdsokit %s per call "
			"(%.1fx)", a, b, libc->median_ns / lib->median_ns);
}

/*
 * Whether the C library's clock_gettime(MONOTONIC) and gettimeofday stand
 * still while the library's clock runs on (a frozen fake clock): evidence
 * for f, and true when one does.  Bounded by reads, not only by time.
 */
static bool frozen_evidence(struct doctor_finding *f)
{
	struct timespec ts0, ts1;
	struct timeval tv0, tv1;
	if (clock_gettime(CLOCK_MONOTONIC, &ts0) != 0 || gettimeofday(&tv0, NULL) != 0)
		return false;
	double start = bench_now_ns();
	for (unsigned long reads = 0; reads < BENCH_CLOCK_STILL_READS; reads++)
		if (bench_now_ns() - start >= 5e6)
			break;
	double waited = bench_now_ns() - start;
	if (waited < 5e6 || clock_gettime(CLOCK_MONOTONIC, &ts1) != 0 ||
	    gettimeofday(&tv1, NULL) != 0)
		return false;   /* the library's clock did not run either: no comparison */
	char span[32];
	fmt_duration_ns(span, sizeof(span), waited);
	bool frozen = false;
	if (ts1.tv_sec == ts0.tv_sec && ts1.tv_nsec == ts0.tv_nsec) {
		doctor_evidence(f, "the C library's clock_gettime(MONOTONIC) read %lld.%09ld s before "
				"and after %s of libvdsokit's: it stands still",
				(long long)ts0.tv_sec, (long)ts0.tv_nsec, span);
		frozen = true;
	}
	if (tv1.tv_sec == tv0.tv_sec && tv1.tv_usec == tv0.tv_usec) {
		doctor_evidence(f, "the C library's gettimeofday read %lld.%06ld s before and after "
				"%s of libvdsokit's clock: it stands still",
				(long long)tv0.tv_sec, (long)tv0.tv_usec, span);
		frozen = true;
	}
	return frozen;
}

void doctor_check_libc_clock(struct doctor_report *r)
{
	void *seen[MEASURED_COUNT], *own[MEASURED_COUNT];
	const char *objects[MEASURED_COUNT], *object = NULL;
	char names[160] = "";
	size_t used = 0;
	for (size_t i = 0; i < MEASURED_COUNT; i++) {
		objects[i] = interposer(measured_names[i], &seen[i], &own[i]);
		if (!objects[i])
			continue;
		if (!object)
			object = objects[i];
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 used ? ", " : "", measured_names[i]);
		if (used >= sizeof(names))
			used = sizeof(names) - 1;
	}
	if (!object)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "libc-clock-interposed", SEVERITY_SLOW,
		"the C library's %s %s replaced by %s: programs calling %s run that code, not "
		"the C library's vDSO path", names, strchr(names, ',') ? "are" : "is", object,
		strchr(names, ',') ? "them" : "it");
	for (size_t i = 0; i < MEASURED_COUNT; i++)
		if (objects[i])
			doctor_evidence(f, "dlsym(RTLD_DEFAULT, \"%s\") = %p in %s; the C library's "
					"own is %p", measured_names[i], seen[i], objects[i], own[i]);
	const char *env = getenv("LD_PRELOAD");
	if (env && *env)
		doctor_evidence(f, "LD_PRELOAD=%s", env);
	char line[256];
	if (preload_file(line, sizeof(line)))
		doctor_evidence(f, "/etc/ld.so.preload: %s", line);
	bool frozen = frozen_evidence(f);
	if (objects[0])
		cost_evidence(f);
	doctor_action(f, "%s", frozen ?
		      "a clock that stands still makes every program that waits or times out on "
		      "it hang: remove the object from LD_PRELOAD or /etc/ld.so.preload unless "
		      "that is the point (a test harness)" :
		      "expected if you meant to (libfaketime, a test harness); otherwise remove "
		      "it from LD_PRELOAD or /etc/ld.so.preload");
}
