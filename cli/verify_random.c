/* SPDX-License-Identifier: MIT */
/*
 * verify: getrandom returns the full length asked for and never the same
 * bytes twice, through the syscall, the raw vDSO and the library.
 *
 * Statistics are not the point (the kernel's generator is tested
 * elsewhere); a vDSO state that is reused, copied across calls or not
 * refilled is, and it shows as repeated or all-zero output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "checks.h"

typedef ssize_t getrandom_path(void *buf, size_t len, unsigned flags);

static ssize_t random_raw(void *buf, size_t len, unsigned flags)
{
	return vdso_getrandom_via(VDSO_VIA_VDSO, buf, len, flags);
}

static ssize_t random_syscall(void *buf, size_t len, unsigned flags)
{
	return vdso_getrandom_via(VDSO_VIA_SYSCALL, buf, len, flags);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
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
	if (p == -ENOSYS) {
		check_set(r, CHECK_SKIP, "this kernel's vDSO has no getrandom (it came in Linux 6.11-6.16, "
			  "depending on the architecture)");
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

void verify_getrandom(struct check_list *out, const char *group)
{
	check_path(out, group, "(syscall)", random_syscall);
	check_path(out, group, "(vDSO)", random_raw);
	check_path(out, group, "(library)", vdso_getrandom);
}
