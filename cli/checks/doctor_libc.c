/* SPDX-License-Identifier: MIT */
/*
 * doctor: a C library clock_gettime replaced by another object (LD_PRELOAD,
 * /etc/ld.so.preload: a libfaketime-style shim).  Programs calling libc's
 * clock_gettime then get the shim's code, often a syscall or worse, and
 * bench shows libc many times slower than the vDSO; doctor must not say
 * every call is on its fast path.  Found by asking the dynamic linker
 * which object the name resolves to, against the C library's own symbol.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checks/doctor.h"
#include "vdsokit.h"
#include "output/output.h"
#include "host/host.h"
#include "measure/measure.h"

/* The C library's own clock_gettime, and the object the default lookup finds. */
static void *libc_own(void)
{
	static const char *const names[] = { "libc.so.6", "libc.so", "libc.musl-x86_64.so.1" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			void *own = dlsym(h, "clock_gettime");
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
 * The object whose clock_gettime a program calling the C library's gets
 * (*seen, in place of the C library's *own), or NULL when it is the C
 * library's own, this program's (static) or a sanitizer's.
 */
static const char *interposer(void **seen, void **own)
{
	Dl_info info, self;
	*seen = dlsym(RTLD_DEFAULT, "clock_gettime");
	*own = libc_own();
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

void doctor_check_libc_clock(struct doctor_report *r)
{
	void *seen, *own;
	const char *object = interposer(&seen, &own);
	if (!object)
		return;
	struct doctor_finding *f = doctor_finding_add(r, "libc-clock-interposed", SEVERITY_SLOW,
		"the C library's clock_gettime is replaced by %s: programs calling it run that "
		"code, not the C library's vDSO path", object);
	doctor_evidence(f, "dlsym(RTLD_DEFAULT, \"clock_gettime\") = %p in %s; the C library's own "
			"is %p", seen, object, own);
	const char *env = getenv("LD_PRELOAD");
	if (env && *env)
		doctor_evidence(f, "LD_PRELOAD=%s", env);
	char line[256];
	if (preload_file(line, sizeof(line)))
		doctor_evidence(f, "/etc/ld.so.preload: %s", line);
	cost_evidence(f);
	doctor_action(f, "expected if you meant to (libfaketime, a test harness); otherwise remove "
		      "it from LD_PRELOAD or /etc/ld.so.preload");
}
