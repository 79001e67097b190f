/* SPDX-License-Identifier: MIT */
/*
 * Kernel findings the project has written up (docs/kernel-findings.md),
 * recognised in verify's results, so that a user who meets one is told it
 * is known kernel behaviour, not something wrong with their system.
 */
#ifndef VDSOKIT_CLI_KNOWN_FINDINGS_H
#define VDSOKIT_CLI_KNOWN_FINDINGS_H

#include "checks.h"
#include "vdsokit.h"

/* Where the findings are written up; each id is an anchor in it. */
#define KNOWN_FINDINGS_DOC "docs/kernel-findings.md"

struct known_finding {
	const char *id;       /* "aux-getres": the anchor, and the JSON value */
	const char *title;    /* one line, for people */
};

/* The documented finding a verify result is an instance of, or NULL. */
const struct known_finding *known_finding_of(const struct check_result *r);

/* Every documented finding verify can recognise; *count gets their number. */
const struct known_finding *known_findings(unsigned *count);

#endif
