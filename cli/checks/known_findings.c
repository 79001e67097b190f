/* SPDX-License-Identifier: MIT */
/*
 * Recognising documented kernel findings in verify's results.  A finding is
 * matched on the figures the check recorded (what the syscall and the vDSO
 * returned), not on its words, so that a rewording of a detail line cannot
 * make a different disagreement pass for a known one.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "known_findings.h"
#include "checks/checks.h"

static const struct known_finding findings[] = {
	{ "aux-getres", "the vDSO's clock_getres succeeds for auxiliary clocks the kernel "
			"does not have (Linux 6.17+, CONFIG_POSIX_AUX_CLOCKS=n)" },
};

const struct known_finding *known_findings(unsigned *count)
{
	*count = sizeof(findings) / sizeof(findings[0]);
	return findings;
}

static bool number_of(const struct check_result *r, const char *key, long long *value)
{
	for (unsigned i = 0; i < r->number_count; i++)
		if (strcmp(r->numbers[i].key, key) == 0) {
			*value = r->numbers[i].value;
			return true;
		}
	return false;
}

/*
 * aux-getres: clock_getres of an auxiliary clock id (AUX0..AUX7), the
 * syscall EINVAL (no such clock in this kernel) and the vDSO 0 (success).
 */
static bool is_aux_getres(const struct check_result *r)
{
	long long sys, vdso;
	return r->status == CHECK_VDSO_DIFFERS && strncmp(r->name, "clock_getres(AUX", 16) == 0 &&
	       number_of(r, "syscall", &sys) && sys == -EINVAL &&
	       number_of(r, "vdso", &vdso) && vdso == 0;
}

const struct known_finding *known_finding_of(const struct check_result *r)
{
	if (is_aux_getres(r))
		return &findings[0];
	return NULL;
}
