/* SPDX-License-Identifier: MIT */
/*
 * The one rule for a reference call: a syscall the tool makes to have the
 * kernel's own answer beside the vDSO's.  A sandbox may refuse it (a
 * seccomp filter's EPERM or ENOSYS, a child killed by SIGSYS) and a
 * y2038-hardened kernel may not have it (ENOSYS): then there is nothing to
 * compare with.  That is a skip with the syscall's name and the reason,
 * never a verdict, never a figure, never a placeholder in a sentence.
 */
#ifndef VDSOKIT_CLI_REFERENCE_H
#define VDSOKIT_CLI_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "vdsokit.h"

/*
 * A reference call's result where a seccomp filter kills its syscall is
 * REFERENCE_KILLED (output/output.h, beside errno_name and syscall_refused,
 * which name and classify it); reference_why says "killed by SIGSYS".
 */

/* Whether a syscall is killed here, before it is made: host/syscall_killed.h. */

/*
 * The reference calls: the function's syscall (vdsokit_*_via with
 * VDSOKIT_ROUTE_SYSCALL), or REFERENCE_KILLED without the call.  Every
 * direct reference call goes through one of these.
 */
int reference_clock_gettime(clockid_t clock, struct vdsokit_timespec *ts);
int reference_clock_getres(clockid_t clock, struct vdsokit_timespec *res);
int reference_gettimeofday(struct vdsokit_timeval *tv, struct timezone *tz);
int reference_time(int64_t *t);
int reference_getcpu(unsigned *cpu, unsigned *node);
ssize_t reference_getrandom(void *buf, size_t len, unsigned flags);

/*
 * A reference call inside a measurement loop, whose readings bound the
 * others: true when it answered (0 or a value).  Otherwise the loop must
 * stop, for the readings around a failed call mean nothing, and *first
 * (0 until then) keeps the -errno, for the skip's reason (check_skip_reference).
 */
bool reference_answered(long result, long *first);

/*
 * Why there is no reference, for a sentence: "the time syscall, the
 * reference, is refused here (EPERM, e.g. by a seccomp filter)", "... is
 * not in this kernel (ENOSYS)".  result: the -errno; buf: at least 160 bytes.
 */
const char *reference_why(const char *syscall, long result, char *buf, size_t size);

/* The same for a child killed by SIGSYS while it made the named syscall. */
const char *reference_why_killed(const char *syscall, char *buf, size_t size);

#endif /* VDSOKIT_CLI_REFERENCE_H */
